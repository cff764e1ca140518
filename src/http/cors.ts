/**
 * Cross-origin access for the web pages of named origins (CORS, in the Fetch standard), through
 * @fastify/cors. Answers to those origins say so and expose the headers a page needs; a
 * preflight is answered without a token. Tokens travel in headers, never in cookies, so
 * credentials are never allowed.
 */
import type { FastifyCorsOptions } from '@fastify/cors';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** False where a route answers CORS itself: the plugin then leaves it alone. */
    cors?: false;
  }
}

/** How long a browser may reuse a preflight's answer, in seconds (Chromium caps it at two hours). */
export const PREFLIGHT_MAX_AGE = 7200;
/** What a page may send: the token headers, and what revalidation and negotiation need. */
export const ALLOWED_HEADERS = ['Accept', 'Authorization', 'If-None-Match', 'VeeziAccessToken'];
/** What a page may read of an answer beside its body. */
export const EXPOSED_HEADERS = ['ETag', 'Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'WWW-Authenticate'];

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
 * The plugin's options for the named origins. A request from any other origin, or from none,
 * gets no CORS headers at all (only `Vary: Origin`, on every answer, so that caches keep the
 * answers apart), and its OPTIONS is answered like any other method.
 */
export function corsOptions(origins: readonly string[]): FastifyCorsOptions {
  const allowed = new Set(origins);
  return {
    origin: (origin, callback) => callback(null, origin !== undefined && allowed.has(origin) ? origin : false),
    methods: ['GET', 'HEAD'],
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: PREFLIGHT_MAX_AGE,
    credentials: false,
    // An allowed page's OPTIONS is answered as a preflight even without Access-Control-Request-Method.
    strictPreflight: false,
  };
}
