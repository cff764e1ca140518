import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { issueToken, revokeToken } from '../src/access/manage-tokens.js';
import { importFiles } from '../src/import/import-files.js';
import { openDatabase, parseDatabaseSpec } from '../src/store/database.js';
import { DatabaseBusyError, DEFAULT_LOCK_TIMEOUT_MS } from '../src/store/sql-client.js';
import { DEMO, method, TEST_DATABASE, runCli, startTestApp, type TestApp } from './helpers.js';

type Json = Record<string, unknown>;

const CHALLENGE = 'Bearer realm="marquee"';
const API_URLS = ['/v4/film', '/v4/film/HO00000101', '/v1/filmpackage', '/v1/filmpackage/1'];

async function issue(t: TestApp, customer = 'default'): Promise<string> {
  const { token } = await issueToken(t.db, { customer, label: null });
  await t.tokens.refresh();
  return token;
}

function get(t: TestApp, url: string, headers: Record<string, string> = {}) {
  return t.app.inject({ method: 'GET', url, headers });
}

describe('a service that never issued a token', () => {
  test('serves the default customer to anyone, ignoring any token presented', async () => {
    const t = await startTestApp();
    for (const url of API_URLS) {
      assert.equal((await get(t, url)).statusCode, 200, url);
      assert.equal((await get(t, url, { veeziaccesstoken: 'mq_whatever' })).statusCode, 200, url);
      assert.equal((await get(t, url, { authorization: 'Basic Zm9vOmJhcg==' })).statusCode, 200, url);
    }
  });

  test('closes as soon as one token exists, for every customer', async () => {
    const t = await startTestApp();
    await issue(t, 'another-customer');
    for (const url of API_URLS) assert.equal((await get(t, url)).statusCode, 401, url);
  });
});

describe('presenting a token', () => {
  test('VeeziAccessToken and Authorization: Bearer both admit the request', async () => {
    const t = await startTestApp();
    const token = await issue(t);
    for (const url of API_URLS) {
      const veezi = await get(t, url, { veeziaccesstoken: token });
      const bearer = await get(t, url, { authorization: `Bearer ${token}` });
      assert.equal(veezi.statusCode, 200, url);
      assert.equal(bearer.statusCode, 200, url);
      assert.equal(veezi.body, bearer.body);
    }
    assert.equal((await get(t, '/v4/film', { authorization: `bearer ${token}` })).statusCode, 200, 'the scheme is case-insensitive');
    const head = await t.app.inject({ method: 'HEAD', url: '/v4/film', headers: { veeziaccesstoken: token } });
    assert.equal(head.statusCode, 200);
  });

  test('every refusal is a 401 problem with WWW-Authenticate, whatever went wrong', async () => {
    const t = await startTestApp();
    const token = await issue(t);
    const { token: revoked, info } = await issueToken(t.db, { customer: 'default', label: null });
    await revokeToken(t.db, info.id);
    await t.tokens.refresh();
    const cases: [string, Record<string, string>, RegExp][] = [
      ['missing', {}, /needs an access token: send it as VeeziAccessToken: TOKEN or Authorization: Bearer TOKEN/],
      ['unknown (VeeziAccessToken)', { veeziaccesstoken: `${token}x` }, /not known/],
      ['unknown (Bearer)', { authorization: 'Bearer mq_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }, /not known/],
      ['revoked (VeeziAccessToken)', { veeziaccesstoken: revoked }, /revoked/],
      ['revoked (Bearer)', { authorization: `Bearer ${revoked}` }, /revoked/],
      ['another scheme', { authorization: `Basic ${token}` }, /must be Bearer followed by an access token/],
      ['Bearer without a token', { authorization: 'Bearer' }, /must be Bearer followed by an access token/],
      ['two Bearer tokens', { authorization: `Bearer ${token} ${token}` }, /must be Bearer followed by an access token/],
      ['an empty VeeziAccessToken', { veeziaccesstoken: '' }, /must hold one access token/],
      ['a VeeziAccessToken with spaces', { veeziaccesstoken: `${token} ${token}` }, /must hold one access token/],
      ['a digest instead of the token', { veeziaccesstoken: createHash('sha256').update(token).digest('hex') }, /not known/],
    ];
    for (const [name, headers, detail] of cases) {
      for (const url of API_URLS) {
        const response = await get(t, url, headers);
        assert.equal(response.statusCode, 401, `${name} ${url}`);
        assert.equal(response.headers['www-authenticate'], CHALLENGE, name);
        assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8', name);
        const problem = response.json<Json>();
        assert.deepEqual(Object.keys(problem), ['type', 'title', 'status', 'detail'], name);
        assert.equal(problem['status'], 401);
        assert.equal(problem['title'], 'Unauthorized');
        assert.match(String(problem['detail']), detail, name);
        assert.doesNotMatch(response.body, /HO00000101|Nosferatu/, 'no catalogue data in a refusal');
      }
    }
    const head = await t.app.inject({ method: 'HEAD', url: '/v4/film' });
    assert.equal(head.statusCode, 401);
    assert.equal(head.headers['www-authenticate'], CHALLENGE);
    assert.equal(head.body, '');
  });

  test('a 401 speaks the negotiated format', async () => {
    const t = await startTestApp();
    await issue(t);
    const response = await get(t, '/v4/film?format=xml');
    assert.equal(response.statusCode, 401);
    assert.equal(response.headers['content-type'], 'application/problem+xml; charset=utf-8');
    assert.match(response.body, /^<problem xmlns="urn:ietf:rfc:7807"><type>about:blank<\/type><title>Unauthorized<\/title><status>401<\/status><detail>This API needs an access token/);
  });

  test('wrong paths and methods meet the access step like any request: 401 without a token, 404 and 405 with one', async () => {
    const t = await startTestApp();
    const token = await issue(t);
    for (const url of ['/v3/film', '/', '/v4/film/NOPE%zz', '/v1/filmpackage/%', `/v4/film/${'x'.repeat(70_000)}`]) {
      const refused = await get(t, url);
      assert.equal(refused.statusCode, 401, url);
      assert.equal(refused.headers['www-authenticate'], CHALLENGE, url);
      assert.equal((await get(t, url, { veeziaccesstoken: token })).statusCode, 404, url);
    }
    for (const name of ['POST', 'DELETE', 'TRACE', 'PROPFIND']) {
      for (const url of ['/v4/film', `/v4/film/${'x'.repeat(70_000)}`]) {
        assert.equal((await t.app.inject({ method: method(name), url })).statusCode, 401, `${name} ${url.slice(0, 20)}`);
        const refused = await t.app.inject({ method: method(name), url, headers: { veeziaccesstoken: token } });
        assert.equal(refused.statusCode, 405, `${name} ${url.slice(0, 20)}`);
        assert.equal(refused.headers['allow'], 'GET, HEAD');
      }
    }
  });

  test('the open paths refuse other methods and name nothing missing without asking for a token', async () => {
    const t = await startTestApp();
    await issue(t);
    for (const [name, url] of [['POST', '/healthz'], ['TRACE', '/readyz'], ['POST', '/metrics'], ['PROPFIND', '/openapi.json'], ['DELETE', '/docs'], ['POST', '/whats-on/frame.js'], ['PUT', '/robots.txt']] as const) {
      const refused = await t.app.inject({ method: method(name), url });
      assert.equal(refused.statusCode, 405, `${name} ${url}`);
      assert.equal(refused.headers['allow'], 'GET, HEAD', `${name} ${url}`);
    }
    for (const url of ['/images/%ZZ/320/x', '/images/a/320/x/extra', '/IMAGES/a']) assert.equal((await get(t, url)).statusCode, 404, url);
  });

  test('a token of a customer without a catalogue sees empty lists and 404s', async () => {
    const t = await startTestApp();
    const token = await issue(t, 'no-catalogue-yet');
    const headers = { veeziaccesstoken: token };
    assert.equal((await get(t, '/v4/film', headers)).body, '[]');
    assert.equal((await get(t, '/v1/filmpackage', headers)).body, '[]');
    assert.equal((await get(t, '/v4/film/HO00000101', headers)).statusCode, 404);
    assert.equal((await get(t, '/v1/filmpackage/1', headers)).statusCode, 404);
    assert.match((await get(t, '/v4/film?format=xml', headers)).body, /^<ArrayOfFilm [^>]*><\/ArrayOfFilm>$/);
  });
});

describe('what is stored', () => {
  test('only the SHA-256 digest of a token is stored; last use is written in the background', async () => {
    const t = await startTestApp();
    const token = await issue(t);
    const [row] = await t.db.query<Json>('SELECT * FROM access_token');
    assert.equal(row?.['digest'], createHash('sha256').update(token).digest('hex'));
    assert.equal(row?.['last_used_at'], null);
    const everything = JSON.stringify(await t.db.query('SELECT * FROM access_token'));
    assert.ok(!everything.includes(token) && !everything.includes(token.slice(3)), 'the token is nowhere in the table');

    const before = new Date().toISOString();
    assert.equal((await get(t, '/v4/film', { veeziaccesstoken: token })).statusCode, 200);
    const [notYet] = await t.db.query<Json>('SELECT last_used_at FROM access_token');
    assert.equal(notYet?.['last_used_at'], null, 'the request itself wrote nothing');
    await t.tokens.flushUses();
    const listed = await runCli(['token', 'list', '--json', '--database', t.database]);
    assert.equal(listed.status, 0, listed.stderr);
    const [info] = JSON.parse(listed.stdout) as Json[];
    const lastUsedAt = info?.['lastUsedAt'];
    // A last use must be there before its time can be compared: 'null' sorts after any date.
    assert.ok(typeof lastUsedAt === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(lastUsedAt), `last use is a time: ${String(lastUsedAt)}`);
    assert.ok(lastUsedAt >= before && lastUsedAt <= new Date().toISOString(), `last use ${lastUsedAt} is after ${before}, and not in the future`);
  });

  test('recording last use in the background never waits for an import holding the write lock', async () => {
    const t = await startTestApp();
    const token = await issue(t);
    assert.equal((await get(t, '/v4/film', { veeziaccesstoken: token })).statusCode, 200);

    // Another connection, as `marquee import` would be, holds a write transaction open.
    const importer = await openDatabase(parseDatabaseSpec(t.database));
    let release = (): void => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked = (): void => {};
    const holding = new Promise<void>((resolve) => (locked = resolve));
    const importing = importer.transaction(async (tx) => {
      await tx.execute('UPDATE catalogue SET changed_at = changed_at');
      locked();
      await released;
    });
    await holding;
    // The import holds the lock until released: a write that waited for it would wait the minute a
    // lock is waited for, and this one comes back, however busy the machine, long before.
    const started = Date.now();
    await t.tokens.flushUses({ failIfBusy: true }).catch(() => {});
    const waited = Date.now() - started;
    release();
    await importing;
    await importer.close();
    assert.ok(waited < DEFAULT_LOCK_TIMEOUT_MS / 2, `a background write waited ${waited} ms for the import's lock`);

    await t.tokens.flushUses({ failIfBusy: true });
    const [row] = await t.db.query<Json>('SELECT last_used_at FROM access_token');
    assert.match(String(row?.['last_used_at']), /^\d{4}-/, 'a use that could not be written is written on the next try');
  });

  test('recording last use in the background never waits for a catalogue being read on the same connection', async () => {
    const t = await startTestApp();
    const token = await issue(t);
    assert.equal((await get(t, '/v4/film', { veeziaccesstoken: token })).statusCode, 200);
    // A reload reads its catalogue in a transaction held over many turns of the event loop.
    await t.db.transaction(
      async () => {
        const written = t.tokens.flushUses({ failIfBusy: true });
        // On SQLite the server's one connection holds one transaction; PostgreSQL takes another from its pool.
        if (TEST_DATABASE === 'sqlite') await assert.rejects(written, DatabaseBusyError);
        else await written;
      },
      { readOnly: true },
    );
    await t.tokens.flushUses({ failIfBusy: true });
    const [row] = await t.db.query<Json>('SELECT last_used_at FROM access_token');
    assert.match(String(row?.['last_used_at']), /^\d{4}-/);
  });

  test('a server stopping during a reload lets the reload end before the last uses are written', async () => {
    const t = await startTestApp();
    const token = await issue(t);
    assert.equal((await get(t, '/v4/film', { veeziaccesstoken: token })).statusCode, 200);
    await importFiles(t.db, { customer: 'default', files: [join(DEMO, 'films.json')], replace: true });
    let reloaded = false;
    const reload = t.live.refresh().then(() => (reloaded = true));
    await t.live.stop();
    assert.ok(reloaded, 'stop resolved while the reload was still reading the database');
    await t.tokens.stop();
    const [row] = await t.db.query<Json>('SELECT last_used_at FROM access_token');
    assert.match(String(row?.['last_used_at']), /^\d{4}-/);
    await reload;
  });
});
