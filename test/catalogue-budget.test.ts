import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { issueToken } from '../src/access/manage-tokens.js';
import { XmlWriter } from '../src/formats/xml-writer.js';
import { buildApp } from '../src/http/app.js';
import { importFiles } from '../src/import/import-files.js';
import { LiveCatalogue } from '../src/server/live-catalogue.js';
import { openDatabase, parseDatabaseSpec } from '../src/store/database.js';
import { DEMO_FILES, atEnd, runCli, startTestApp, tempDir, waitFor, type TestApp, type TestAppOptions } from './helpers.js';
import { parseMetrics, value } from './metrics-text.js';

type Json = Record<string, unknown>;

/** The answers compared before and after a catalogue is let go: lists and records, in both formats. */
const URLS = ['/v4/film', '/v4/film?format=xml', '/v4/film/HO00000101', '/v1/film/HO00000101?format=xml', '/v1/filmpackage', '/v1/session', '/v1/site', '/v1/websession'];

interface Cinemas {
  readonly t: TestApp;
  /** Each customer's token, by customer. */
  readonly tokens: Readonly<Record<string, string>>;
}

/** A server whose customers each hold the demo programme, with a token each. */
async function cinemas(customers: readonly string[], options: TestAppOptions = {}): Promise<Cinemas> {
  const t = await startTestApp([], options);
  const tokens: Record<string, string> = {};
  for (const customer of customers) {
    await importFiles(t.db, { customer, files: DEMO_FILES, replace: true });
    tokens[customer] = (await issueToken(t.db, { customer, label: null })).token;
  }
  await t.live.refresh();
  await t.tokens.refresh();
  return { t, tokens };
}

function get({ t, tokens }: Cinemas, customer: string, url: string) {
  return t.app.inject({ method: 'GET', url, headers: { veeziaccesstoken: tokens[customer] as string } });
}

async function metrics({ t }: Cinemas): Promise<(name: string) => number | undefined> {
  const { samples } = parseMetrics((await t.app.inject({ method: 'GET', url: '/metrics' })).body);
  return (name) => value(samples, name);
}

/** Every answer of `URLS` for the customer: status, ETag and body. */
async function answers(cinemas: Cinemas, customer: string): Promise<string[]> {
  const all: string[] = [];
  for (const url of URLS) {
    const response = await get(cinemas, customer, url);
    assert.equal(response.statusCode, 200, url);
    all.push(`${url} ${String(response.headers['etag'])} ${response.body}`);
  }
  return all;
}

describe('catalogues published on demand', () => {
  test('a server is ready before any catalogue is published, and publishes a customer on its first request only', async () => {
    const c = await cinemas(['odeon-leeds', 'rex-berlin']);
    assert.equal((await c.t.app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200);
    let figure = await metrics(c);
    assert.equal(figure('marquee_catalogues'), 0);
    assert.equal(figure('marquee_catalogue_builds_total'), 0);

    const first = await Promise.all([1, 2, 3].map(() => get(c, 'odeon-leeds', '/v4/film/HO00000101')));
    assert.deepEqual(first.map((response) => response.statusCode), [200, 200, 200]);
    figure = await metrics(c);
    assert.equal(figure('marquee_catalogues'), 1, "the other customer's catalogue is not built");
    assert.equal(figure('marquee_catalogue_builds_total'), 1, 'requests that come together wait for one build');
    assert.equal(figure('marquee_catalogue_films'), 36);
  });

  test("a customer's first answer reads what it needs: a record alone, then its collection; a list its one collection; each other on its own first request", async () => {
    const c = await cinemas(['odeon-leeds']);
    const held = async (): Promise<number> => (await metrics(c))('marquee_catalogue_bytes') as number;
    assert.equal((await get(c, 'odeon-leeds', '/v1/site')).statusCode, 200);
    const site = await held();
    const alone = await get(c, 'odeon-leeds', '/v4/film/HO00000101');
    assert.equal(alone.statusCode, 200);
    // The record's collection is published once it is answered, with no other request.
    await waitFor(async () => (await held()) > site, 10_000);
    const fromCollection = await get(c, 'odeon-leeds', '/v4/film/HO00000101');
    assert.deepEqual([fromCollection.headers['etag'], fromCollection.body], [alone.headers['etag'], alone.body], 'a record read alone answers as its collection does');
    const films = await held();
    assert.equal((await get(c, 'odeon-leeds', '/v4/film')).statusCode, 200);
    assert.equal(await held(), films, 'the film list is of the collection already published');
    assert.equal((await get(c, 'odeon-leeds', '/v1/film')).statusCode, 200);
    assert.ok((await held()) > films, 'the films in the older shape are published on their first request');
    assert.equal((await get(c, 'odeon-leeds', '/v1/screen/999')).statusCode, 404, 'a record read alone may be missing');
    assert.equal((await metrics(c))('marquee_catalogue_builds_total'), 1, 'one build: each part is published from its records read then');
  });

  test('a collection first asked for after an import is read as stored then, and the next look builds the catalogue again', async () => {
    const c = await cinemas(['odeon-leeds']);
    const film = (await get(c, 'odeon-leeds', '/v4/film/HO00000101')).json<Json>();
    const file = join(await tempDir(), 'renamed.json');
    await writeFile(file, JSON.stringify({ ...film, Title: 'Renamed after publication' }));
    await importFiles(c.t.db, { customer: 'odeon-leeds', files: [file], replace: false });

    // No look at the database yet: the films published stay as they were, each answer from one version.
    assert.equal((await get(c, 'odeon-leeds', '/v4/film/HO00000101')).json<Json>()['Title'], film['Title']);
    assert.equal((await get(c, 'odeon-leeds', '/v1/film/HO00000101')).json<Json>()['Title'], 'Renamed after publication');
    await c.t.live.refresh();
    assert.equal((await get(c, 'odeon-leeds', '/v4/film/HO00000101')).json<Json>()['Title'], 'Renamed after publication');
    assert.equal((await metrics(c))('marquee_catalogue_builds_total'), 2);
  });

  test('customers asked for at once, two lists each, are each published once', async () => {
    const customers = ['cinema-a', 'cinema-b', 'cinema-c', 'cinema-d'];
    const c = await cinemas(customers);
    const lists = await Promise.all(customers.flatMap((customer) => [get(c, customer, '/v4/film'), get(c, customer, '/v1/session')]));
    assert.deepEqual(lists.map((response) => response.statusCode), Array(8).fill(200));
    assert.equal((await metrics(c))('marquee_catalogue_builds_total'), 4);
  });

  test('a catalogue let go is built again with identical answers and ETags', async () => {
    // A budget smaller than any catalogue holds one at a time.
    const c = await cinemas(['odeon-leeds', 'rex-berlin'], { cacheMemoryBytes: 1 });
    const before = await answers(c, 'odeon-leeds');
    await answers(c, 'rex-berlin');
    let figure = await metrics(c);
    assert.equal(figure('marquee_catalogues'), 1);
    assert.equal(figure('marquee_catalogue_evictions_total'), 1);

    assert.deepEqual(await answers(c, 'odeon-leeds'), before);
    figure = await metrics(c);
    assert.equal(figure('marquee_catalogue_builds_total'), 3);
    assert.equal(figure('marquee_catalogue_evictions_total'), 2);
  });

  test('the catalogues held stay within the budget, the least recently used let go first', async () => {
    const customers = ['cinema-a', 'cinema-b', 'cinema-c', 'cinema-d'];
    const probe = await cinemas(['cinema-a']);
    await get(probe, 'cinema-a', '/v4/film');
    await get(probe, 'cinema-a', '/v1/session');
    const one = (await metrics(probe))('marquee_catalogue_bytes') as number;
    assert.ok(one > 100_000, `a demo catalogue holds ${one} bytes`);

    // Room for two catalogues and their compressed answers, not three.
    const budget = Math.floor(one * 2.5);
    const c = await cinemas(customers, { cacheMemoryBytes: budget });
    for (const round of [1, 2]) {
      for (const customer of customers) {
        assert.equal((await get(c, customer, '/v4/film')).statusCode, 200);
        assert.equal((await get(c, customer, '/v1/session')).statusCode, 200);
        const figure = await metrics(c);
        assert.ok((figure('marquee_catalogue_bytes') as number) <= budget, `round ${round}, ${customer}: ${figure('marquee_catalogue_bytes')} bytes held, budget ${budget}`);
        assert.ok((figure('marquee_catalogues') as number) <= 2);
      }
    }
    // a, b, c, d in turn with room for two: each request let the least recently used go.
    let figure = await metrics(c);
    assert.equal(figure('marquee_catalogue_builds_total'), 8);
    assert.equal(figure('marquee_catalogue_evictions_total'), 6);
    // d and c are held; asking for c makes d the least recently used, so b's build lets d go.
    await get(c, 'cinema-c', '/v4/film');
    await get(c, 'cinema-b', '/v4/film');
    await get(c, 'cinema-c', '/v4/film');
    figure = await metrics(c);
    assert.equal(figure('marquee_catalogue_builds_total'), 9, 'c stayed held');
  });

  test('a change to a customer let go, and to one held, is served after the next look', async () => {
    const c = await cinemas(['odeon-leeds', 'rex-berlin'], { cacheMemoryBytes: 1 });
    const film = (await get(c, 'odeon-leeds', '/v4/film/HO00000101')).json<Json>();
    await get(c, 'rex-berlin', '/v4/film');
    const file = join(await tempDir(), 'renamed.json');
    await writeFile(file, JSON.stringify({ ...film, Title: 'Renamed while let go' }));
    await importFiles(c.t.db, { customer: 'odeon-leeds', files: [file], replace: false });
    await c.t.live.refresh();
    assert.equal((await get(c, 'odeon-leeds', '/v4/film/HO00000101')).json<Json>()['Title'], 'Renamed while let go');

    // Now held: the look builds it again before the next request.
    await writeFile(file, JSON.stringify({ ...film, Title: 'Renamed while held' }));
    await importFiles(c.t.db, { customer: 'odeon-leeds', files: [file], replace: false });
    await c.t.live.refresh();
    const builds = (await metrics(c))('marquee_catalogue_builds_total');
    assert.equal((await get(c, 'odeon-leeds', '/v4/film/HO00000101')).json<Json>()['Title'], 'Renamed while held');
    assert.equal((await metrics(c))('marquee_catalogue_builds_total'), builds, 'built by the look, not by the request');
    assert.equal((await get(c, 'rex-berlin', '/v4/film/HO00000101')).json<Json>()['Title'], film['Title'], 'the other customer is untouched');
  });

  test('a customer never imported is answered the empty catalogue, with no build', async () => {
    const c = await cinemas(['odeon-leeds']);
    const { token } = await issueToken(c.t.db, { customer: 'not-yet-open', label: null });
    await c.t.tokens.refresh();
    const list = await c.t.app.inject({ method: 'GET', url: '/v4/film', headers: { veeziaccesstoken: token } });
    assert.equal(list.statusCode, 200);
    assert.equal(list.body, '[]');
    assert.equal((await metrics(c))('marquee_catalogue_builds_total'), 0);
  });

  test('while the database does not answer, a catalogue held is served, and what it has not published and a catalogue not held are 503 with Retry-After', async () => {
    const c = await cinemas(['odeon-leeds', 'rex-berlin']);
    // Catalogues read from a connection of their own, as from a replica, which goes away; tokens stay.
    const reads = await openDatabase(parseDatabaseSpec(c.t.database));
    const live = new LiveCatalogue(reads, new XmlWriter(), { budgetBytes: 2 ** 30 });
    await live.refresh();
    const app = buildApp({ catalogues: live, tokens: c.t.tokens, cacheControl: 'no-cache' });
    atEnd(() => app.close());
    const get = (customer: string, url: string) => app.inject({ method: 'GET', url, headers: { veeziaccesstoken: c.tokens[customer] as string } });
    assert.equal((await get('odeon-leeds', '/v4/film')).statusCode, 200);

    await reads.close();
    assert.equal((await get('odeon-leeds', '/v4/film/HO00000101')).statusCode, 200);
    for (const [customer, url] of [['odeon-leeds', '/v1/filmpackage'], ['rex-berlin', '/v4/film']] as const) {
      const unavailable = await get(customer, url);
      assert.equal(unavailable.statusCode, 503, `${customer} ${url}`);
      assert.equal(unavailable.headers['retry-after'], '1');
      assert.equal(unavailable.json<Json>()['detail'], 'The catalogue cannot be read from the database now; try again shortly.');
    }
  });

  test('--cache-memory takes a size and names itself when it cannot', async () => {
    const result = await runCli(['serve', '--cache-memory', 'lots']);
    assert.equal(result.status, 2);
    assert.match(result.stderr, /--cache-memory.*must be a size such as 500MB, 1GiB or a number of bytes/);
  });
});
