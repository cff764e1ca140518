/**
 * Who is asking: the one step every request to the API passes before it is answered, unknown
 * paths included. It reads the token (a header, or a publishable key in `?key=`), finds its
 * customer in memory (one SHA-256, one map lookup), takes the request from the caller's rate
 * limit, and refuses a publishable key outside the programme or the pages of its origins. The
 * database is never touched.
 */
import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { clientOf } from '../access/client-address.js';
import type { RateLimiter } from '../access/rate-limiter.js';
import type { IssuedToken } from '../access/token-set.js';
import { DEFAULT_CUSTOMER } from '../catalogue/model.js';
import { quote, type Problem } from './http-error.js';
import { sendProblem, vary } from './respond.js';

/** Where the access step finds tokens. */
export interface TokenDirectory {
  /** True while no token was ever issued: the default customer is served without one. */
  readonly open: boolean;
  /** The issued token, revoked or not, or undefined for one never issued; notes the use. */
  authenticate(token: string): IssuedToken | undefined;
}

/** What a route answers from: the Veezi catalogue, which secret tokens read, or the programme, which publishable keys read too. */
export type Reads = 'catalogue' | 'programme';

declare module 'fastify' {
  interface FastifyRequest {
    /** The customer whose catalogue answers the request, once the access step let it in. */
    customer: string;
    /** The request came with a publishable key: its answer may be kept by shared caches. */
    publishable: boolean;
    /** The origins of the publishable key the request came with, whose pages alone it serves; none for any other. */
    keyOrigins: readonly string[];
  }
}

export interface AccessPolicy {
  readonly tokens: TokenDirectory;
  /** Per secret token (per client address while the service is open); none when absent. */
  readonly limiter?: RateLimiter | undefined;
  /** Per client address, for publishable keys, which any visitor of a page holds; none when absent. */
  readonly publicLimiter?: RateLimiter | undefined;
}

/** The characters of a bearer token (RFC 6750 §2.1, b64token). */
const TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;
const CHALLENGE = { 'www-authenticate': 'Bearer realm="marquee"' };
const TOKEN_HEADERS = 'VeeziAccessToken, Authorization';
/** The query parameter that carries a publishable key, where a link or a calendar subscription cannot send a header. */
const KEY_PARAMETER = 'key';
const PROGRAMME_PATHS = '/programme, /programme.ics, /programme.jsonld, /programme/coming-soon and /whats-on';

/**
 * A refusal is a value, not a thrown error: refusals come in floods, and a stack trace each
 * would make them costly.
 */
function unauthorized(detail: string): Problem {
  return { status: 401, title: 'Unauthorized', detail, headers: CHALLENGE };
}

function forbidden(detail: string): Problem {
  return { status: 403, title: 'Forbidden', detail, headers: {} };
}

const NO_TOKEN = unauthorized('This API needs an access token: send it as VeeziAccessToken: TOKEN or Authorization: Bearer TOKEN.');
export const NO_KEY = unauthorized('The programme needs a publishable key (?key=KEY) or an access token (VeeziAccessToken: TOKEN or Authorization: Bearer TOKEN).');
const SECRET_IN_QUERY = unauthorized(
  'A secret token is never accepted in the query string, where logs and browser histories keep it: send it as VeeziAccessToken or Authorization: Bearer, and revoke this one. Web pages and links use a publishable key (marquee token create --public).',
);
const TWO_CREDENTIALS: Problem = {
  status: 400,
  title: 'Bad Request',
  detail: 'The request presents a token in a header and another key in the query string: send one.',
  headers: {},
};
const OUTSIDE_PROGRAMME = forbidden(`A publishable key reads only the programme: ${PROGRAMME_PATHS}.`);

/** A credential as the request presents it, and whether it came in the query string. */
interface Presented {
  readonly token: string;
  readonly inQuery: boolean;
}

/** The values of `?key=`. */
function keyParameter(request: FastifyRequest): unknown {
  return (request.query as Record<string, unknown>)[KEY_PARAMETER];
}

/**
 * The token a request presents: VeeziAccessToken, as Veezi clients send it, a bearer token, or a
 * key in the query string. One in a header and another in the query is refused: the page's links
 * carry the key of its address, and a cache keeps the answer under that address.
 */
function presentedToken(request: FastifyRequest, reads: Reads | undefined): Presented | Problem {
  const inHeader = headerToken(request);
  const key = keyParameter(request);
  if (inHeader !== undefined) return 'token' in inHeader && key !== undefined && key !== inHeader.token ? TWO_CREDENTIALS : inHeader;
  if (key === undefined) return reads === 'programme' ? NO_KEY : NO_TOKEN;
  if (typeof key !== 'string' || !TOKEN.test(key)) return unauthorized('The key parameter must hold one publishable key.');
  return { token: key, inQuery: true };
}

/** The token of VeeziAccessToken or of a bearer Authorization, if the request has either. */
function headerToken(request: FastifyRequest): Presented | Problem | undefined {
  const veezi = request.headers['veeziaccesstoken'];
  if (veezi !== undefined) {
    // Node joins a repeated header with commas, which no token holds: it is refused as malformed.
    if (typeof veezi !== 'string' || !TOKEN.test(veezi)) return unauthorized('The VeeziAccessToken header must hold one access token.');
    return { token: veezi, inQuery: false };
  }
  const authorization = request.headers.authorization;
  if (authorization === undefined) return undefined;
  const token = BEARER.exec(authorization)?.[1];
  return token === undefined ? unauthorized('The Authorization header must be Bearer followed by an access token.') : { token, inQuery: false };
}

interface Admission {
  readonly customer: string;
  /** Whose rate limit the request counts against: a token's id, or a client address. */
  readonly caller: string | number;
  /** The publishable key presented, if one was. */
  readonly key?: IssuedToken;
}

/** The customer of the request's token, or the problem that refuses it. */
function admission(request: FastifyRequest, tokens: TokenDirectory, reads: Reads | undefined): Admission | Problem {
  // While the service is open a token presented is not looked at, and each address has its own rate.
  if (tokens.open) return { customer: DEFAULT_CUSTOMER, caller: request.ip };
  const presented = presentedToken(request, reads);
  if ('status' in presented) return presented;
  const issued = tokens.authenticate(presented.token);
  if (issued === undefined) return unauthorized(presented.inQuery ? 'The key is not known.' : 'The access token is not known.');
  if (issued.revoked) return unauthorized(presented.inQuery ? 'The key was revoked.' : 'The access token was revoked.');
  if (issued.kind === 'secret') return presented.inQuery ? SECRET_IN_QUERY : { customer: issued.customer, caller: issued.id };
  // Any visitor of a page holds its key: a key is limited per visitor, never as one, so that one
  // visitor cannot spend a cinema's allowance.
  return { customer: issued.customer, caller: clientOf(request.ip), key: issued };
}

/** The refusal of a publishable key made for `origins`, presented by a page of `origin`. */
export function otherOrigin(origins: readonly string[], origin: string): Problem {
  return forbidden(`This publishable key serves the pages of ${origins.join(', ')}, not those of ${quote(origin)}.`);
}

/** What a publishable key may not read: anything but the programme, and pages of origins other than its own. */
function keyRefusal(request: FastifyRequest, key: IssuedToken, reads: Reads | undefined): Problem | undefined {
  if (reads !== 'programme') return OUTSIDE_PROGRAMME;
  const origin = request.headers.origin;
  if (origin === undefined || key.origins.length === 0 || key.origins.includes(origin)) return undefined;
  return otherOrigin(key.origins, origin);
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
 * Lets a request in, or says why not: 401, 403 or 429. Every answer says it depends on the token
 * headers, so that a shared cache, where `--cache-control` lets one keep answers, never gives one
 * customer's answer to another (RFC 9111 §4.1); `Authorization` alone would keep answers out of
 * shared caches, but VeeziAccessToken is a header no cache knows. A request to no route (`reads`
 * undefined) is let in by a secret token, to be told that nothing is there.
 */
export function admit(policy: AccessPolicy, request: FastifyRequest, reply: FastifyReply, reads: Reads | undefined): Problem | undefined {
  vary(reply, TOKEN_HEADERS);
  const admitted = admission(request, policy.tokens, reads);
  if ('status' in admitted) return admitted;
  const limiter = admitted.key === undefined ? policy.limiter : policy.publicLimiter;
  const overLimit = limiter === undefined ? undefined : limitRate(reply, limiter, admitted.caller);
  if (overLimit !== undefined) return overLimit;
  const keyRefused = admitted.key === undefined ? undefined : keyRefusal(request, admitted.key, reads);
  if (keyRefused !== undefined) return keyRefused;
  request.customer = admitted.customer;
  request.publishable = admitted.key !== undefined;
  request.keyOrigins = admitted.key?.origins ?? [];
  return undefined;
}

/** The access step as the hook of the routes that answer from `reads`. */
export function accessHook(policy: AccessPolicy, reads: Reads): onRequestHookHandler {
  return (request, reply, done) => {
    const refusal = admit(policy, request, reply, reads);
    if (refusal !== undefined) return void sendProblem(request, reply, refusal);
    done();
  };
}
