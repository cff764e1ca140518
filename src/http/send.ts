/** Writes a prebuilt representation or a problem, with the headers that caching relies on. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { replaceXmlUnsafeCharacters } from '../catalogue/code-points.js';
import type { Representations } from '../formats/representation.js';
import type { HttpError } from './http-error.js';
import { requestedMediaType } from './media-types.js';
import { problemBody, problemContentType } from './problem.js';

/** If-None-Match uses the weak comparison (RFC 9110 §13.1.2): `W/` prefixes are ignored. */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

/** Adds a header name to Vary, keeping what an earlier step put there (CORS varies on Origin). */
function vary(reply: FastifyReply, name: string): FastifyReply {
  const current = reply.getHeader('vary');
  return reply.header('vary', current === undefined ? name : `${String(current)}, ${name}`);
}

export function sendRepresentation(request: FastifyRequest, reply: FastifyReply, representations: Representations, cacheControl: string): FastifyReply {
  const media = requestedMediaType(request);
  const chosen = representations[media.format];
  vary(reply, 'Accept').header('cache-control', cacheControl).header('etag', chosen.etag);
  if (matchesIfNoneMatch(request.headers['if-none-match'], chosen.etag)) return reply.code(304).send();
  return reply.header('content-type', media.contentType).send(chosen.body);
}

export function sendProblem(request: FastifyRequest, reply: FastifyReply, error: HttpError): FastifyReply {
  const { format } = requestedMediaType(request);
  // A detail may quote what the client sent; XML cannot carry every character it might hold.
  const detail = format === 'xml' ? replaceXmlUnsafeCharacters(error.detail) : error.detail;
  return vary(reply.code(error.status).headers(error.headers), 'Accept')
    .header('content-type', problemContentType(format))
    .send(problemBody(format, { status: error.status, title: error.title, detail }));
}
