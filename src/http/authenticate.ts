/**
 * Who is asking: the one step every API request passes before it is answered. It reads the
 * token header, finds the token's customer in memory (one SHA-256, one map lookup) and, when
 * rate limiting is on, takes the request from the caller's bucket. The database is never touched.
 */
import type { IncomingMessage } from 'node:http';
import { DEFAULT_CUSTOMER } from '../catalogue/model.js';
import type { RateLimiter } from '../access/rate-limiter.js';
import type { IssuedToken } from '../access/token-set.js';
import type { Problem } from './http-error.js';
import type { HeaderFields } from './problem.js';

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
  readonly headers: HeaderFields | undefined;
}

/**
 * Decides whether a request is let in, or the problem (401, 429) that refuses it: a value, not a
 * thrown error, since refusals come in floods and a stack trace each would make them costly.
 */
export type Admit = (request: IncomingMessage) => Admission | Problem;

/** The characters of a bearer token (RFC 6750 §2.1, b64token). */
const TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;
const CHALLENGE = { 'www-authenticate': 'Bearer realm="marquee"' };

/** Every request while no token exists and rates are not limited. */
const OPEN: Admission = { customer: DEFAULT_CUSTOMER, headers: undefined };

function unauthorized(detail: string): Problem {
  return { status: 401, title: 'Unauthorized', detail, headers: CHALLENGE };
}

/** The token a request presents: VeeziAccessToken, as Veezi clients send it, or a bearer token. */
function presentedToken(request: IncomingMessage): string | Problem {
  const veezi = request.headers['veeziaccesstoken'];
  if (veezi !== undefined) {
    // Node joins a repeated header with commas, which no token holds: it is refused as malformed.
    if (typeof veezi !== 'string' || !TOKEN.test(veezi)) return unauthorized('The VeeziAccessToken header must hold one access token.');
    return veezi;
  }
  const authorization = request.headers.authorization;
  if (authorization === undefined) {
    return unauthorized('This API needs an access token: send it as VeeziAccessToken: TOKEN or Authorization: Bearer TOKEN.');
  }
  return BEARER.exec(authorization)?.[1] ?? unauthorized('The Authorization header must be Bearer followed by an access token.');
}

/**
 * Rate limit headers (the IETF RateLimit header fields, draft-ietf-httpapi-ratelimit-headers)
 * on every answer while limiting is on, and 429 with Retry-After once a caller's bucket is empty.
 */
function limitRate(customer: string, limiter: RateLimiter, caller: string | number): Admission | Problem {
  const decision = limiter.take(caller);
  const headers = {
    'ratelimit-limit': String(decision.limit),
    'ratelimit-remaining': String(decision.remaining),
    'ratelimit-reset': String(decision.resetSeconds),
  };
  if (decision.allowed) return { customer, headers };
  const { perSecond, burst } = limiter.policy;
  return {
    status: 429,
    title: 'Too Many Requests',
    detail: `At most ${burst} requests at once and ${perSecond} a second after that; retry in ${decision.retryAfterSeconds} s.`,
    headers: { ...headers, 'retry-after': String(decision.retryAfterSeconds) },
  };
}

/**
 * The customer of the request's token, or the default customer while the service is open (a
 * token presented then is not looked at). Rate limits apply per token, and per client address
 * while the service is open.
 */
export function authenticate(tokens: TokenDirectory, limiter: RateLimiter | undefined): Admit {
  return (request) => {
    if (tokens.open) return limiter === undefined ? OPEN : limitRate(DEFAULT_CUSTOMER, limiter, request.socket.remoteAddress ?? '');
    const token = presentedToken(request);
    if (typeof token !== 'string') return token;
    const issued = tokens.authenticate(token);
    if (issued === undefined) return unauthorized('The access token is not known.');
    if (issued.revoked) return unauthorized('The access token was revoked.');
    return limiter === undefined ? { customer: issued.customer, headers: undefined } : limitRate(issued.customer, limiter, issued.id);
  };
}
