/**
 * `marquee import` runs as a batch job, below the server's CPU priority: on a small machine the
 * server answers first. The import reads its catalogue from a named pipe, so it is still running
 * while the test reads its priority, however fast or slow the machine.
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { atEnd, DEMO, freshDatabase, MARQUEE, ROOT, tempDir, waitFor } from './helpers.js';

const DEADLINE_MS = 20_000;

/** The niceness of process `pid`, the 19th field of /proc/PID/stat (the 17th after the command). */
async function nicenessOf(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]?.split(' ') ?? [];
  return Number(fields[16]);
}

test('an import runs at a lower CPU priority than the server, and imports as ever', { timeout: 60_000 }, async () => {
  const database = await freshDatabase();
  const pipe = join(await tempDir(), 'films.json');
  await promisify(execFile)('mkfifo', [pipe]);
  const child = spawn(process.execPath, [MARQUEE, 'import', '--database', database, pipe], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => (output += text));
  child.stderr.setEncoding('utf8').on('data', (text: string) => (output += text));
  const exited = once(child, 'close');
  atEnd(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  });
  assert.equal(await nicenessOf(process.pid), 0, 'the test itself runs at the default priority');
  await waitFor(async () => (await nicenessOf(child.pid as number)) === 10, DEADLINE_MS);
  // Opening the pipe for writing waits for the import to open it for reading: it is past its start.
  await pipeline(createReadStream(join(DEMO, 'films.json')), createWriteStream(pipe));
  const [status] = (await exited) as [number | null];
  assert.equal(status, 0, output);
  assert.match(output, /films \d+ added/);
});
