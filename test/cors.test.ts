import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { issueToken } from '../src/access/manage-tokens.js';
import { startTestApp, varyOf, type TestApp } from './helpers.js';

const ALLOWED = 'https://cinema.example';
const ALSO_ALLOWED = 'http://localhost:3000';
const OTHER = 'https://elsewhere.example';

function preflight(t: TestApp, origin: string, url = '/v4/film/HO00000101') {
  return t.app.inject({
    method: 'OPTIONS',
    url,
    headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization, veeziaccesstoken' },
  });
}

describe('CORS off (the default)', () => {
  test('answers carry no CORS headers and OPTIONS is refused as any other method', async () => {
    const t = await startTestApp();
    const response = await t.app.inject({ url: '/v4/film', headers: { origin: ALLOWED } });
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['access-control-allow-origin'], undefined);
    assert.equal(varyOf(response), 'Accept, Accept-Encoding, Authorization, VeeziAccessToken');
    const options = await preflight(t, ALLOWED);
    assert.equal(options.statusCode, 405);
    assert.equal(options.headers['allow'], 'GET, HEAD');
    assert.equal(options.headers['access-control-allow-origin'], undefined);
  });
});

describe('CORS on for named origins', () => {
  const start = () => startTestApp(undefined, { corsOrigins: [ALLOWED, ALSO_ALLOWED], rateLimit: { perSecond: 100, burst: 100 } });

  test('an allowed origin may read answers and the headers it needs', async () => {
    const t = await start();
    for (const origin of [ALLOWED, ALSO_ALLOWED]) {
      const response = await t.app.inject({ url: '/v4/film', headers: { origin } });
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['access-control-allow-origin'], origin);
      assert.equal(response.headers['access-control-allow-credentials'], undefined, 'tokens are headers, never cookies');
      const exposed = String(response.headers['access-control-expose-headers']).split(', ');
      for (const name of ['ETag', 'Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']) assert.ok(exposed.includes(name), name);
      assert.equal(varyOf(response), 'Accept, Accept-Encoding, Authorization, Origin, VeeziAccessToken');
    }
    const revalidated = await t.app.inject({ url: '/v4/film', headers: { origin: ALLOWED, 'if-none-match': '*' } });
    assert.equal(revalidated.statusCode, 304);
    assert.equal(revalidated.headers['access-control-allow-origin'], ALLOWED);
  });

  test('another origin gets no Access-Control-Allow-Origin; every answer varies on Origin', async () => {
    const t = await start();
    for (const headers of [{ origin: OTHER }, { origin: 'null' }, { origin: `${ALLOWED}:443x` }, {}]) {
      const response = await t.app.inject({ url: '/v4/film/HO00000101', headers });
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['access-control-allow-origin'], undefined, JSON.stringify(headers));
      assert.equal(response.headers['access-control-expose-headers'], undefined);
      assert.equal(varyOf(response), 'Accept, Accept-Encoding, Authorization, Origin, VeeziAccessToken');
    }
  });

  test('a preflight from an allowed origin is answered 204, without a token, even on a closed service', async () => {
    const t = await start();
    await issueToken(t.db, { customer: 'default', label: null });
    await t.tokens.refresh();
    for (const url of ['/v4/film', '/v4/film/HO00000101', '/V1/FilmPackage', '/v1/filmpackage/1/']) {
      const response = await preflight(t, ALLOWED, url);
      assert.equal(response.statusCode, 204, url);
      assert.equal(response.body, '');
      assert.equal(response.headers['access-control-allow-origin'], ALLOWED);
      assert.equal(response.headers['access-control-allow-methods'], 'GET, HEAD');
      const allowed = String(response.headers['access-control-allow-headers']).toLowerCase().split(', ');
      for (const name of ['authorization', 'veeziaccesstoken', 'if-none-match', 'accept']) assert.ok(allowed.includes(name), name);
      assert.match(String(response.headers['access-control-max-age']), /^\d+$/);
      assert.equal(response.headers['vary'], 'Origin');
    }
    const refused = await t.app.inject({ url: '/v4/film', headers: { origin: ALLOWED } });
    assert.equal(refused.statusCode, 401);
    assert.equal(refused.headers['access-control-allow-origin'], ALLOWED, 'the page can read why it was refused');
  });

  test('a preflight from another origin is refused as any other method, without permission', async () => {
    const t = await start();
    const response = await preflight(t, OTHER);
    assert.equal(response.statusCode, 405);
    assert.equal(response.headers['access-control-allow-origin'], undefined);
    assert.equal(response.headers['access-control-allow-methods'], undefined);
    assert.equal(response.headers['access-control-allow-headers'], undefined);
  });

  test('an OPTIONS from no origin is refused as any other method; an allowed page\'s OPTIONS is answered', async () => {
    const t = await start();
    const plain = await t.app.inject({ method: 'OPTIONS', url: '/v4/film' });
    assert.equal(plain.statusCode, 405);
    assert.equal(plain.headers['allow'], 'GET, HEAD');
    const page = await t.app.inject({ method: 'OPTIONS', url: '/v4/film', headers: { origin: ALLOWED } });
    assert.equal(page.statusCode, 204);
    assert.equal(page.headers['access-control-allow-origin'], ALLOWED);
  });

  test('every answer varies on Origin and is never sniffed: operations endpoints, the reference and unknown paths too', async () => {
    const t = await start();
    for (const url of ['/healthz', '/readyz', '/metrics', '/openapi.json', '/docs', '/nowhere', '/v4/film/NOPE']) {
      const response = await t.app.inject({ url, headers: { origin: OTHER } });
      assert.ok(varyOf(response).split(', ').includes('Origin'), `${url}: ${varyOf(response)}`);
      assert.equal(response.headers['x-content-type-options'], 'nosniff', url);
    }
  });
});
