/** Writes a prebuilt representation or a problem, with the headers that caching relies on. */
import type { Duplex } from 'node:stream';
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

export function sendRepresentation(request: FastifyRequest, reply: FastifyReply, representations: Representations, cacheControl: string): FastifyReply {
  const media = requestedMediaType(request);
  const chosen = representations[media.format];
  reply.header('vary', 'Accept').header('cache-control', cacheControl).header('etag', chosen.etag);
  if (matchesIfNoneMatch(request.headers['if-none-match'], chosen.etag)) return reply.code(304).send();
  return reply.header('content-type', media.contentType).send(chosen.body);
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

/**
 * Answers a connection whose request could not be read (too slow, too large, malformed), then
 * closes it. There is no request to negotiate with, so the problem is JSON.
 */
export function sendConnectionProblem(socket: Duplex, error: HttpError): void {
  if (socket.writable) {
    const body = problemBody('json', { status: error.status, title: error.title, detail: error.detail });
    socket.write(
      `HTTP/1.1 ${error.status} ${error.title}\r\nContent-Type: ${problemContentType('json')}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
