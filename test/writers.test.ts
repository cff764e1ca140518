/**
 * Writers on one database take turns: a command that finds another write under way waits for it,
 * says so once, and after --lock-timeout gives up having changed nothing. The long import here
 * reads its catalogue from a named pipe, so it holds the database exactly until the test has seen
 * what it waits for, however fast or slow the machine: no sleep of a guessed length.
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { constants, createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { syntheticFilmId, writeSyntheticCatalogue } from '../scripts/generate-catalogue.js';
import { openDatabase, parseDatabaseSpec } from '../src/store/database.js';
import { atEnd, DEMO, exportCatalogue, freshDatabase, MARQUEE, ROOT, runCli, tempDir, waitFor, writerLockHeld, type CliResult } from './helpers.js';
import { skippedByDesign } from './skipped-by-design.js';

type Json = Record<string, unknown>;

const WAITING = /^marquee: another import or change holds the database; waiting up to (\d+(\.\d+)?) s for it \(--lock-timeout\)$/m;
const TIMEOUT_MS = 60_000;
/** How long a started command may take to reach the point the test waits for, on a busy machine. */
const DEADLINE_MS = 20_000;

interface RunningCli {
  /** Standard error so far. */
  stderr(): string;
  readonly done: Promise<CliResult & { readonly ms: number }>;
}

/** Starts `marquee ARGS` without waiting for it to end; it is killed when the test file ends. */
function startCli(args: readonly string[], env: NodeJS.ProcessEnv = {}): RunningCli {
  const started = Date.now();
  const child = spawn(process.execPath, [MARQUEE, ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const done = once(child, 'close').then(([code]) => ({ status: (code as number | null) ?? 1, stdout, stderr, ms: Date.now() - started }));
  atEnd(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await done;
  });
  return { stderr: () => stderr, done };
}

interface LongImport {
  /** Sends the import its catalogue, and resolves when it has ended. */
  finish(): Promise<CliResult>;
}

/**
 * Opens a named pipe for writing once a reader has opened it: until then a plain open would
 * block, for ever if the reader had failed, while a non-blocking one fails with ENXIO.
 */
async function openPipeWhenRead(pipe: string): Promise<WriteStream> {
  let probe: FileHandle | undefined;
  await waitFor(async () => {
    probe = await open(pipe, constants.O_WRONLY | constants.O_NONBLOCK).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENXIO') return undefined;
      throw error;
    });
    return probe !== undefined;
  }, DEADLINE_MS);
  // The reader is there, so this opens at once; the probe, closed after it, never leaves the pipe without a writer.
  const stream = createWriteStream(pipe);
  await once(stream, 'open');
  await probe?.close();
  return stream;
}

/**
 * An import of 2,000 generated films that holds the database's write lock until `finish`: it
 * reads them from a named pipe, which the test feeds when it is ready.
 */
async function startLongImport(database: string): Promise<LongImport> {
  const dir = await tempDir();
  const [films] = await writeSyntheticCatalogue({ films: 2_000, directory: join(dir, 'long'), seed: 11 });
  const pipe = join(dir, 'films.json');
  await promisify(execFile)('mkfifo', [pipe]);
  const importing = startCli(['import', '--database', database, pipe]);
  await waitFor(() => writerLockHeld(database), DEADLINE_MS);
  return {
    async finish() {
      await pipeline(createReadStream(films as string), await openPipeWhenRead(pipe));
      return importing.done;
    },
  };
}

/** A database holding the demo catalogue, and a second catalogue that changes the long import's first ten films. */
async function setUp(): Promise<{ database: string; changes: string }> {
  const database = await freshDatabase();
  const demo = await runCli(['import', '--database', database, DEMO]);
  assert.equal(demo.status, 0, demo.stderr);
  const [changes] = await writeSyntheticCatalogue({ films: 10, packages: 0, directory: join(await tempDir(), 'changes'), seed: 11, edition: 2 });
  return { database, changes: changes as string };
}

async function titleOf(database: string, id: string): Promise<unknown> {
  const films = JSON.parse((await exportCatalogue(database)).films) as Json[];
  return films.find((film) => film['Id'] === id)?.['Title'];
}

async function listTokens(database: string): Promise<Json[]> {
  const listed = await runCli(['token', 'list', '--json', '--database', database]);
  assert.equal(listed.status, 0, listed.stderr);
  return JSON.parse(listed.stdout) as Json[];
}

describe('writers on one database', () => {
  test('an import started during another waits for it, says so once, and then succeeds', { timeout: TIMEOUT_MS }, async () => {
    const { database, changes } = await setUp();
    const long = await startLongImport(database);
    const second = startCli(['import', '--database', database, changes]);
    await waitFor(() => WAITING.test(second.stderr()), DEADLINE_MS);
    assert.match(second.stderr(), /waiting up to 60 s/);

    const first = await long.finish();
    assert.equal(first.status, 0, first.stderr);
    assert.match(first.stdout, /films 2000 added/);
    const { status, stdout, stderr } = await second.done;
    assert.equal(status, 0, stderr);
    // It ran after the first had committed: the ten films it brings were already there.
    assert.match(stdout, /films 0 added, 10 changed/);
    assert.equal(stderr.match(new RegExp(WAITING.source, 'gm'))?.length, 1, stderr);
    assert.match(String(await titleOf(database, syntheticFilmId(0))), /\(edition 2\)$/);
  });

  test('the writes of one process take turns there, in the order asked, and none finds the database held by another', { timeout: TIMEOUT_MS }, async () => {
    let waits = 0;
    const db = await openDatabase(parseDatabaseSpec(await freshDatabase()), { lockWait: { timeoutMs: TIMEOUT_MS, onWait: () => waits++ } });
    try {
      const committed: number[] = [];
      // Each holds the database over a pause, as a sync's write does over its round trips: many at once, as a sync process makes them.
      await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          db.transaction(async (tx) => {
            await tx.execute('UPDATE catalogue SET changed_at = changed_at');
            await sleep(20);
            committed.push(index);
          }),
        ),
      );
      assert.deepEqual(committed, Array.from({ length: 20 }, (_, index) => index));
      assert.equal(waits, 0, 'a write of this process waited for the database');
    } finally {
      await db.close();
    }
  });

  test('token revoke during an import waits for it and succeeds; token list answers at once', { timeout: TIMEOUT_MS }, async () => {
    const { database } = await setUp();
    const created = await runCli(['token', 'create', '--database', database, '--customer', 'default']);
    assert.equal(created.status, 0, created.stderr);
    const long = await startLongImport(database);

    // Reading needs no lock: it neither waits nor says it does.
    const listed = await runCli(['token', 'list', '--database', database]);
    assert.equal(listed.status, 0, listed.stderr);
    assert.equal(listed.stderr, '');
    const revoke = startCli(['token', 'revoke', '--database', database, '1']);
    await waitFor(() => WAITING.test(revoke.stderr()), DEADLINE_MS);

    assert.equal((await long.finish()).status, 0);
    const revoked = await revoke.done;
    assert.equal(revoked.status, 0, revoked.stderr);
    assert.match(revoked.stdout, /^Revoked token 1 of customer 'default'/);
    assert.match(String((await listTokens(database))[0]?.['revokedAt']), /^\d{4}-\d\d-\d\dT/, 'the token is revoked: its revocation has a time');
  });

  test('after --lock-timeout a waiting command fails, naming the flag, and changes nothing', { timeout: TIMEOUT_MS }, async () => {
    const { database, changes } = await setUp();
    const created = await runCli(['token', 'create', '--database', database, '--customer', 'default']);
    assert.equal(created.status, 0, created.stderr);
    const long = await startLongImport(database);

    const importing = startCli(['import', '--database', database, '--lock-timeout', '500', changes]);
    const revoking = startCli(['token', 'revoke', '--database', database, '1'], { MARQUEE_LOCK_TIMEOUT: '500' });
    const reporting = startCli(['import', '--database', database, '--lock-timeout', '500', '--json', changes]);
    for (const command of [importing, revoking, reporting]) {
      const { status, stdout, stderr, ms } = await command.done;
      assert.equal(status, 1, stderr);
      const report = { ok: false, dryRun: false, customer: 'default', error: 'another writer held the database for longer than 0.5 s' };
      assert.equal(stdout, command === reporting ? `${JSON.stringify(report)}\n` : '');
      assert.match(stderr, /waiting up to 0\.5 s for it \(--lock-timeout\)\n/);
      assert.match(stderr, /^marquee: another writer held the database for longer than 0\.5 s \(--lock-timeout\); nothing was changed$/m);
      assert.ok(ms >= 500, `gave up after ${ms} ms`);
    }

    assert.equal((await long.finish()).status, 0);
    const title = await titleOf(database, syntheticFilmId(0));
    assert.equal(typeof title, 'string', 'the film is still there');
    assert.doesNotMatch(String(title), /edition/);
    assert.equal((await listTokens(database))[0]?.['revokedAt'], null);
  });

  const DISK_FULL = 'an import that fills the disk says so, and leaves the catalogue as it was';
  test(DISK_FULL, {
    timeout: TIMEOUT_MS,
    // Not root is no design of the suite: CI runs as root, and run-tests fails a CI run that skips this.
    skip: skippedByDesign(DISK_FULL) || (process.getuid?.() !== 0 && 'mounting a small file system needs root'),
  }, async () => {
    // A 1 MiB file system holds the demo catalogue but not 3,000 more films.
    const disk = join(await tempDir(), 'disk');
    await mkdir(disk);
    await promisify(execFile)('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', disk]);
    atEnd(() => promisify(execFile)('umount', [disk]));
    const database = join(disk, 'marquee.db');
    assert.equal((await runCli(['import', '--database', database, DEMO])).status, 0);
    const before = await exportCatalogue(database);
    const big = await writeSyntheticCatalogue({ films: 3_000, directory: join(await tempDir(), 'big'), seed: 5 });

    const { status, stdout, stderr } = await runCli(['import', '--database', database, ...big]);
    assert.equal(status, 1, stderr);
    assert.equal(stdout, '');
    // A slow machine may show the import's progress first.
    const said = stderr.split('\n').filter((line) => !line.startsWith('progress: '));
    assert.deepEqual(said, [`marquee: the disk holding ${database} is full (SQLITE_FULL); nothing was changed`, '']);
    assert.ok((JSON.parse(before.films) as Json[]).length > 0);
    assert.deepEqual(await exportCatalogue(database), before);
  });
});
