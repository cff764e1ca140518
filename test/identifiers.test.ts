/** Film ids as the contract has them: exact strings, ordered by code point, on every database. */
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { compareCodePoints } from '../src/catalogue/code-points.js';
import { DEMO, freshDatabase, runCli, tempDir } from './helpers.js';

type Json = Record<string, unknown>;

test('ids differing only in case or normalization are distinct films, listed by code point, whatever the database collation', async () => {
  // On PostgreSQL, a collation that orders "a" before "B" and sets case and accents aside at its
  // first levels: nothing may depend on it.
  const database = await freshDatabase({ postgresIcuLocale: 'und-u-ks-level2' });
  const [template] = JSON.parse(await readFile(join(DEMO, 'films.json'), 'utf8')) as Json[];
  const ids = ['b', 'B', 'a', 'A', 'e\u0301', '\u00e9', '\uFFFD', '\u{1D49C}', 'Z', '10', '9'];
  const work = await tempDir();
  const file = join(work, 'films.json');
  await writeFile(file, JSON.stringify(ids.map((id) => ({ ...template, Id: id, Title: `Film ${id}`, DisplaySequence: 1 }))));
  const imported = await runCli(['import', '--database', database, file]);
  assert.equal(imported.status, 0, imported.stderr);

  const retitled = join(work, 'retitled.json');
  await writeFile(retitled, JSON.stringify({ ...template, Id: 'a', Title: 'Only lower-case a', DisplaySequence: 1 }));
  assert.equal((await runCli(['import', '--database', database, retitled])).status, 0);

  const out = join(work, 'out');
  assert.equal((await runCli(['export', '--database', database, '--out', out])).status, 0);
  const films = JSON.parse(await readFile(join(out, 'films.json'), 'utf8')) as Json[];
  assert.deepEqual(films.map((film) => film['Id']), [...ids].sort(compareCodePoints));
  assert.deepEqual(
    films.filter((film) => film['Title'] !== `Film ${String(film['Id'])}`).map((film) => film['Id']),
    ['a'],
    'replacing "a" left "A" alone',
  );
});
