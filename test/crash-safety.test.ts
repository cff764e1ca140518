import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { test } from 'node:test';
import { writeSyntheticCatalogue } from '../scripts/generate-catalogue.js';
import { DEMO, exportCatalogue, freshDatabase, MARQUEE, ROOT, runCli, tempDir } from './helpers.js';


test('an import killed with SIGKILL at any moment leaves the catalogue as it was or as it is after', async () => {
  const big = await writeSyntheticCatalogue({ films: 8_000, directory: join(await tempDir(), 'big'), seed: 3 });
  const reference = await freshDatabase();
  assert.equal((await runCli(['import', '--database', reference, DEMO])).status, 0);
  const before = await exportCatalogue(reference);
  const started = Date.now();
  assert.equal((await runCli(['import', '--database', reference, '--replace', ...big])).status, 0);
  let importMs = Date.now() - started;
  const after = await exportCatalogue(reference);

  // Kills spread over the run, whatever the speed of the machine. Other tests share it, so the
  // timed import may have run slow: one that ends before its kill shortens the run the later
  // kills are spread over.
  let killedPartWay = 0;
  for (const fraction of [0.15, 0.35, 0.55, 0.75, 0.9]) {
    const delayMs = fraction * importMs;
    const database = await freshDatabase();
    assert.equal((await runCli(['import', '--database', database, DEMO])).status, 0);
    const spawned = Date.now();
    const child = spawn(process.execPath, [MARQUEE, 'import', '--database', database, '--replace', ...big], { cwd: ROOT, stdio: 'ignore' });
    const exited = once(child, 'exit').then(() => Date.now() - spawned);
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    const stillRunning = child.exitCode === null;
    child.kill('SIGKILL');
    const ranMs = await exited;
    if (stillRunning) killedPartWay++;
    else importMs = Math.min(importMs, ranMs);
    const state = await exportCatalogue(database);
    assert.ok(isDeepStrictEqual(state, before) || isDeepStrictEqual(state, after), `killed after ${Math.round(delayMs)} ms: the catalogue is neither the old nor the new one`);
    if (fraction === 0.9) {
      // The database is usable afterwards: the same import, run again, completes.
      const rerun = await runCli(['import', '--database', database, '--replace', ...big]);
      assert.equal(rerun.status, 0, rerun.stderr);
      assert.deepEqual(await exportCatalogue(database), after);
    }
  }
  assert.ok(killedPartWay >= 3, `only ${killedPartWay} of the imports were killed part-way through`);
});
