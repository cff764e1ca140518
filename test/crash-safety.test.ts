import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { writeSyntheticCatalogue } from '../scripts/generate-catalogue.js';
import { DEMO, MARQUEE, ROOT, freshDatabase, runCli, tempDir } from './helpers.js';

async function exported(database: string): Promise<string> {
  const out = join(await tempDir(), 'export');
  const result = await runCli(['export', '--database', database, '--out', out]);
  assert.equal(result.status, 0, result.stderr);
  return (await readFile(join(out, 'films.json'), 'utf8')) + (await readFile(join(out, 'filmpackages.json'), 'utf8'));
}

test('an import killed with SIGKILL at any moment leaves the catalogue as it was or as it is after', async () => {
  const big = await writeSyntheticCatalogue({ films: 8_000, directory: join(await tempDir(), 'big'), seed: 3 });
  const reference = await freshDatabase();
  assert.equal((await runCli(['import', '--database', reference, DEMO])).status, 0);
  const before = await exported(reference);
  const started = Date.now();
  assert.equal((await runCli(['import', '--database', reference, '--replace', ...big])).status, 0);
  const importMs = Date.now() - started;
  const after = await exported(reference);

  // Kills spread over the run, whatever the speed of the machine.
  let killedPartWay = 0;
  for (const delayMs of [0.15, 0.35, 0.55, 0.75, 0.9].map((fraction) => fraction * importMs)) {
    const database = await freshDatabase();
    assert.equal((await runCli(['import', '--database', database, DEMO])).status, 0);
    const child = spawn(process.execPath, [MARQUEE, 'import', '--database', database, '--replace', ...big], { cwd: ROOT, stdio: 'ignore' });
    const exited = once(child, 'exit');
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    const stillRunning = child.exitCode === null;
    child.kill('SIGKILL');
    await exited;
    if (stillRunning) killedPartWay++;
    const state = await exported(database);
    assert.ok(state === before || state === after, `killed after ${Math.round(delayMs)} ms: the catalogue is neither the old nor the new one`);
    if (delayMs === 0.9 * importMs) {
      // The database is usable afterwards: the same import, run again, completes.
      const rerun = await runCli(['import', '--database', database, '--replace', ...big]);
      assert.equal(rerun.status, 0, rerun.stderr);
      assert.equal(await exported(database), after);
    }
  }
  assert.ok(killedPartWay >= 3, `only ${killedPartWay} of the imports were killed part-way through`);
});
