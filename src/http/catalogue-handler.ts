/**
 * The four read operations, served straight on node:http: a request costs a path match, a
 * negotiation, a lookup of the prebuilt answer and one write. Measured on this service, a
 * framework's per-request machinery cost about 40 % of the throughput of small answers, so the
 * catalogue paths answer here and every other path goes on to the application framework.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
// The global `performance` is a getter, looked up on every use; the module's binding is not.
import { performance } from 'node:perf_hooks';
import { MAX_INT32 } from '../catalogue/model.js';
import type { PublishedCatalogue } from '../formats/published-catalogue.js';
import type { Representations } from '../formats/representation.js';
import type { AccessLog } from './access-log.js';
import { negotiateEncoding } from './accept-encoding.js';
import type { Admit } from './authenticate.js';
import type { CorsPolicy } from './cors.js';
import { HttpError, quote, type Problem } from './http-error.js';
import { formatParameter, requestedMediaType, type MediaType } from './media-types.js';
import { RouteObserver } from './observe-requests.js';
import { problemResponse, type HeaderFields, type PreparedResponse } from './problem.js';
import type { RequestMetrics } from './request-metrics.js';

/** Where the handler finds the catalogue it serves. */
export interface CatalogueDirectory {
  published(customer: string): PublishedCatalogue;
}

export interface CatalogueHandlerOptions {
  readonly catalogues: CatalogueDirectory;
  readonly cacheControl: string;
  /** Lets a request in (token, customer, rate limit) or refuses it. */
  readonly admit: Admit;
  /** Cross-origin access; off when undefined. */
  readonly cors: CorsPolicy | undefined;
  /** Where each answer is counted, by route pattern and status. */
  readonly metrics: RequestMetrics;
  /** Where each answer gets its log line; no lines when undefined. */
  readonly accessLog: AccessLog | undefined;
  /** True once the server is shutting down: each answer then closes its connection. */
  readonly closing: () => boolean;
  /** Told of a failure the client did not cause; the client gets a 500 without details. */
  readonly onError: (error: unknown) => void;
}

/** Answers a request on a catalogue path and returns true; returns false for any other path. */
export type CatalogueHandler = (request: IncomingMessage, response: ServerResponse) => boolean;

/** `/v4/film`, `/v1/filmpackage`, each with an optional id and one optional trailing slash. */
const CATALOGUE_PATH = /^\/(v4\/film|v1\/filmpackage)(?:\/([^/]+))?\/?$/i;

/** The route patterns of the catalogue paths, as metrics and logs name them. */
const ROUTES = { filmList: '/v4/film', film: '/v4/film/:id', packageList: '/v1/filmpackage', package: '/v1/filmpackage/:id' } as const;

const NO_BODY = Buffer.alloc(0);

function notFound(detail: string): Problem {
  return { status: 404, title: 'Not Found', detail, headers: {} };
}

/** A path segment, percent-decoded; undefined for a malformed encoding, which names no record. */
function decodeSegment(segment: string): string | undefined {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** A package id as .NET binds an `int` route value: decimal digits from 1 to 2147483647. */
function parsePackageId(text: string): number | undefined {
  if (!/^\d{1,12}$/.test(text)) return undefined;
  const id = Number(text);
  return id >= 1 && id <= MAX_INT32 ? id : undefined;
}

/** If-None-Match uses the weak comparison (RFC 9110 §13.1.2): `W/` prefixes are ignored. */
function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  // Most revalidations send back the one tag they were given: no list to take apart.
  if (header === etag) return true;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

export function createCatalogueHandler(options: CatalogueHandlerOptions): CatalogueHandler {
  const { catalogues, cacheControl } = options;
  const observer = (pattern: string): RouteObserver => new RouteObserver(options.metrics, options.accessLog, pattern);
  const observers: Readonly<Record<keyof typeof ROUTES, RouteObserver>> = {
    filmList: observer(ROUTES.filmList),
    film: observer(ROUTES.film),
    packageList: observer(ROUTES.packageList),
    package: observer(ROUTES.package),
  };
  let requests = 0;

  /** The answers for the path, or the problem of an id that names no record (not thrown: a 404 is common, a stack trace costly). */
  function find(catalogue: PublishedCatalogue, isFilm: boolean, segment: string | undefined): Representations | Problem {
    if (segment === undefined) return isFilm ? catalogue.filmList() : catalogue.packageList();
    const id = decodeSegment(segment);
    if (isFilm) return (id !== undefined && catalogue.film(id)) || notFound(`No film has the id ${quote(id ?? segment)}.`);
    const packageId = id === undefined ? undefined : parsePackageId(id);
    return (packageId !== undefined && catalogue.package(packageId)) || notFound(`No film package has the id ${quote(id ?? segment)}.`);
  }

  function represent(request: IncomingMessage, representations: Representations, media: MediaType): PreparedResponse {
    const representation = representations[media.format];
    const coding = representation.compressible ? negotiateEncoding(request.headers['accept-encoding']) : undefined;
    const encoded = coding === undefined ? undefined : representation.encoded(coding);
    const { body, etag } = encoded ?? representation;
    const vary = representation.compressible ? 'Accept, Accept-Encoding' : 'Accept';
    if (matchesIfNoneMatch(request.headers['if-none-match'], etag)) {
      return { status: 304, headers: { vary, 'cache-control': cacheControl, etag }, body: NO_BODY };
    }
    const headers: Record<string, string> = { 'content-type': media.contentType, vary, 'cache-control': cacheControl, etag, 'content-length': String(body.length) };
    if (coding !== undefined && encoded !== undefined) headers['content-encoding'] = coding;
    return { status: 200, headers, body };
  }

  /**
   * Writes an answer with the headers of the steps before it added: CORS (undefined when off) and
   * rate limits. Without either, the answer's own headers go out as they are.
   */
  function write(request: IncomingMessage, response: ServerResponse, answer: PreparedResponse, cors: HeaderFields | undefined, admitted?: HeaderFields): void {
    let headers = answer.headers;
    // While the server drains, an answer on a kept-alive connection is its last.
    const closing = options.closing();
    if (cors !== undefined || admitted !== undefined || closing) {
      const merged: Record<string, string> = { ...cors, ...admitted, ...answer.headers };
      if (cors !== undefined) merged['vary'] = merged['vary'] === undefined ? 'Origin' : `${merged['vary']}, Origin`;
      if (closing) merged['connection'] = 'close';
      headers = merged;
    }
    response.writeHead(answer.status, headers);
    response.end(request.method === 'HEAD' ? undefined : answer.body);
  }

  /** The answer to a request on a catalogue path, before the CORS headers. */
  function answer(request: IncomingMessage, isFilm: boolean, segment: string | undefined, media: MediaType): { answer: PreparedResponse; headers: HeaderFields | undefined } {
    const preflight = options.cors?.preflight(request);
    if (preflight !== undefined) return { answer: { status: 204, headers: preflight, body: NO_BODY }, headers: undefined };
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      throw new HttpError(405, 'Method Not Allowed', `${request.method ?? ''} is not allowed here; use GET or HEAD.`, { allow: 'GET, HEAD' });
    }
    const admission = options.admit(request);
    if ('detail' in admission) return { answer: problemResponse(admission, media.format), headers: undefined };
    const found = find(catalogues.published(admission.customer), isFilm, segment);
    return { answer: 'detail' in found ? problemResponse(found, media.format) : represent(request, found, media), headers: admission.headers };
  }

  return (request, response) => {
    const started = performance.now();
    const url = request.url ?? '/';
    const queryStart = url.indexOf('?');
    const match = CATALOGUE_PATH.exec(queryStart === -1 ? url : url.slice(0, queryStart));
    if (match === null) return false;
    const [, resource = '', segment] = match;
    // Paths match in any case, as on the original API; clients send them in lower case.
    const isFilm = resource === 'v4/film' || resource.toLowerCase() === 'v4/film';
    const route = segment === undefined ? (isFilm ? 'filmList' : 'packageList') : isFilm ? 'film' : 'package';
    const media = requestedMediaType(request.headers.accept, formatParameter(queryStart === -1 ? undefined : url.slice(queryStart + 1)));
    const cors = options.cors?.headers(request);
    try {
      const result = answer(request, isFilm, segment, media);
      write(request, response, result.answer, cors, result.headers);
    } catch (error) {
      if (error instanceof HttpError) {
        write(request, response, problemResponse(error, media.format), cors);
      } else {
        options.onError(error);
        const failure = new HttpError(500, 'Internal Server Error', 'The server could not answer this request.');
        if (!response.headersSent) write(request, response, problemResponse(failure, media.format), cors);
        else response.destroy();
      }
    }
    observers[route].observe(`cat-${(++requests).toString(36)}`, request.method ?? '', response.statusCode, performance.now() - started);
    return true;
  };
}
