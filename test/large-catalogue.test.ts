import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { test } from 'node:test';
import { compareCodePoints } from '../src/catalogue/code-points.js';
import { writeSyntheticCatalogue } from '../scripts/generate-catalogue.js';
import { DEMO_FILES, sessionAt, startTestApp, tempDir } from './helpers.js';

type Json = Record<string, unknown>;

test('a catalogue larger than one page of rows is served whole and in order', async () => {
  const files = await writeSyntheticCatalogue({ films: 2500, directory: join(await tempDir(), 'catalogue'), seed: 7 });
  const { app } = await startTestApp(files);
  const expected = (JSON.parse(await readFile(files[0] as string, 'utf8')) as Json[]).sort(
    (a, b) => (a['DisplaySequence'] as number) - (b['DisplaySequence'] as number) || compareCodePoints(a['Id'] as string, b['Id'] as string),
  );
  const response = await app.inject('/v4/film');
  assert.equal(response.statusCode, 200);
  assert.deepEqual(response.json(), expected);
  const packages = (await app.inject('/v1/filmpackage')).json<Json[]>();
  assert.deepEqual(packages, JSON.parse(await readFile(files[1] as string, 'utf8')));
});

test('a large catalogue is read and published a page at a time: other requests are answered meanwhile', async () => {
  const sessions = join(await tempDir(), 'sessions.json');
  const now = Date.now();
  await writeFile(sessions, JSON.stringify(Array.from({ length: 2000 }, (_, index) => sessionAt(index + 1, now + (index + 1) * 60_000))));
  const { app } = await startTestApp([...DEMO_FILES.filter((file) => !file.endsWith('sessions.json')), sessions]);
  // The first request for the sessions reads them and publishes them, a hundred at a time.
  let published = false;
  const first = app.inject('/v1/session').then((response) => {
    published = true;
    return response;
  });
  let answered = 0;
  while (!published) {
    assert.equal((await app.inject('/healthz')).statusCode, 200);
    answered += 1;
    // An injected request is answered without the network; one from a client waits for the next turn.
    await nextTurn();
  }
  assert.equal((await first).json<Json[]>().length, 2000);
  // Counted, not timed: a read or a publication held in one turn of the event loop would let
  // through only the requests that came before it.
  assert.ok(answered >= 20, `${answered} requests answered while the sessions were read and published`);
});
