/**
 * The change feed (CONTRACT §14) through running servers: `/changes?since=` for a secret token,
 * refused to a publishable key, paged by `limit`, and 410 for a `since` older than what
 * --change-retention keeps. The feed and the cache tags are in /openapi.json.
 */
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { DEMO, freshDatabase, runCli, serve, tempDir, waitFor, type ServerProcess } from './helpers.js';

let database: string;
let secret: string;
let publishable: string;
let server: ServerProcess;

interface Feed {
  readonly events: { type: string; timestamp: string; data: { customer: string; version: number; changes: Record<string, unknown>; tags: string[] } }[];
  readonly next: number;
}

async function feed(query: string, token = secret): Promise<Response> {
  return fetch(`${server.url}/changes${query}`, { headers: { authorization: `Bearer ${token}` } });
}

before(async () => {
  database = await freshDatabase();
  const [film] = JSON.parse(await readFile(join(DEMO, 'films.json'), 'utf8')) as [Record<string, unknown>];
  const file = join(await tempDir(), 'films.json');
  for (const args of [[DEMO], [file], [file]]) {
    await writeFile(file, JSON.stringify([{ ...film, Title: `Nosferatu ${Math.random()}` }]));
    const imported = await runCli(['import', '--database', database, ...args]);
    assert.equal(imported.status, 0, imported.stderr);
  }
  secret = (await runCli(['token', 'create', '--database', database, '--customer', 'default'])).stdout.trim();
  publishable = (await runCli(['token', 'create', '--database', database, '--customer', 'default', '--public'])).stdout.trim();
  server = await serve(['--database', database]);
});

test("a secret token reads its customer's changes after a version, oldest first, a page at a time", async () => {
  const all = (await (await feed('?since=0')).json()) as Feed;
  assert.deepEqual(
    all.events.map((event) => [event.type, event.data.customer, event.data.version]),
    [
      ['catalogue.changed', 'default', 1],
      ['catalogue.changed', 'default', 2],
      ['catalogue.changed', 'default', 3],
    ],
  );
  assert.equal(all.next, 3);
  assert.deepEqual(Object.keys(all.events[0]?.data.changes ?? {}).sort(), ['attributes', 'films', 'packages', 'screens', 'sessions', 'site']);
  assert.deepEqual(Object.keys(all.events[1]?.data.changes ?? {}), ['films']);
  const firstPage = (await (await feed('?since=0&limit=2')).json()) as Feed;
  assert.deepEqual([firstPage.events.map((event) => event.data.version), firstPage.next], [[1, 2], 2]);
  const rest = (await (await feed(`?since=${firstPage.next}&limit=2`)).json()) as Feed;
  assert.deepEqual([rest.events.map((event) => event.data.version), rest.next], [[3], 3]);
  const none = (await (await feed('?since=3')).json()) as Feed;
  assert.deepEqual(none, { events: [], next: 3 });
});

test('a publishable key is refused, as is a bad since or limit', async () => {
  const refused = await feed('?since=0', publishable);
  assert.equal(refused.status, 403);
  assert.equal((await fetch(`${server.url}/changes?since=0`)).status, 401);
  for (const [query, parameter] of [
    ['', 'since'],
    ['?since=abc', 'since'],
    ['?since=-1', 'since'],
    ['?since=0&limit=0', 'limit'],
    ['?since=0&limit=1001', 'limit'],
  ] as const) {
    const answer = await feed(query);
    assert.equal(answer.status, 400, query);
    assert.match(((await answer.json()) as { detail: string }).detail, new RegExp(`The ${parameter} parameter must be`));
  }
});

test('the feed and the cache tags are in /openapi.json', async () => {
  const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as { paths: Record<string, { get: { responses: Record<string, { headers?: Record<string, unknown> }> } }> };
  assert.ok(document.paths['/changes']?.get.responses['410']);
  assert.ok(document.paths['/v4/film']?.get.responses['200']?.headers?.['Surrogate-Key']);
  assert.ok(document.paths['/programme']?.get.responses['200']?.headers?.['Cache-Tag']);
});

test('a since older than --change-retention keeps answers 410, naming the version to follow from', async () => {
  const [last] = ((await (await feed('?since=2')).json()) as Feed).events;
  server.child.kill('SIGTERM');
  await server.exited;
  // Every change is older than the retention once a second has passed since the last.
  await waitFor(() => Date.now() - Date.parse(last?.timestamp ?? '') > 1000, 10_000);
  server = await serve(['--database', database, '--change-retention', '1s']);
  await waitFor(async () => (await feed('?since=0')).status === 410, 30_000);
  const gone = await feed('?since=2');
  assert.equal(gone.status, 410);
  assert.match(((await gone.json()) as { detail: string }).detail, /follow the changes after version 3/);
  assert.deepEqual(await (await feed('?since=3')).json(), { events: [], next: 3 });
  const badRetention = await runCli(['serve', '--database', database, '--change-retention', '7 days']);
  assert.equal(badRetention.status, 2);
  assert.match(badRetention.stderr, /--change-retention must be a length of time such as 7d, 12h, 30m or 90s, got '7 days'/);
});
