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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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
  const t = await startTestApp(undefined, { rateLimit: { perSecond: 2, burst: 3 } });
  const [first, second] = [await issue(t), await issue(t)];
  const get = (token: string, url = '/v4/film') => t.app.inject({ url, headers: { authorization: `Bearer ${token}` } });

  for (const remaining of ['2', '1', '0']) {
    const response = await get(first);
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['ratelimit-limit'], '3');
    assert.equal(response.headers['ratelimit-remaining'], remaining);
    assert.match(String(response.headers['ratelimit-reset']), /^[12]$/);
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

  await sleep(Number(refused.headers['retry-after']) * 1000);
  const recovered = await get(first);
  assert.equal(recovered.statusCode, 200, 'after Retry-After the token is served again');
  const statuses = [];
  for (let n = 0; n < 5; n++) statuses.push((await get(first)).statusCode);
  assert.ok(statuses.includes(429), `paced at the rate after recovering, got ${statuses.join()}`);
});

test('while no token exists, each client address has its own bucket', async () => {
  const t = await startTestApp(undefined, { rateLimit: { perSecond: 0.5, burst: 2 } });
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
