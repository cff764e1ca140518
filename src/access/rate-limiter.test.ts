import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RateLimiter } from './rate-limiter.js';

function clock(): { now: () => number; advance: (ms: number) => void } {
  let time = 1_000_000;
  return { now: () => time, advance: (ms) => (time += ms) };
}

test('a caller may make a burst at once, then is refused until its bucket refills', () => {
  const { now, advance } = clock();
  const limiter = new RateLimiter({ perSecond: 2, burst: 3 }, now);
  assert.deepEqual([1, 2, 3].map(() => limiter.take('a').remaining), [2, 1, 0]);
  const refused = limiter.take('a');
  assert.equal(refused.allowed, false);
  assert.equal(refused.retryAfterSeconds, 1, 'half a second to the next request, rounded up');
  assert.equal(refused.resetSeconds, 2, 'three requests at two a second');
  advance(499);
  assert.equal(limiter.take('a').allowed, false);
  advance(1);
  const allowed = limiter.take('a');
  assert.equal(allowed.allowed, true);
  assert.equal(allowed.retryAfterSeconds, 0);
  assert.equal(allowed.limit, 3);
});

test('callers have their own buckets', () => {
  const { now } = clock();
  const limiter = new RateLimiter({ perSecond: 1, burst: 1 }, now);
  assert.equal(limiter.take(1).allowed, true);
  assert.equal(limiter.take(1).allowed, false);
  assert.equal(limiter.take(2).allowed, true);
  assert.equal(limiter.take('1').allowed, true, 'a client address never shares a token id\'s bucket');
});

test('a bucket never holds more than the burst, however long the caller was idle', () => {
  const { now, advance } = clock();
  const limiter = new RateLimiter({ perSecond: 10, burst: 2 }, now);
  limiter.take('a');
  advance(3_600_000);
  assert.equal(limiter.take('a').remaining, 1);
  assert.equal(limiter.take('a').remaining, 0);
  assert.equal(limiter.take('a').allowed, false);
});

test('slow rates wait whole seconds', () => {
  const { now } = clock();
  const limiter = new RateLimiter({ perSecond: 0.1, burst: 1 }, now);
  limiter.take('a');
  const refused = limiter.take('a');
  assert.equal(refused.retryAfterSeconds, 10);
  assert.equal(refused.resetSeconds, 10);
});

test('idle callers whose buckets are full again are forgotten', () => {
  const { now, advance } = clock();
  const limiter = new RateLimiter({ perSecond: 1, burst: 5 }, now);
  for (let caller = 0; caller < 100; caller++) limiter.take(caller);
  assert.equal(limiter.tracked, 100);
  advance(61_000);
  limiter.take('late');
  assert.equal(limiter.tracked, 1);
});
