import assert from 'node:assert/strict';
import { once } from 'node:events';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { writeSyntheticCatalogue } from '../scripts/generate-catalogue.js';
import { DEMO, freshDatabase, runCli, serve, tempDir, waitFor } from './helpers.js';

test('serve answers on a real port, follows imports, and stops cleanly on SIGTERM', async () => {
  const database = await freshDatabase();
  const server = await serve(['--database', database, '--seed', DEMO], { MARQUEE_XML_NAMESPACE: 'urn:example:cinema' });
  try {
    const xml = await fetch(`${server.url}/v1/filmpackage`, { headers: { accept: 'application/xml' } });
    assert.equal(xml.status, 200);
    assert.equal(xml.headers.get('content-type'), 'application/xml; charset=utf-8');
    assert.match(await xml.text(), /^<ArrayOfFilmPackage xmlns:i="http:\/\/www\.w3\.org\/2001\/XMLSchema-instance" xmlns="urn:example:cinema"><FilmPackage>/);
    assert.ok(server.logs.some((entry) => entry['msg'] === 'seeded the empty catalogue'));

    const film = await (await fetch(`${server.url}/v4/film/HO00000101`)).json() as Record<string, unknown>;
    const file = join(await tempDir(), 'retitled.json');
    await writeFile(file, JSON.stringify({ ...film, Title: 'Nosferatu (restored)' }));
    const imported = await runCli(['import', '--database', database, file]);
    assert.equal(imported.status, 0, imported.stderr);
    await waitFor(async () => {
      const current = await (await fetch(`${server.url}/v4/film/HO00000101`)).json() as Record<string, unknown>;
      return current['Title'] === 'Nosferatu (restored)';
    }, 2000);
  } finally {
    server.child.kill('SIGTERM');
  }
  const [code] = await once(server.child, 'exit');
  assert.equal(code, 0);
});

test('a second start with --seed keeps the catalogue it already has', async () => {
  const database = await freshDatabase();
  const file = join(await tempDir(), 'one.json');
  const films = JSON.parse(await readFile(join(DEMO, 'films.json'), 'utf8')) as unknown[];
  await writeFile(file, JSON.stringify(films[0]));
  assert.equal((await runCli(['import', '--database', database, file])).status, 0);
  const server = await serve(['--database', database, '--seed', DEMO]);
  try {
    const list = await (await fetch(`${server.url}/v4/film`)).json() as unknown[];
    assert.equal(list.length, 1);
  } finally {
    server.child.kill('SIGTERM');
    await once(server.child, 'exit');
  }
});

test('while a server reloads, no request fails and each answer is wholly the old or the new catalogue, requests in flight during the reload included', async () => {
  const database = await freshDatabase();
  const before = await writeSyntheticCatalogue({ films: 3000, directory: join(await tempDir(), 'before'), seed: 11 });
  const after = await writeSyntheticCatalogue({ films: 3000, directory: join(await tempDir(), 'after'), seed: 11, edition: 2 });
  assert.equal((await runCli(['import', '--database', database, ...before])).status, 0);
  const server = await serve(['--database', database]);
  const oldList = await (await fetch(`${server.url}/v4/film`)).text();
  const logsBefore = server.logs.length;

  let importing = true;
  const answers: { body: string; sent: number; received: number }[] = [];
  const load = (async () => {
    while (importing) {
      const sent = Date.now();
      const response = await fetch(`${server.url}/v4/film`);
      assert.equal(response.status, 200);
      answers.push({ body: await response.text(), sent, received: Date.now() });
    }
  })();
  assert.equal((await runCli(['import', '--database', database, '--replace', ...after])).status, 0);
  await waitFor(async () => answers.length > 0 && answers.at(-1)?.body !== oldList, 60_000);
  importing = false;
  await load;
  const newList = answers.at(-1)?.body;
  assert.notEqual(newList, oldList);
  assert.ok(answers.every(({ body }) => body === oldList || body === newList), 'every answer is one whole catalogue');

  // The reload ran from the build's start to the log line that says the second version was
  // published (the first version's line may arrive after the first answer).
  const isPublished = (entry: Record<string, unknown>): boolean => entry['msg'] === 'catalogue published' && entry['version'] === 2;
  await waitFor(() => server.logs.slice(logsBefore).some(isPublished), 60_000);
  const published = server.logs.slice(logsBefore).find(isPublished) ?? {};
  const [publishedAt, buildMs] = [Number(published['time']), Number(published['durationMs'])];
  const overlapping = answers.filter(({ sent, received }) => sent <= publishedAt && received >= publishedAt - buildMs);
  assert.ok(overlapping.length > 0, `a request was in flight during the reload (${buildMs} ms to ${new Date(publishedAt).toISOString()}): ${answers.length} requests`);
  server.child.kill('SIGTERM');
  await server.exited;
});
