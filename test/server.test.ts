import assert from 'node:assert/strict';
import { once } from 'node:events';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { DEMO, freshDatabase, runCli, tempDir } from './helpers.js';
import { serve, waitFor } from './serve-process.js';

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
