import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { test } from 'node:test';
import { writeSyntheticCatalogue } from '../scripts/generate-catalogue.js';
import { XmlWriter } from '../src/formats/xml-writer.js';
import { exportFiles } from '../src/import/export-files.js';
import { openDatabase, parseDatabaseSpec } from '../src/store/database.js';
import { DEMO, exportCatalogue, freshDatabase, MARQUEE, ROOT, runCli, tempDir } from './helpers.js';

/** How long the kills go on, once the imports are timed; at least MIN_PART_WAY are made whatever it takes. */
const KILL_BUDGET_MS = 5_000;
const MIN_PART_WAY = 8;
/** However slow the machine, the test ends. */
const MAX_KILLS = 60;

/** The catalogue as export writes it, read in this process: a check after each kill without starting another. */
async function catalogueIn(database: string, directory: string): Promise<Record<string, string>> {
  const db = await openDatabase(parseDatabaseSpec(database));
  try {
    await exportFiles(db, new XmlWriter(), { customer: 'default', directory, format: 'json' });
  } finally {
    await db.close();
  }
  const files: Record<string, string> = {};
  for (const name of (await readdir(directory)).sort()) files[name.replace(/\.\w+$/, '')] = await readFile(join(directory, name), 'utf8');
  return files;
}

/** Milliseconds an import of `files` over the catalogue of `database` takes through the command line. */
async function timedImport(database: string, files: readonly string[]): Promise<number> {
  const started = Date.now();
  const result = await runCli(['import', '--database', database, '--replace', ...files]);
  assert.equal(result.status, 0, result.stderr);
  return Date.now() - started;
}

test('an import killed with SIGKILL at random moments, as many as fit in 5 s and at least 8 part-way, leaves the catalogue as it was or as it is after', { timeout: 170_000 }, async (t) => {
  const work = await tempDir();
  const big = await writeSyntheticCatalogue({ films: 3_000, directory: join(work, 'big'), seed: 3 });
  const reference = await freshDatabase();
  assert.equal((await runCli(['import', '--database', reference, DEMO])).status, 0);
  const demo = await catalogueIn(reference, join(work, 'demo'));
  // Each way: the files imported, how long it takes, and the catalogue it leaves.
  const toBig = { files: big, ms: await timedImport(reference, big), catalogue: await catalogueIn(reference, join(work, 'big-catalogue')) };
  const toDemo = { files: [DEMO], ms: await timedImport(reference, [DEMO]), catalogue: demo };
  assert.deepEqual(await catalogueIn(reference, join(work, 'demo-again')), demo);

  // The moments are drawn afresh on each run; the seed is reported so that a failure can be replayed.
  let seed = Number(process.env['MARQUEE_TEST_SEED'] ?? Date.now() % 2 ** 31);
  t.diagnostic(`kill moments drawn from seed ${seed} (MARQUEE_TEST_SEED)`);
  const draw = (): number => (seed = (seed * 48_271) % 2_147_483_647) / 2_147_483_647;

  // One database, imported one way and then the other: a kill either leaves it as it was, and
  // the same import is tried again, or as it is after, and the import back is tried next.
  const database = await freshDatabase();
  assert.equal((await runCli(['import', '--database', database, DEMO])).status, 0);
  let [from, to] = [toDemo, toBig];
  const deadline = Date.now() + KILL_BUDGET_MS;
  let kills = 0;
  let partWay = 0;
  while ((Date.now() < deadline || partWay < MIN_PART_WAY) && kills < MAX_KILLS) {
    const delayMs = Math.round(draw() * to.ms);
    const child = spawn(process.execPath, [MARQUEE, 'import', '--database', database, '--replace', ...to.files], { cwd: ROOT, stdio: 'ignore' });
    const exited = once(child, 'exit');
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    const stillRunning = child.exitCode === null;
    child.kill('SIGKILL');
    await exited;
    kills++;
    if (stillRunning) partWay++;
    const state = await catalogueIn(database, join(work, `kill-${kills}`));
    const finished = isDeepStrictEqual(state, to.catalogue);
    assert.ok(finished || isDeepStrictEqual(state, from.catalogue), `killed ${delayMs} ms into an import: the catalogue is neither the old nor the new one`);
    if (finished) [from, to] = [to, from];
  }
  t.diagnostic(`${kills} kills, ${partWay} of them part-way through an import`);
  assert.ok(partWay >= MIN_PART_WAY, `only ${partWay} of ${kills} imports were killed part-way through`);

  // The database is usable afterwards: the next import, run to its end, completes.
  const rerun = await runCli(['import', '--database', database, '--replace', ...to.files]);
  assert.equal(rerun.status, 0, rerun.stderr);
  assert.deepEqual(await exportCatalogue(database), to.catalogue);
});
