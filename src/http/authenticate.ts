/**
 * Who is asking: the one step every API request passes before its route. It reads the token
 * header, finds the token's customer in memory (one SHA-256, one map lookup) and, when rate
 * limiting is on, takes the request from the caller's bucket. The database is never touched.
 */
import type { FastifyRequest, onRequestHookHandler } from 'fastify';
import { DEFAULT_CUSTOMER } from '../catalogue/model.js';
import type { RateLimiter } from '../access/rate-limiter.js';
import type { IssuedToken } from '../access/token-set.js';
import { HttpError } from './http-error.js';
import { limitRate } from './rate-limit.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The customer whose catalogue answers the request, set by `authenticate`. */
    customer: string;
  }
}

/** Where the authentication step finds tokens. */
export interface TokenDirectory {
  /** True while no token was ever issued: the default customer is served without one. */
  readonly open: boolean;
  /** The issued token, revoked or not, or undefined for one never issued; notes the use. */
  authenticate(token: string): IssuedToken | undefined;
}

/** The characters of a bearer token (RFC 6750 §2.1, b64token). */
const TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;
const CHALLENGE = { 'www-authenticate': 'Bearer realm="marquee"' };

function unauthorized(detail: string): HttpError {
  return new HttpError(401, 'Unauthorized', detail, CHALLENGE);
}

/** The token a request presents: VeeziAccessToken, as Veezi clients send it, or a bearer token. */
function presentedToken(request: FastifyRequest): string {
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
 * The customer of the request's token, or the default customer while the service is open (a
 * token presented then is not looked at). Rate limits apply per token, and per client address
 * while the service is open.
 */
export function authenticate(tokens: TokenDirectory, limiter: RateLimiter | undefined): onRequestHookHandler {
  const admit = (request: FastifyRequest): string | number => {
    if (tokens.open) {
      request.customer = DEFAULT_CUSTOMER;
      return request.ip;
    }
    const issued = tokens.authenticate(presentedToken(request));
    if (issued === undefined) throw unauthorized('The access token is not known.');
    if (issued.revoked) throw unauthorized('The access token was revoked.');
    request.customer = issued.customer;
    return issued.id;
  };
  return (request, reply, done) => {
    try {
      const caller = admit(request);
      if (limiter !== undefined) limitRate(reply, limiter, caller);
    } catch (error) {
      return done(error as Error);
    }
    done();
  };
}
