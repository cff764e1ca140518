/**
 * Cross-origin access for the web pages of named origins (CORS, in the Fetch standard). Answers
 * to those origins say so and expose the headers a page needs; a preflight on the API is
 * answered instead of refused. Tokens travel in headers, never in cookies, so credentials are
 * never allowed.
 */
import type { IncomingMessage } from 'node:http';
import type { HeaderFields } from './problem.js';

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

export interface CorsPolicy {
  /** Headers for an answer to `request`; `Vary: Origin` is added by the caller to its own Vary. */
  headers(request: IncomingMessage): HeaderFields;
  /** The headers of a preflight's 204 answer, when `request` is a preflight; undefined otherwise. */
  preflight(request: IncomingMessage): HeaderFields | undefined;
}

/** The CORS policy for the named origins; undefined (CORS off) when there is none. */
export function corsPolicy(origins: readonly string[]): CorsPolicy | undefined {
  if (origins.length === 0) return undefined;
  const allowed = new Set(origins);
  const headers = (request: IncomingMessage): HeaderFields => {
    const origin = request.headers.origin;
    return origin !== undefined && allowed.has(origin) ? { 'access-control-allow-origin': origin, 'access-control-expose-headers': EXPOSE_HEADERS } : {};
  };
  return {
    headers,
    preflight(request) {
      const isPreflight = request.method === 'OPTIONS' && request.headers.origin !== undefined && request.headers['access-control-request-method'] !== undefined;
      if (!isPreflight) return undefined;
      const answer = headers(request);
      // A page of any other origin gets no Access-Control-Allow-* headers, so its browser sends nothing.
      if (answer['access-control-allow-origin'] === undefined) return answer;
      return { ...answer, 'access-control-allow-methods': ALLOW_METHODS, 'access-control-allow-headers': ALLOW_HEADERS, 'access-control-max-age': PREFLIGHT_MAX_AGE };
    },
  };
}
