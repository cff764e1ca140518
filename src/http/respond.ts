/**
 * The two kinds of answer a route gives: a prebuilt representation in the negotiated format
 * and coding, with its ETag (or 304 when the client has it), and a problem (RFC 9457).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ChangeKind } from '../catalogue/catalogue-change.js';
import type { CacheTags } from '../changes/cache-tags.js';
import type { Representation, Representations } from '../formats/representation.js';
import { negotiateEncoding } from './accept-encoding.js';
import type { Problem } from './http-error.js';
import { problemPage, PROBLEM_PAGE_POLICY } from '../showtimes/problem-page.js';
import { PAGE_CONTENT_TYPE } from '../showtimes/showtimes-page.js';
import { prefersHtml, requestedMediaType } from './media-types.js';
import { problemBody, PROBLEM_CONTENT_TYPES } from './problem.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route answers a page: its problems are pages too, to a request that prefers HTML. */
    page?: true;
    /** The kinds of record the route's answers are made of, which its cache tags name. */
    reads?: readonly ChangeKind[];
  }
  interface FastifyInstance {
    /** The cache tags of the answers; none are sent where absent. */
    cacheTags: CacheTags | undefined;
  }
}

/** Adds `fields` to the answer's Vary, after what a step before (CORS, access) put there. */
export function vary(reply: FastifyReply, fields: string): void {
  const earlier = reply.getHeader('vary');
  reply.header('vary', earlier === undefined ? fields : `${String(earlier)}, ${fields}`);
}

/** If-None-Match uses the weak comparison (RFC 9110 §13.1.2): `W/` prefixes are ignored. */
function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  // Most revalidations send back the one tag they were given: no list to take apart.
  if (header === etag) return true;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

/** The Cache-Control of an answer whose address changes when its bytes do. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';

/** What an answer varies on: whether it was negotiated, and whether it may come compressed. */
const VARY = {
  negotiated: { compressible: 'Accept, Accept-Encoding', plain: 'Accept' },
  single: { compressible: 'Accept-Encoding', plain: undefined },
} as const;

/** A catalogue answer in the format the request negotiated, JSON or XML. */
export function sendRepresentation(request: FastifyRequest, reply: FastifyReply, representations: Representations, cacheControl: string): FastifyReply {
  const media = requestedMediaType(request);
  return send(request, reply, representations[media.format], media.contentType, cacheControl, VARY.negotiated);
}

/** An answer that comes in one media type, such as the programme's calendar. */
export function sendAnswer(request: FastifyRequest, reply: FastifyReply, representation: Representation, contentType: string, cacheControl: string): FastifyReply {
  return send(request, reply, representation, contentType, cacheControl, VARY.single);
}

function send(
  request: FastifyRequest,
  reply: FastifyReply,
  representation: Representation,
  contentType: string,
  cacheControl: string,
  varies: (typeof VARY)[keyof typeof VARY],
): FastifyReply {
  const coding = representation.compressible ? negotiateEncoding(request.headers['accept-encoding']) : undefined;
  const encoded = coding === undefined ? undefined : representation.encoded(coding);
  const { body, etag } = encoded ?? representation;
  const varyOn = representation.compressible ? varies.compressible : varies.plain;
  if (varyOn !== undefined) vary(reply, varyOn);
  reply.header('cache-control', cacheControl);
  nameCacheTags(request, reply);
  const ifNoneMatch = request.headers['if-none-match'];
  // A client holding the body uncompressed, as a large one goes out until its compressed forms
  // are made, holds a representation as good to it as the compressed one: it is told so.
  const held = matchesIfNoneMatch(ifNoneMatch, etag) ? etag : encoded !== undefined && matchesIfNoneMatch(ifNoneMatch, representation.etag) ? representation.etag : undefined;
  if (held !== undefined) return reply.header('etag', held).code(304).send();
  if (encoded !== undefined) reply.header('content-encoding', coding);
  return reply.header('etag', etag).header('content-type', contentType).send(body);
}

/** The cache tags of an answer made of the kinds its route reads (CONTRACT §14): its customer, and each kind. */
function nameCacheTags(request: FastifyRequest, reply: FastifyReply): void {
  const { reads } = request.routeOptions.config;
  if (reads !== undefined && request.server.cacheTags !== undefined) reply.headers(request.server.cacheTags.answerHeaders(request.customer, reads));
}

/** Bytes that never change at their address, such as a picture's rendition: kept a year by any cache, 304 to a client that has them. */
export function sendImmutable(request: FastifyRequest, reply: FastifyReply, answer: { readonly body: Buffer; readonly etag: string; readonly contentType: string }): FastifyReply {
  reply.header('cache-control', IMMUTABLE).header('etag', answer.etag);
  if (matchesIfNoneMatch(request.headers['if-none-match'], answer.etag)) return reply.code(304).send();
  return reply.header('content-type', answer.contentType).send(answer.body);
}

/** A problem in the format the request negotiated; on a page's route, a page to a request that prefers HTML, as a browser's does. */
export function sendProblem(request: FastifyRequest, reply: FastifyReply, problem: Problem): FastifyReply {
  vary(reply, 'Accept');
  reply.code(problem.status).headers(problem.headers);
  // A record not found is found once a change adds it: a CDN that keeps the 404 purges it with the record's kind.
  if (problem.status === 404) nameCacheTags(request, reply);
  if (prefersHtml(request) && request.routeOptions.config.page === true) {
    return reply.header('content-security-policy', PROBLEM_PAGE_POLICY).header('content-type', PAGE_CONTENT_TYPE).send(problemPage(problem));
  }
  const { format } = requestedMediaType(request);
  return reply.header('content-type', PROBLEM_CONTENT_TYPES[format]).send(problemBody(format, problem));
}
