/**
 * Who is asking: the one step every API request passes before it is answered. It reads the
 * token header, finds the token's customer in memory (one SHA-256, one map lookup) and, when
 * rate limiting is on, takes the request from the caller's bucket. The database is never touched.
 */
import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import { DEFAULT_CUSTOMER } from '../catalogue/model.js';
import type { RateLimiter } from '../access/rate-limiter.js';
import type { IssuedToken } from '../access/token-set.js';
import { HttpError } from './http-error.js';

/** Where the authentication step finds tokens. */
export interface TokenDirectory {
  /** True while no token was ever issued: the default customer is served without one. */
  readonly open: boolean;
  /** The issued token, revoked or not, or undefined for one never issued; notes the use. */
  authenticate(token: string): IssuedToken | undefined;
}

/** A request let in: whose catalogue answers it, and the headers its answer carries. */
export interface Admission {
  readonly customer: string;
  /** Rate limit headers; undefined while rate limiting is off. */
  readonly headers: OutgoingHttpHeaders | undefined;
}

/** Decides whether a request is let in; throws the HttpError (401, 429) that refuses it. */
export type Admit = (request: IncomingMessage) => Admission;

/** The characters of a bearer token (RFC 6750 §2.1, b64token). */
const TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;
const CHALLENGE = { 'www-authenticate': 'Bearer realm="marquee"' };

function unauthorized(detail: string): HttpError {
  return new HttpError(401, 'Unauthorized', detail, CHALLENGE);
}

/** The token a request presents: VeeziAccessToken, as Veezi clients send it, or a bearer token. */
function presentedToken(request: IncomingMessage): string {
  const veezi = request.headers['veeziaccesstoken'];
  if (veezi !== undefined) {
    // Node joins a repeated header with commas, which no token holds: it is refused as malformed.
    if (typeof veezi !== 'string' || !TOKEN.test(veezi)) throw unauthorized('The VeeziAccessToken header must hold one access token.');
    return veezi;
  }
  const authorization = request.headers.authorization;
  if (authorization === undefined) {
    throw unauthorized('This API needs an access token: send it as VeeziAccessToken: TOKEN or Authorization: Bearer TOKEN.');
  }
  const token = BEARER.exec(authorization)?.[1];
  if (token === undefined) throw unauthorized('The Authorization header must be Bearer followed by an access token.');
  return token;
}

/**
 * Rate limit headers (the IETF RateLimit header fields, draft-ietf-httpapi-ratelimit-headers)
 * on every answer while limiting is on, and 429 with Retry-After once a caller's bucket is empty.
 */
function limitRate(limiter: RateLimiter, caller: string | number): OutgoingHttpHeaders {
  const decision = limiter.take(caller);
  const headers = {
    'ratelimit-limit': String(decision.limit),
    'ratelimit-remaining': String(decision.remaining),
    'ratelimit-reset': String(decision.resetSeconds),
  };
  if (decision.allowed) return headers;
  const { perSecond, burst } = limiter.policy;
  throw new HttpError(
    429,
    'Too Many Requests',
    `At most ${burst} requests at once and ${perSecond} a second after that; retry in ${decision.retryAfterSeconds} s.`,
    { ...headers, 'retry-after': String(decision.retryAfterSeconds) },
  );
}

/**
 * The customer of the request's token, or the default customer while the service is open (a
 * token presented then is not looked at). Rate limits apply per token, and per client address
 * while the service is open.
 */
export function authenticate(tokens: TokenDirectory, limiter: RateLimiter | undefined): Admit {
  return (request) => {
    if (tokens.open) return { customer: DEFAULT_CUSTOMER, headers: limiter && limitRate(limiter, request.socket.remoteAddress ?? '') };
    const issued = tokens.authenticate(presentedToken(request));
    if (issued === undefined) throw unauthorized('The access token is not known.');
    if (issued.revoked) throw unauthorized('The access token was revoked.');
    return { customer: issued.customer, headers: limiter && limitRate(limiter, issued.id) };
  };
}
