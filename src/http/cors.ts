/**
 * Cross-origin access for the web pages of named origins (CORS, in the Fetch standard). Answers
 * to those origins say so and expose the headers a page needs; a preflight on the API is
 * answered instead of refused. Tokens travel in headers, never in cookies, so credentials are
 * never allowed.
 */
import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';

const ALLOW_METHODS = 'GET, HEAD';
const ALLOW_HEADERS = 'Accept, Authorization, If-None-Match, VeeziAccessToken';
const EXPOSE_HEADERS = 'ETag, Retry-After, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, WWW-Authenticate';
/** How long a browser may reuse a preflight's answer, in seconds (Chromium caps it at two hours). */
const PREFLIGHT_MAX_AGE = '7200';

/** An origin as browsers send it: `https://cinema.example`, `http://localhost:3000`. */
export function parseOrigin(text: string): string {
  const rule = 'must be an origin such as https://cinema.example (scheme, host and port only)';
  if (!/^https?:\/\/[^/?#@\s]+\/?$/i.test(text)) throw new Error(rule);
  try {
    // The serialized origin lower-cases the host and drops a default port, as browsers do.
    return new URL(text).origin;
  } catch {
    throw new Error(rule);
  }
}

/**
 * Marks every answer as depending on Origin and, for an allowed origin, lets its page read it.
 * Registered only when at least one origin is named.
 */
export function cors(origins: readonly string[]): onRequestHookHandler {
  const allowed = new Set(origins);
  return (request, reply, done) => {
    // Vary on every answer, so that no cache hands an answer without CORS headers to a page.
    reply.header('vary', 'Origin');
    const origin = request.headers.origin;
    if (origin !== undefined && allowed.has(origin)) {
      reply.header('access-control-allow-origin', origin).header('access-control-expose-headers', EXPOSE_HEADERS);
    }
    done();
  };
}

/** A browser asking whether a cross-origin request may be sent. */
export function isPreflight(request: FastifyRequest): boolean {
  return request.method === 'OPTIONS' && request.headers.origin !== undefined && request.headers['access-control-request-method'] !== undefined;
}

/**
 * Answers a preflight on an API path. The `cors` hook has already allowed the origin or not; a
 * page of any other origin gets no Access-Control-Allow-* headers, so its browser sends nothing.
 */
export function sendPreflight(reply: FastifyReply): FastifyReply {
  if (reply.hasHeader('access-control-allow-origin')) {
    reply
      .header('access-control-allow-methods', ALLOW_METHODS)
      .header('access-control-allow-headers', ALLOW_HEADERS)
      .header('access-control-max-age', PREFLIGHT_MAX_AGE);
  }
  return reply.code(204).send();
}
