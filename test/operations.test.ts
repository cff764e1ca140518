import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { XmlWriter } from '../src/formats/xml-writer.js';
import { issueToken } from '../src/access/manage-tokens.js';
import { buildApp } from '../src/http/app.js';
import { createLogger } from '../src/observability/logger.js';
import { LATENCY_BUCKETS } from '../src/observability/metrics.js';
import { importFiles } from '../src/import/import-files.js';
import { LiveCatalogue } from '../src/server/live-catalogue.js';
import { LiveTokens } from '../src/server/live-tokens.js';
import { openDatabase, parseDatabaseSpec } from '../src/store/database.js';
import { DEMO, atEnd, freshDatabase, serve, startTestApp, tempDir } from './helpers.js';
import { find, parseMetrics, value } from './metrics-text.js';

type Json = Record<string, unknown>;

describe('GET /healthz and /readyz', () => {
  test('a loaded server is alive and ready', async () => {
    const { app } = await startTestApp();
    const health = await app.inject({ method: 'GET', url: '/healthz' });
    assert.equal(health.statusCode, 200);
    assert.deepEqual(health.json(), { status: 'alive' });
    const ready = await app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(ready.statusCode, 200);
    assert.deepEqual(ready.json(), { status: 'ready' });
    assert.equal(ready.headers['cache-control'], 'no-store');
  });

  test('readiness is 503 until the database has been read, while the process is alive', async () => {
    const db = await openDatabase(parseDatabaseSpec(await freshDatabase()));
    await importFiles(db, { customer: 'default', files: [join(DEMO, 'films.json')], replace: true });
    const live = new LiveCatalogue(db, new XmlWriter(), { budgetBytes: 2 ** 30 });
    const tokens = new LiveTokens(db);
    await tokens.refresh();
    const app = buildApp({ catalogues: live, tokens, cacheControl: 'no-cache' });
    atEnd(async () => {
      await app.close();
      await db.close();
    });

    assert.equal((await app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
    const before = await app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(before.statusCode, 503);
    assert.equal(before.headers['content-type'], 'application/problem+json; charset=utf-8');
    assert.deepEqual(before.json(), { type: 'about:blank', title: 'Service Unavailable', status: 503, detail: 'The database has not been read yet.' });
    const xml = await app.inject({ method: 'GET', url: '/readyz', headers: { accept: 'application/xml' } });
    assert.equal(xml.headers['content-type'], 'application/problem+xml; charset=utf-8');
    assert.match(xml.body, /<status>503<\/status><detail>The database has not been read yet\.<\/detail>/);

    await live.refresh();
    assert.equal((await app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200);
  });

  test('readiness is 503 while the database does not answer, and the answers held go on', async () => {
    const { app, db, live } = await startTestApp();
    assert.equal((await app.inject({ method: 'GET', url: '/v4/film' })).statusCode, 200, 'publishes the catalogue');
    await db.close();
    await assert.rejects(live.refresh());
    const ready = await app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(ready.statusCode, 503);
    assert.equal(ready.json<Json>()['detail'], 'The database does not answer.');
    assert.equal((await app.inject({ method: 'GET', url: '/v4/film/HO00000101' })).statusCode, 200, 'the catalogue held is still served');
    assert.equal((await app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
  });

  test('operations endpoints answer HEAD and need no token header', async () => {
    const { app } = await startTestApp();
    for (const url of ['/healthz', '/readyz', '/metrics', '/openapi.json', '/docs']) {
      const head = await app.inject({ method: 'HEAD', url });
      assert.equal(head.statusCode, 200, url);
      assert.equal(head.body, '', url);
    }
  });
});

describe('GET /metrics', () => {
  test('counts requests and their latency by route pattern and status, in Prometheus text', async () => {
    const { app } = await startTestApp();
    const requests: [string, string][] = [
      ['GET', '/v4/film'],
      ['GET', '/v4/film'],
      ['GET', '/V4/Film/'],
      ['HEAD', '/v4/film'],
      ['GET', '/v4/film/HO00000101'],
      ['GET', '/v4/film/NOPE'],
      ['GET', '/v4/film/NOPE?format=xml'],
      ['GET', '/v1/filmpackage/1'],
      ['GET', '/v1/filmpackage/abc'],
      ['GET', '/nowhere'],
      ['POST', '/v4/film'],
      // Escapes that cannot be decoded are counted as any request.
      ['GET', '/v1/filmpackage/%FF'],
      ['GET', '/nowhere%zz'],
    ];
    for (const [method, url] of requests) await app.inject({ method: method as 'GET', url });

    const response = await app.inject({ method: 'GET', url: '/metrics' });
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
    const { samples, types } = parseMetrics(response.body);
    assert.equal(types.get('marquee_http_requests_total'), 'counter');
    assert.equal(types.get('marquee_http_request_duration_seconds'), 'histogram');

    const count = (route: string, status: string): number | undefined => value(samples, 'marquee_http_requests_total', { route, status });
    assert.equal(count('/v4/film', '200'), 4, 'GET and HEAD, any case, with or without a trailing slash: one route');
    assert.equal(count('/v4/film/:id', '200'), 1);
    assert.equal(count('/v4/film/:id', '404'), 2);
    assert.equal(count('/v1/filmpackage/:id', '200'), 1);
    assert.equal(count('/v1/filmpackage/:id', '404'), 1);
    assert.equal(count('unmatched', '404'), 3, 'a path whose escapes cannot be decoded names nothing');
    assert.equal(count('/v4/film', '405'), 1, 'a wrong method on a catalogue path counts under its route');
    assert.equal(find(samples, 'marquee_http_requests_total').some((sample) => /NOPE|abc|nowhere|%|\?/.test(sample.labels['route'] ?? '')), false, 'no raw URL in a label');

    const buckets = find(samples, 'marquee_http_request_duration_seconds_bucket', { route: '/v4/film', status: '200' });
    assert.deepEqual(buckets.map((bucket) => bucket.labels['le']), [...LATENCY_BUCKETS.map(String), '+Inf']);
    const counts = buckets.map((bucket) => bucket.value);
    assert.deepEqual(counts, [...counts].sort((a, b) => a - b), 'buckets are cumulative');
    assert.equal(counts.at(-1), 4);
    assert.equal(value(samples, 'marquee_http_request_duration_seconds_count', { route: '/v4/film', status: '200' }), 4);
    const sum = value(samples, 'marquee_http_request_duration_seconds_sum', { route: '/v4/film', status: '200' }) ?? -1;
    assert.ok(sum > 0 && sum < 5, `a plausible sum of seconds: ${sum}`);
  });

  test('carries the process figures: CPU, memory, heap, event-loop lag and garbage collection', async () => {
    const { app } = await startTestApp();
    const { types } = parseMetrics((await app.inject({ method: 'GET', url: '/metrics' })).body);
    for (const name of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'process_start_time_seconds', 'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_gc_duration_seconds']) {
      assert.ok(types.has(name), name);
    }
  });

  test('shows no customer key unless the operator asks for per-customer series', async () => {
    const { app, db, live, tokens } = await startTestApp();
    await importFiles(db, { customer: 'odeon-leeds', files: [join(DEMO, 'films.json')], replace: true });
    await live.refresh();
    for (const customer of ['default', 'odeon-leeds']) {
      const { token } = await issueToken(db, { customer, label: null });
      await tokens.refresh();
      assert.equal((await app.inject({ method: 'GET', url: '/v4/film', headers: { veeziaccesstoken: token } })).statusCode, 200, 'publishes the catalogue');
    }
    const response = await app.inject({ method: 'GET', url: '/metrics' });
    assert.doesNotMatch(response.body, /customer=|odeon-leeds/);
    const { samples } = parseMetrics(response.body);
    assert.equal(value(samples, 'marquee_catalogues'), 2);
    assert.equal(value(samples, 'marquee_catalogue_films'), 72, 'the films of every customer, summed');
    assert.ok((value(samples, 'marquee_catalogue_bytes') ?? 0) > 100_000, 'the memory both catalogues hold');
    assert.equal(value(samples, 'marquee_catalogue_version'), undefined, 'a version is a figure of one catalogue');
  });

  test('tells each catalogue\'s version, age and record counts where per-customer series are on, and counts builds as imports arrive', async () => {
    const { app, db, live } = await startTestApp(undefined, { metricsCustomers: true });
    const scrape = async () => parseMetrics((await app.inject({ method: 'GET', url: '/metrics' })).body).samples;
    let samples = await scrape();
    assert.equal(value(samples, 'marquee_catalogues'), 0, 'a catalogue is published on its first request');
    assert.equal(value(samples, 'marquee_catalogue_builds_total'), 0);
    const [film] = (await app.inject({ method: 'GET', url: '/v4/film' })).json<Json[]>();
    samples = await scrape();
    const customer = { customer: 'default' };
    assert.equal(value(samples, 'marquee_catalogue_version', customer), 1);
    assert.equal(value(samples, 'marquee_catalogue_films', customer), 36);
    assert.equal(value(samples, 'marquee_catalogue_packages', customer), 8);
    assert.equal(value(samples, 'marquee_catalogue_builds_total'), 1);
    assert.ok((value(samples, 'marquee_catalogue_build_seconds_total') ?? 0) > 0);
    assert.equal(value(samples, 'marquee_catalogue_evictions_total'), 0);
    assert.equal(value(samples, 'marquee_catalogue_memory_budget_bytes'), 2 ** 30);
    assert.ok((value(samples, 'marquee_catalogue_bytes', customer) ?? 0) > 100_000);
    assert.equal(value(samples, 'marquee_catalogue_refresh_failures_total'), 0);
    assert.equal(value(samples, 'marquee_ready'), 1);
    const age = value(samples, 'marquee_catalogue_age_seconds', customer) ?? -1;
    assert.ok(age >= 0 && age < 60, `the import just happened: ${age}`);

    const file = join(await tempDir(), 'one-more.json');
    await writeFile(file, JSON.stringify({ ...film, Id: 'NEW-1' }));
    await importFiles(db, { customer: 'default', files: [file], replace: false });
    await live.refresh();
    samples = await scrape();
    assert.equal(value(samples, 'marquee_catalogue_version', customer), 2);
    assert.equal(value(samples, 'marquee_catalogue_films', customer), 37);
    assert.equal(value(samples, 'marquee_catalogue_builds_total'), 2, 'a held catalogue is built again when it changes');
    await live.refresh();
    assert.equal(value(await scrape(), 'marquee_catalogue_builds_total'), 2, 'a look that finds nothing new builds nothing');
  });
});

/** A log kept in memory. */
function memoryLog(): { readonly destination: { write(line: string): void }; lines(): string[] } {
  const written: string[] = [];
  return { destination: { write: (line) => written.push(line) }, lines: () => [...written] };
}

describe('request log', () => {
  test('one JSON line per request with its id, method, route pattern, status and duration', async () => {
    const { live, tokens } = await startTestApp();
    const log = memoryLog();
    const app = buildApp({ catalogues: live, tokens, cacheControl: 'no-cache', logger: createLogger({ level: 'info', destination: log.destination }) });
    atEnd(() => app.close());
    await app.ready();
    const before = log.lines().length;

    await app.inject({ method: 'GET', url: '/v4/film/HO00000101?format=xml' });
    await app.inject({ method: 'GET', url: '/v1/filmpackage/abc' });
    await app.inject({ method: 'DELETE', url: '/v4/film' });
    const lines = log.lines().slice(before);
    const entries = lines.map((line) => JSON.parse(line) as Json);
    assert.equal(entries.length, 3, lines.join(''));
    const [film, missing, refused] = entries as [Json, Json, Json];
    assert.match(String(film['reqId']), /\S/);
    assert.equal(film['method'], 'GET');
    assert.equal(film['route'], '/v4/film/:id');
    assert.equal(film['status'], 200);
    assert.equal(typeof film['durationMs'], 'number');
    assert.match(String(film['durationMs']), /^\d+(\.\d{1,3})?$/, 'to the microsecond');
    assert.equal(film['level'], 30);
    assert.equal(film['msg'], 'request completed');
    assert.deepEqual([missing['route'], missing['status']], ['/v1/filmpackage/:id', 404]);
    assert.deepEqual([refused['route'], refused['status']], ['/v4/film', 405]);
    assert.notEqual(film['reqId'], missing['reqId']);
    assert.doesNotMatch(lines.join(''), /HO00000101|format=xml|abc/, 'the route pattern, never the URL');
  });

  test('a token never shows, even where a request or its headers are logged in full', async () => {
    const { live, tokens } = await startTestApp();
    const log = memoryLog();
    const app = buildApp({ catalogues: live, tokens, cacheControl: 'no-cache', logger: createLogger({ level: 'trace', destination: log.destination }) });
    atEnd(() => app.close());
    // A route that logs what a careless handler might: the request, its headers, an error holding them.
    app.get('/careless', async (request, reply) => {
      request.log.info({ req: request, headers: request.headers }, 'careless');
      request.log.warn({ request: { headers: request.headers } }, 'careless again');
      return reply.send('ok');
    });
    const headers = { veeziaccesstoken: 'secret-veezi', authorization: 'Bearer secret-bearer' };
    await app.inject({ method: 'GET', url: '/careless?access_token=secret-query', headers });
    await app.inject({ method: 'GET', url: '/v4/film/NOPE?access_token=secret-query', headers });
    const text = log.lines().join('');
    assert.match(text, /"msg":"careless"/);
    assert.match(text, /"path":"\/careless"/, 'a logged request shows its path');
    assert.match(text, /\[redacted\]/);
    assert.doesNotMatch(text, /secret/);
  });

  test('--request-log off leaves the request lines out; the requests are still counted in /metrics', async () => {
    const server = await serve(['--database', await freshDatabase(), '--seed', DEMO, '--request-log', 'off']);
    for (const path of ['/v4/film', '/v4/film/NOPE']) await (await fetch(`${server.url}${path}`)).arrayBuffer();
    const { samples } = parseMetrics(await (await fetch(`${server.url}/metrics`)).text());
    assert.equal(value(samples, 'marquee_http_requests_total', { route: '/v4/film', status: '200' }), 1);
    assert.equal(value(samples, 'marquee_http_requests_total', { route: '/v4/film/:id', status: '404' }), 1);
    // A stopped server has written every line it had: its log went on, without a line per request.
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0);
    assert.ok(server.logs.some((entry) => entry['msg'] === 'stopped'), 'the server logged all the same');
    assert.deepEqual(server.logs.filter((entry) => entry['msg'] === 'request completed'), []);
  });



  test('a logger at warn quiets the request lines', async () => {
    const { live, tokens } = await startTestApp();
    const log = memoryLog();
    const app = buildApp({ catalogues: live, tokens, cacheControl: 'no-cache', logger: createLogger({ level: 'warn', destination: log.destination }) });
    atEnd(() => app.close());
    await app.inject({ method: 'GET', url: '/v4/film' });
    assert.deepEqual(log.lines(), []);
  });
});
