/**
 * Cache tags (CONTRACT §14) through a running server: every catalogue and programme answer names
 * its customer and the kinds of record it reads in `Surrogate-Key` and `Cache-Tag`, and after a
 * change of each kind, committed by `marquee import`, every answer whose bytes changed carries one
 * of the tags of the change's event, and every answer that carries none is byte for byte as it was:
 * a seat sold never purges the film list.
 */
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { SERVE_COMMAND } from '../src/cli/serve-command.js';
import { resolveSettings } from '../src/config.js';
import { startServer, type RunningServer } from '../src/server/serve.js';
import { DEMO, freshDatabase, runCli, tempDir, waitFor } from './helpers.js';

type DemoRecord = Record<string, unknown>;

let database: string;
let server: RunningServer;
let version = 1;
const demo = async (name: string): Promise<DemoRecord[]> => JSON.parse(await readFile(join(DEMO, `${name}.json`), 'utf8')) as DemoRecord[];
const [film] = (await demo('films')) as [DemoRecord];
const [filmPackage] = (await demo('filmpackages')) as [DemoRecord];
const [session] = (await demo('sessions')) as [DemoRecord];
const [screen] = (await demo('screens')) as [DemoRecord];
const [attribute] = (await demo('attributes')) as [DemoRecord];
const site = JSON.parse(await readFile(join(DEMO, 'site.json'), 'utf8')) as DemoRecord;

/** Every answer of the catalogue and the programme that one of the changes below could touch, or leave alone. */
const PATHS = [
  '/v4/film',
  `/v4/film/${String(film['Id'])}`,
  '/v1/film',
  '/v1/filmpackage',
  `/v1/filmpackage/${String(filmPackage['Id'])}`,
  '/v1/screen',
  `/v1/screen/${String(screen['Id'])}`,
  '/v1/attribute',
  `/v1/attribute/${String(attribute['Id'])}`,
  '/v1/session',
  `/v1/session/${String(session['Id'])}`,
  '/v1/websession',
  '/v1/site',
  '/programme?from=2025-01-06&days=14&sessions=all',
  '/programme.ics?from=2025-01-06&days=14&sessions=all',
  '/programme.jsonld?from=2025-01-06&days=14&sessions=all',
  '/whats-on?from=2025-01-06&days=14&sessions=all',
];

interface Answer {
  readonly body: string;
  readonly tags: readonly string[];
}

async function answer(path: string): Promise<Answer> {
  const response = await fetch(`${server.url}${path}`);
  assert.equal(response.status, 200, path);
  const surrogateKey = response.headers.get('surrogate-key') ?? '';
  assert.equal(response.headers.get('cache-tag'), surrogateKey.replaceAll(' ', ','), path);
  return { body: await response.text(), tags: surrogateKey.split(' ') };
}

async function answers(): Promise<Map<string, Answer>> {
  return new Map(await Promise.all(PATHS.map(async (path) => [path, await answer(path)] as const)));
}

/** Commits one record of a kind, altered, and returns the tags of the change's event once the server answers from it. */
async function commit(name: string, records: unknown, changedPath: string, before: Map<string, Answer>): Promise<string[]> {
  const file = join(await tempDir(), `${name}.json`);
  await writeFile(file, JSON.stringify(records));
  const imported = await runCli(['import', '--database', database, file]);
  assert.equal(imported.status, 0, imported.stderr);
  version += 1;
  const feed = (await (await fetch(`${server.url}/changes?since=${version - 1}`)).json()) as { events: { data: { version: number; tags: string[] } }[] };
  const [event] = feed.events;
  assert.equal(event?.data.version, version);
  await waitFor(async () => (await answer(changedPath)).body !== before.get(changedPath)?.body, 30_000);
  return event.data.tags;
}

before(async () => {
  database = await freshDatabase();
  const imported = await runCli(['import', '--database', database, DEMO]);
  assert.equal(imported.status, 0, imported.stderr);
  server = await startServer({ settings: resolveSettings(SERVE_COMMAND.settings, { database, port: '0', 'log-level': 'silent' }), seedFiles: [] });
});

after(() => server.close());

test('each answer names its customer, without its key, and the kinds it reads', async () => {
  const tagsOf = async (path: string): Promise<string[]> => [...(await answer(path)).tags];
  const [customer, ...kinds] = await tagsOf('/v4/film');
  assert.match(customer ?? '', /^mq-[\w-]{22}$/);
  assert.ok(!(customer ?? '').includes('default'));
  assert.deepEqual(kinds, [`${customer}-films`]);
  assert.deepEqual(await tagsOf(`/v1/session/${String(session['Id'])}`), [customer, `${customer}-sessions`]);
  assert.deepEqual(await tagsOf('/v1/websession'), [customer, `${customer}-sessions`, `${customer}-site`]);
  const everything = ['films', 'packages', 'sessions', 'screens', 'attributes', 'site'].map((kind) => `${customer}-${kind}`);
  assert.deepEqual(await tagsOf('/programme'), [customer, ...everything]);
  // A film not found is found once a change of films adds it: the 404 names films too.
  const missing = await fetch(`${server.url}/v4/film/NOT-YET`);
  assert.equal(missing.status, 404);
  assert.equal(missing.headers.get('surrogate-key'), `${customer} ${customer}-films`);
  // A 304 carries them too, as a CDN revalidating keeps them.
  const first = await fetch(`${server.url}/v1/site`);
  const revalidated = await fetch(`${server.url}/v1/site`, { headers: { 'if-none-match': first.headers.get('etag') ?? '' } });
  assert.equal(revalidated.status, 304);
  assert.equal(revalidated.headers.get('surrogate-key'), first.headers.get('surrogate-key'));
});

const CHANGES: readonly { readonly kind: string; readonly file: string; readonly records: () => unknown; readonly changedPath: string }[] = [
  { kind: 'sessions', file: 'sessions', records: () => [{ ...session, SeatsSold: Number(session['SeatsSold']) + 1 }], changedPath: `/v1/session/${String(session['Id'])}` },
  { kind: 'films', file: 'films', records: () => [{ ...film, Title: 'Nosferatu, restored' }], changedPath: `/v4/film/${String(film['Id'])}` },
  { kind: 'packages', file: 'filmpackages', records: () => [{ ...filmPackage, Title: 'A double feature' }], changedPath: `/v1/filmpackage/${String(filmPackage['Id'])}` },
  { kind: 'screens', file: 'screens', records: () => [{ ...screen, Name: 'The Very Grand' }], changedPath: `/v1/screen/${String(screen['Id'])}` },
  { kind: 'attributes', file: 'attributes', records: () => [{ ...attribute, Description: 'Subtitled in English' }], changedPath: `/v1/attribute/${String(attribute['Id'])}` },
  { kind: 'site', file: 'site', records: () => ({ ...site, Name: 'The Marquee' }), changedPath: '/v1/site' },
];

for (const { kind, file, records, changedPath } of CHANGES) {
  test(`after a change of ${kind}, every answer whose bytes changed carries one of the event's tags, and no other answer changed`, async () => {
    const before = await answers();
    const tags = await commit(file, records(), changedPath, before);
    assert.equal(tags.length, 1);
    assert.match(tags[0] ?? '', new RegExp(`-${kind}$`));
    const after = await answers();
    const changed: string[] = [];
    for (const path of PATHS) {
      const [was, is] = [before.get(path) as Answer, after.get(path) as Answer];
      const purged = is.tags.some((tag) => tags.includes(tag));
      if (was.body !== is.body) changed.push(path);
      assert.ok(purged || was.body === is.body, `${path} changed, but carries none of the tags ${tags.join(', ')}`);
    }
    assert.ok(changed.includes(changedPath), `${changedPath} did not change`);
    if (kind === 'sessions') assert.ok(!changed.includes('/v4/film') && !(after.get('/v4/film') as Answer).tags.some((tag) => tags.includes(tag)), 'a seat sold purges the film list');
  });
}
