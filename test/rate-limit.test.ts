import assert from 'node:assert/strict';
import { test } from 'node:test';
import { issueToken } from '../src/access/manage-tokens.js';
import { startTestApp, type TestApp } from './helpers.js';

type Json = Record<string, unknown>;

async function issue(t: TestApp): Promise<string> {
  const { token } = await issueToken(t.db, { customer: 'default', label: null });
  await t.tokens.refresh();
  return token;
}

/** The app's clock, which the tests move: a bucket refills when the test says, however busy the machine. */
function testClock(): { readonly now: () => number; advance(ms: number): void } {
  let time = Date.UTC(2026, 10, 27, 20, 0, 0);
  return { now: () => time, advance: (ms) => (time += ms) };
}

test('rate limiting is off by default: no RateLimit headers, no 429', async () => {
  const t = await startTestApp();
  const token = await issue(t);
  for (let n = 0; n < 50; n++) {
    const response = await t.app.inject({ url: '/v4/film/HO00000101', headers: { veeziaccesstoken: token } });
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['ratelimit-limit'], undefined);
  }
});

test('a token over its limit gets 429 with Retry-After and RateLimit headers, and recovers', async () => {
  const clock = testClock();
  const t = await startTestApp(undefined, { rateLimit: { perSecond: 2, burst: 3 }, now: clock.now });
  const [first, second] = [await issue(t), await issue(t)];
  const get = (token: string, url = '/v4/film') => t.app.inject({ url, headers: { authorization: `Bearer ${token}` } });

  for (const remaining of ['2', '1', '0']) {
    const response = await get(first);
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['ratelimit-limit'], '3');
    assert.equal(response.headers['ratelimit-remaining'], remaining);
    assert.equal(response.headers['ratelimit-reset'], remaining === '0' ? '2' : '1', 'seconds until the bucket is full');
  }
  const refused = await get(first, '/v4/film?format=xml');
  assert.equal(refused.statusCode, 429);
  assert.equal(refused.headers['retry-after'], '1');
  assert.equal(refused.headers['ratelimit-limit'], '3');
  assert.equal(refused.headers['ratelimit-remaining'], '0');
  assert.equal(refused.headers['ratelimit-reset'], '2');
  assert.equal(refused.headers['content-type'], 'application/problem+xml; charset=utf-8');
  assert.match(refused.body, /<title>Too Many Requests<\/title><status>429<\/status><detail>At most 3 requests at once and 2 a second after that; retry in 1 s\.<\/detail>/);
  assert.doesNotMatch(refused.body, /Nosferatu/);

  assert.equal((await get(second)).statusCode, 200, 'another token has its own bucket');

  // At 2 a second, a request comes back every half second; Retry-After rounds that up to 1 s.
  clock.advance(499);
  assert.equal((await get(first)).statusCode, 429, 'not before a request is back');
  clock.advance(1);
  assert.equal((await get(first)).statusCode, 200, 'the token is served again');
  const statuses = [(await get(first)).statusCode];
  clock.advance(500);
  statuses.push((await get(first)).statusCode, (await get(first)).statusCode);
  assert.deepEqual(statuses, [429, 200, 429], 'paced at the rate after recovering');
});

test('while no token exists, each client address has its own bucket', async () => {
  const t = await startTestApp(undefined, { rateLimit: { perSecond: 0.5, burst: 2 }, now: testClock().now });
  const from = (remoteAddress: string) => t.app.inject({ url: '/v1/filmpackage', remoteAddress });
  assert.equal((await from('192.0.2.1')).statusCode, 200);
  assert.equal((await from('192.0.2.1')).statusCode, 200);
  const refused = await from('192.0.2.1');
  assert.equal(refused.statusCode, 429);
  assert.equal(refused.headers['retry-after'], '2');
  assert.equal(refused.json<Json>()['status'], 429);
  assert.equal((await from('192.0.2.2')).statusCode, 200);
});

test('requests refused for their token do not count against anyone', async () => {
  const t = await startTestApp(undefined, { rateLimit: { perSecond: 1, burst: 1 } });
  const token = await issue(t);
  for (let n = 0; n < 5; n++) assert.equal((await t.app.inject({ url: '/v4/film', headers: { veeziaccesstoken: 'mq_unknown' } })).statusCode, 401);
  assert.equal((await t.app.inject({ url: '/v4/film', headers: { veeziaccesstoken: token } })).statusCode, 200);
});
