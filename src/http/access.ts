/**
 * Who is asking: the one step every API request passes before its route answers. It reads the
 * token header, finds the token's customer in memory (one SHA-256, one map lookup) and, when
 * rate limiting is on, takes the request from the caller's bucket. The database is never touched.
 */
import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { DEFAULT_CUSTOMER } from '../catalogue/model.js';
import type { RateLimiter } from '../access/rate-limiter.js';
import type { IssuedToken } from '../access/token-set.js';
import type { Problem } from './http-error.js';
import { sendProblem, vary } from './respond.js';

/** Where the access step finds tokens. */
export interface TokenDirectory {
  /** True while no token was ever issued: the default customer is served without one. */
  readonly open: boolean;
  /** The issued token, revoked or not, or undefined for one never issued; notes the use. */
  authenticate(token: string): IssuedToken | undefined;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The customer whose catalogue answers the request, once the access step let it in. */
    customer: string;
  }
}

/** The characters of a bearer token (RFC 6750 §2.1, b64token). */
const TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;
const CHALLENGE = { 'www-authenticate': 'Bearer realm="marquee"' };
const TOKEN_HEADERS = 'VeeziAccessToken, Authorization';

/**
 * A refusal is a value, not a thrown error: refusals come in floods, and a stack trace each
 * would make them costly.
 */
function unauthorized(detail: string): Problem {
  return { status: 401, title: 'Unauthorized', detail, headers: CHALLENGE };
}

/** The token a request presents: VeeziAccessToken, as Veezi clients send it, or a bearer token. */
function presentedToken(request: FastifyRequest): string | Problem {
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

/** The customer of the request's token, or the problem that refuses it. */
function customerOf(request: FastifyRequest, tokens: TokenDirectory): { customer: string; caller: string | number } | Problem {
  // While the service is open a token presented is not looked at, and each address has its own rate.
  if (tokens.open) return { customer: DEFAULT_CUSTOMER, caller: request.ip };
  const token = presentedToken(request);
  if (typeof token !== 'string') return token;
  const issued = tokens.authenticate(token);
  if (issued === undefined) return unauthorized('The access token is not known.');
  if (issued.revoked) return unauthorized('The access token was revoked.');
  return { customer: issued.customer, caller: issued.id };
}

/**
 * Rate limit headers (the IETF RateLimit header fields, draft-ietf-httpapi-ratelimit-headers)
 * on every answer while limiting is on; the problem (429 with Retry-After) once the caller's
 * bucket is empty.
 */
function limitRate(reply: FastifyReply, limiter: RateLimiter, caller: string | number): Problem | undefined {
  const decision = limiter.take(caller);
  reply.header('ratelimit-limit', String(decision.limit));
  reply.header('ratelimit-remaining', String(decision.remaining));
  reply.header('ratelimit-reset', String(decision.resetSeconds));
  if (decision.allowed) return undefined;
  const { perSecond, burst } = limiter.policy;
  return {
    status: 429,
    title: 'Too Many Requests',
    detail: `At most ${burst} requests at once and ${perSecond} a second after that; retry in ${decision.retryAfterSeconds} s.`,
    headers: { 'retry-after': String(decision.retryAfterSeconds) },
  };
}

/**
 * The hook that lets API requests in, or answers 401 or 429. Every answer says it depends on the
 * token headers, so that a shared cache, where `--cache-control` lets one keep answers, never
 * gives one customer's answer to another (RFC 9111 §4.1); `Authorization` alone would keep
 * answers out of shared caches, but VeeziAccessToken is a header no cache knows.
 */
export function accessHook(tokens: TokenDirectory, limiter: RateLimiter | undefined): onRequestHookHandler {
  return (request, reply, done) => {
    vary(reply, TOKEN_HEADERS);
    const admission = customerOf(request, tokens);
    if ('status' in admission) return void sendProblem(request, reply, admission);
    const overLimit = limiter === undefined ? undefined : limitRate(reply, limiter, admission.caller);
    if (overLimit !== undefined) return void sendProblem(request, reply, overLimit);
    request.customer = admission.customer;
    done();
  };
}
