/**
 * Publishable keys (CONTRACT §12) through HTTP: a key reads the programme and nothing else, from
 * the query string or a header, from the pages of its origins, within a rate limit of each client
 * address; a secret token is never taken from the query string. Every request meets the access
 * step, paths that name nothing included.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { issueToken, revokeToken, type TokenTerms } from '../src/access/manage-tokens.js';
import { DEMO_FILES, startTestApp, varyOf, type TestApp, type TestAppOptions } from './helpers.js';

type Json = Record<string, unknown>;

const PROGRAMME = ['/programme', '/programme.ics', '/programme.jsonld'];
const CATALOGUE = ['/v4/film', '/v4/film/HO00000101', '/v1/film', '/v1/filmpackage/1', '/v1/screen', '/v1/attribute', '/v1/site', '/v1/session', '/v1/session/1001', '/v1/websession'];
const FORTNIGHT = 'from=2025-01-06&days=14&sessions=all';

async function issue(t: TestApp, terms: Partial<TokenTerms> = {}, customer = 'default'): Promise<string> {
  const { token } = await issueToken(t.db, { customer, label: null, ...terms });
  await t.tokens.refresh();
  return token;
}

const get = (t: TestApp, url: string, headers: Record<string, string> = {}, remoteAddress?: string) =>
  t.app.inject({ method: 'GET', url, headers, ...(remoteAddress !== undefined && { remoteAddress }) });

async function closedDemo(options: TestAppOptions = {}): Promise<{ t: TestApp; secret: string; key: string }> {
  const t = await startTestApp(DEMO_FILES, options);
  const secret = await issue(t);
  const key = await issue(t, { kind: 'publishable' });
  return { t, secret, key };
}

describe('a publishable key', () => {
  test('in the query string with another credential in a header is refused: a page and its cache carry the key of its address', async () => {
    const { t, secret, key } = await closedDemo();
    const otherKey = await issue(t, { kind: 'publishable' }, 'other-cinema');
    for (const path of ['/whats-on', '/programme']) {
      for (const headers of [{ authorization: `Bearer ${otherKey}` }, { veeziaccesstoken: secret }]) {
        const refused = await get(t, `${path}?key=${key}&format=json`, headers);
        assert.equal(refused.statusCode, 400, path);
        assert.match(String(refused.json<Json>()['detail']), /a token in a header and another key in the query string/);
      }
      assert.equal((await get(t, `${path}?key=${key}`, { authorization: `Bearer ${key}` })).statusCode, 200, `${path}: the same key twice`);
    }
  });

  test('reads the programme in each format, in ?key= or a token header, as a secret token reads it, and lets shared caches keep it', async () => {
    const { t, secret, key } = await closedDemo();
    assert.match(key, /^mq_pub_/);
    for (const path of PROGRAMME) {
      const bySecret = await get(t, `${path}?${FORTNIGHT}`, { veeziaccesstoken: secret });
      assert.equal(bySecret.statusCode, 200, path);
      assert.equal(bySecret.headers['cache-control'], 'no-cache');
      for (const [url, headers] of [
        [`${path}?${FORTNIGHT}&key=${key}`, {}],
        [`${path}?${FORTNIGHT}`, { veeziaccesstoken: key }],
        [`${path}?${FORTNIGHT}`, { authorization: `Bearer ${key}` }],
      ] as const) {
        const response = await get(t, url, headers);
        assert.equal(response.statusCode, 200, url);
        assert.equal(response.body, bySecret.body, `${url}: the same answer as a secret token's`);
        assert.equal(response.headers['etag'], bySecret.headers['etag']);
        assert.equal(response.headers['cache-control'], 'public, max-age=60');
        assert.equal(varyOf(response), 'Accept-Encoding, Authorization, Origin, VeeziAccessToken', 'varies on what chooses the customer');
      }
    }
    assert.equal((await get(t, `/programme?key=${key}`)).statusCode, 200, 'the week from today, empty');
  });

  test('reads nothing else: every other path answers 403, paths that name nothing and malformed ones too', async () => {
    const { t, key } = await closedDemo();
    for (const url of [...CATALOGUE, '/nowhere', '/v4/film/NOPE%zz', '/v1/filmpackage/%', `/v4/film/${'x'.repeat(70_000)}`, '/']) {
      for (const response of [await get(t, `${url}${url.includes('?') ? '&' : '?'}key=${key}`), await get(t, url, { veeziaccesstoken: key })]) {
        assert.equal(response.statusCode, 403, url.slice(0, 40));
        assert.deepEqual(response.json(), {
          type: 'about:blank',
          title: 'Forbidden',
          status: 403,
          detail: 'A publishable key reads only the programme: /programme, /programme.ics, /programme.jsonld, /programme/coming-soon and /whats-on.',
        });
      }
    }
    const post = await t.app.inject({ method: 'POST', url: `/v4/film?key=${key}` });
    assert.equal(post.statusCode, 403);
    assert.equal((await t.app.inject({ method: 'POST', url: `/programme?key=${key}` })).statusCode, 405);
  });

  test('is refused by the pages of other origins when it names its own; a request from no page is served', async () => {
    const { t } = await closedDemo();
    const locked = await issue(t, { kind: 'publishable', origins: ['https://cinema.example', 'http://localhost:3000'] });
    const anywhere = await issue(t, { kind: 'publishable' });
    for (const origin of ['https://cinema.example', 'http://localhost:3000']) {
      const response = await get(t, `/programme?key=${locked}`, { origin });
      assert.equal(response.statusCode, 200, origin);
      assert.equal(response.headers['access-control-allow-origin'], '*');
      assert.match(String(response.headers['access-control-expose-headers']), /ETag/);
    }
    assert.equal((await get(t, `/programme.ics?key=${locked}`)).statusCode, 200, 'a calendar application sends no Origin');
    for (const origin of ['https://elsewhere.example', 'https://cinema.example.evil', 'null']) {
      const refused = await get(t, `/programme?key=${locked}`, { origin });
      assert.equal(refused.statusCode, 403, origin);
      assert.equal(refused.json<Json>()['detail'], `This publishable key serves the pages of https://cinema.example, http://localhost:3000, not those of '${origin}'.`);
      assert.equal(refused.headers['access-control-allow-origin'], '*', 'the page can read why');
      assert.equal((await get(t, `/programme?key=${anywhere}`, { origin })).statusCode, 200, `a key without origins serves ${origin}`);
    }
  });

  test('is unknown once revoked, on the next reload of the tokens', async () => {
    const { t } = await closedDemo();
    const { token: key, info } = await issueToken(t.db, { customer: 'default', label: null, kind: 'publishable' });
    await t.tokens.refresh();
    assert.equal((await get(t, `/programme?key=${key}`)).statusCode, 200);
    await revokeToken(t.db, info.id);
    await t.tokens.refresh();
    const revoked = await get(t, `/programme?key=${key}`);
    assert.equal(revoked.statusCode, 401);
    assert.equal(revoked.json<Json>()['detail'], 'The key was revoked.');
    assert.equal((await get(t, '/programme?key=mq_pub_unknown')).json<Json>()['detail'], 'The key is not known.');
  });

  test('sees its own customer\'s programme', async () => {
    const { t } = await closedDemo();
    const other = await issue(t, { kind: 'publishable' }, 'another-cinema');
    const response = await get(t, `/programme?key=${other}`);
    assert.equal(response.statusCode, 404, 'a customer without a site has no programme');
    assert.equal(response.json<Json>()['detail'], 'No site has been imported.');
  });
});

describe('a secret token', () => {
  test('is never accepted in the query string, on any path', async () => {
    const { t, secret } = await closedDemo();
    for (const url of [...PROGRAMME, ...CATALOGUE, '/nowhere']) {
      const response = await get(t, `${url}?key=${secret}`);
      assert.equal(response.statusCode, 401, url);
      assert.equal(response.headers['www-authenticate'], 'Bearer realm="marquee"');
      assert.match(response.json<Json>()['detail'] as string, /^A secret token is never accepted in the query string/);
    }
    assert.equal((await get(t, '/v4/film', { veeziaccesstoken: secret })).statusCode, 200);
  });
});

describe('the access step', () => {
  test('asks for a key or token on the programme once any token exists, and says how to send one', async () => {
    const { t } = await closedDemo();
    const response = await get(t, '/programme');
    assert.equal(response.statusCode, 401);
    assert.equal(response.json<Json>()['detail'], 'The programme needs a publishable key (?key=KEY) or an access token (VeeziAccessToken: TOKEN or Authorization: Bearer TOKEN).');
    for (const query of ['key=', 'key=a%20b', 'key=one&key=two']) {
      assert.equal((await get(t, `/programme?${query}`)).json<Json>()['detail'], 'The key parameter must hold one publishable key.', query);
    }
  });

  test('while no token was ever issued, the programme is open for the default customer, any key presented unread', async () => {
    const t = await startTestApp(DEMO_FILES);
    assert.equal((await get(t, `/programme?${FORTNIGHT}`)).statusCode, 200);
    assert.equal((await get(t, `/programme?${FORTNIGHT}&key=mq_pub_whatever`)).statusCode, 200);
  });

  test('limits publishable keys per client address, never per key, whatever the path; secret tokens keep their own limit', async () => {
    const { t, secret, key } = await closedDemo({ publicRateLimit: { perSecond: 0.001, burst: 10 } });
    const another = await issue(t, { kind: 'publishable' });
    // A malformed path meets the limit as any other.
    const statuses: number[] = [];
    for (let request = 0; request < 30; request++) statuses.push((await get(t, `/v4/film/NOPE%zz?key=${key}`, {}, '203.0.113.7')).statusCode);
    assert.deepEqual(statuses, [...Array<number>(10).fill(403), ...Array<number>(20).fill(429)]);
    const limited = await get(t, `/programme?key=${another}`, {}, '203.0.113.7');
    assert.equal(limited.statusCode, 429, 'another key from the same address shares its allowance');
    assert.match(String(limited.headers['retry-after']), /^\d+$/);
    assert.equal(limited.headers['ratelimit-limit'], '10');
    assert.equal((await get(t, `/programme?key=${key}`, {}, '203.0.113.8')).statusCode, 200, 'another address has its own');
    assert.equal((await get(t, '/programme', { veeziaccesstoken: secret }, '203.0.113.7')).statusCode, 200, 'a secret token is not limited per address');
    // Addresses of one IPv6 network of a host count as one.
    for (let request = 0; request < 10; request++) await get(t, `/programme?key=${key}`, {}, `2001:db8:1:2::${request + 1}`);
    assert.equal((await get(t, `/programme?key=${key}`, {}, '2001:db8:1:2:ffff::1')).statusCode, 429);
  });

  test('behind a trusted proxy that writes the client\'s port in X-Forwarded-For, a new port is not a new client', async () => {
    const { t, key } = await closedDemo({ publicRateLimit: { perSecond: 0.001, burst: 3 }, trustedProxies: ['127.0.0.1'] });
    const statuses: number[] = [];
    for (let port = 1; port <= 5; port++) statuses.push((await get(t, `/programme?key=${key}`, { 'x-forwarded-for': `203.0.113.77:${port}` }, '127.0.0.1')).statusCode);
    assert.deepEqual(statuses, [200, 200, 200, 429, 429]);
  });

  test('takes requests to paths that name nothing from a secret token\'s rate limit too', async () => {
    const { t, secret } = await closedDemo({ rateLimit: { perSecond: 0.001, burst: 10 } });
    const statuses: number[] = [];
    for (let request = 0; request < 30; request++) statuses.push((await get(t, '/v4/film/NOPE%zz', { veeziaccesstoken: secret })).statusCode);
    assert.deepEqual(statuses, [...Array<number>(10).fill(404), ...Array<number>(20).fill(429)]);
  });

  test('answers a preflight on the programme from any page without a key; any other OPTIONS meets the access step and is refused', async () => {
    const { t, key } = await closedDemo();
    for (const path of PROGRAMME) {
      const response = await t.app.inject({
        method: 'OPTIONS',
        url: path,
        headers: { origin: 'https://cinema.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'veeziaccesstoken' },
      });
      assert.equal(response.statusCode, 204, path);
      assert.equal(response.headers['access-control-allow-origin'], '*');
      assert.equal(response.headers['access-control-allow-methods'], 'GET, HEAD');
      assert.match(String(response.headers['access-control-allow-headers']), /VeeziAccessToken/);
      assert.match(String(response.headers['access-control-max-age']), /^\d+$/);
      assert.equal((await t.app.inject({ method: 'OPTIONS', url: path })).statusCode, 401, path);
      const plain = await t.app.inject({ method: 'OPTIONS', url: `${path}?key=${key}` });
      assert.equal(plain.statusCode, 405, path);
      assert.equal(plain.headers['allow'], 'GET, HEAD');
    }
  });
});
