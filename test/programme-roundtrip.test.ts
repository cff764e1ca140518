/**
 * The whole programme leaves and comes back unchanged: `export` then `import --replace` gives the
 * same bytes on every path, and `sync` mirrors every resource, each session's Url from the
 * upstream's web sessions.
 */
import assert from 'node:assert/strict';
import { copyFile, readdir, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { test } from 'node:test';
import { DEMO_FILES, exportCatalogue, freshDatabase, runCli, serve, sessionAt, startTestApp, tempDir, type TestApp } from './helpers.js';

type Json = Record<string, unknown>;

const HOUR = 3_600_000;

/** The demo cinema with sessions on sale now, beside sessions past and not sold on the web. */
async function programmeFiles(): Promise<string[]> {
  const now = Date.now();
  const file = join(await tempDir(), 'sessions.json');
  await writeFile(
    file,
    JSON.stringify([
      sessionAt(1, now + HOUR),
      sessionAt(2, now + 2 * HOUR, { FilmId: null, FilmPackageId: 1, Title: 'Double', Attributes: [], SalesVia: ['WWW'] }),
      sessionAt(3, now + 3 * HOUR, { Status: 'Closed', Url: 'https://tickets.example/closed' }),
      sessionAt(4, now - HOUR),
      sessionAt(5, now + HOUR, { Url: null, SalesVia: ['POS'] }),
    ]),
  );
  return [...DEMO_FILES.filter((name) => !name.endsWith('sessions.json')), file];
}

/** Every path of the API with something to answer in `t`'s catalogue. */
async function everyPath(t: TestApp): Promise<string[]> {
  const ids = async (list: string): Promise<string[]> => (await t.app.inject(list)).json<Json[]>().map((record) => `${list}/${encodeURIComponent(String(record['Id']))}`);
  const lists = ['/v4/film', '/v1/film', '/v1/filmpackage', '/v1/screen', '/v1/attribute', '/v1/session', '/v1/websession'];
  const paths = [...lists, '/v1/site'];
  for (const list of lists) paths.push(...(await ids(list)));
  return paths;
}

test('import --replace of an export answers the same bytes on every path, in JSON and XML', async () => {
  const original = await startTestApp(await programmeFiles());
  const paths = await everyPath(original);
  assert.ok(paths.includes('/v1/websession/1') && paths.includes('/v1/websession/2'), 'sessions are on sale');
  for (const format of ['json', 'xml']) {
    const out = join(await tempDir(), 'out');
    const exported = await runCli(['export', '--database', original.database, '--out', out, '--format', format]);
    assert.equal(exported.status, 0, exported.stderr);
    const files = (await readdir(out)).map((name) => join(out, name));
    assert.equal(files.length, 6, 'films, packages, screens, attributes, site and sessions');
    const copy = await startTestApp(files);
    for (const path of paths) {
      for (const accept of ['application/json', 'application/xml']) {
        const [a, b] = await Promise.all([original, copy].map((t) => t.app.inject({ url: path, headers: { accept } })));
        assert.equal(a?.statusCode, 200, `${path} ${accept}`);
        assert.equal(b?.body, a?.body, `${format} export: ${path} ${accept}`);
        assert.equal(b?.headers['etag'], a?.headers['etag'], `${format} export: ${path} ${accept}`);
      }
    }
  }
});

test('sync mirrors every resource, each session taking its Url from the upstream\'s web sessions', async () => {
  const seed = await tempDir();
  for (const file of await programmeFiles()) await copyFile(file, join(seed, basename(file)));
  const upstreamDatabase = await freshDatabase();
  const upstream = await serve(['--database', upstreamDatabase, '--seed', seed]);
  const local = await freshDatabase();
  const result = await runCli(['sync', '--database', local, '--from', upstream.url]);
  assert.equal(result.status, 0, result.stderr);
  assert.match(result.stdout, /screens 3 added, .*attributes 8 added, .*site 1 added, .*sessions 5 added, 0 changed, 0 removed, 0 unchanged/);
  const mine = await exportCatalogue(local);
  const theirs = await exportCatalogue(upstreamDatabase);
  for (const name of ['films', 'filmpackages', 'screens', 'attributes', 'site']) assert.equal(mine[name], theirs[name], name);
  const urls = (JSON.parse(mine['sessions'] ?? '') as Json[]).map((session) => [session['Id'], session['Url']]);
  assert.deepEqual(urls, [
    [4, null],
    [1, 'https://tickets.example/1'],
    [5, null],
    [2, 'https://tickets.example/2'],
    [3, null],
  ], 'on sale: the upstream Url; not on sale on the web: none');
  const again = await runCli(['sync', '--database', local, '--from', upstream.url]);
  assert.equal(again.status, 0, again.stderr);
  assert.match(again.stdout, /the upstream has not changed\./);
});
