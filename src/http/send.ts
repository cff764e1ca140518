/** Writes a prebuilt representation or a problem, with the headers that caching relies on. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { replaceXmlUnsafeCharacters } from '../catalogue/code-points.js';
import type { Representations } from '../formats/representation.js';
import { negotiateEncoding } from './accept-encoding.js';
import type { HttpError } from './http-error.js';
import { requestedMediaType } from './media-types.js';
import { problemBody, problemContentType } from './problem.js';

/** If-None-Match uses the weak comparison (RFC 9110 §13.1.2): `W/` prefixes are ignored. */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

export function sendRepresentation(request: FastifyRequest, reply: FastifyReply, representations: Representations, cacheControl: string): FastifyReply {
  const media = requestedMediaType(request);
  const representation = representations[media.format];
  const coding = representation.compressible ? negotiateEncoding(request.headers['accept-encoding']) : undefined;
  const encoded = coding === undefined ? undefined : representation.encoded(coding);
  const { body, etag } = encoded ?? representation;
  reply
    .header('vary', representation.compressible ? 'Accept, Accept-Encoding' : 'Accept')
    .header('cache-control', cacheControl)
    .header('etag', etag);
  if (matchesIfNoneMatch(request.headers['if-none-match'], etag)) return reply.code(304).send();
  if (encoded !== undefined) reply.header('content-encoding', coding);
  return reply.header('content-type', media.contentType).send(body);
}

export function sendProblem(request: FastifyRequest, reply: FastifyReply, error: HttpError): FastifyReply {
  const { format } = requestedMediaType(request);
  // A detail may quote what the client sent; XML cannot carry every character it might hold.
  const detail = format === 'xml' ? replaceXmlUnsafeCharacters(error.detail) : error.detail;
  return reply
    .code(error.status)
    .headers(error.headers)
    .header('vary', 'Accept')
    .header('content-type', problemContentType(format))
    .send(problemBody(format, { status: error.status, title: error.title, detail }));
}
