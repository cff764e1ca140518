import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { compareCodePoints } from '../src/catalogue/code-points.js';
import { writeSyntheticCatalogue } from '../scripts/generate-catalogue.js';
import { startTestApp, tempDir } from './helpers.js';

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
