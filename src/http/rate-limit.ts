/**
 * Rate limit headers (the IETF RateLimit header fields, draft-ietf-httpapi-ratelimit-headers)
 * on every answer while limiting is on, and 429 with Retry-After once a caller's bucket is empty.
 */
import type { FastifyReply } from 'fastify';
import type { RateLimiter } from '../access/rate-limiter.js';
import { HttpError } from './http-error.js';

export function limitRate(reply: FastifyReply, limiter: RateLimiter, caller: string | number): void {
  const decision = limiter.take(caller);
  reply
    .header('ratelimit-limit', String(decision.limit))
    .header('ratelimit-remaining', String(decision.remaining))
    .header('ratelimit-reset', String(decision.resetSeconds));
  if (decision.allowed) return;
  const { perSecond, burst } = limiter.policy;
  throw new HttpError(
    429,
    'Too Many Requests',
    `At most ${burst} requests at once and ${perSecond} a second after that; retry in ${decision.retryAfterSeconds} s.`,
    { 'retry-after': String(decision.retryAfterSeconds) },
  );
}
