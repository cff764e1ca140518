import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { SqliteClient } from './sqlite-client.js';

/** Waits until `done` holds, failing after `timeoutMs`. */
async function until(done: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !done(); await sleep(5)) {
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs} ms`);
  }
}

test("each listener is told of another connection's commit, and one closed leaves the others told", { timeout: 20_000 }, async () => {
  const directory = await mkdtemp(join(tmpdir(), 'marquee-sqlite-listen-'));
  const listening = SqliteClient.open(join(directory, 'marquee.db'));
  const writing = SqliteClient.open(join(directory, 'marquee.db'));
  try {
    await writing.execute('CREATE TABLE t (n INTEGER)');
    const told = { first: 0, second: 0 };
    const first = listening.listen('a', () => told.first++);
    const second = listening.listen('b', () => told.second++);
    await writing.execute('INSERT INTO t VALUES (1)');
    await until(() => told.first === 1 && told.second === 1, 'both listeners were not told of the commit');

    await first.close();
    await writing.execute('INSERT INTO t VALUES (2)');
    await until(() => told.second === 2, 'the listener left was not told of the second commit');
    assert.equal(told.first, 1);

    // A commit of the listening connection itself is no signal.
    await second.close();
    const third = listening.listen('c', () => told.second++);
    await listening.execute('INSERT INTO t VALUES (3)');
    await sleep(100);
    assert.equal(told.second, 2);
    await third.close();
  } finally {
    await listening.close();
    await writing.close();
    await rm(directory, { recursive: true, force: true });
  }
});

test('a commit is told as the log is written after a quiet second, with no timer looking meanwhile, and every 20 ms while it is written', { timeout: 20_000 }, async (t) => {
  const directory = await mkdtemp(join(tmpdir(), 'marquee-sqlite-watch-'));
  const listening = SqliteClient.open(join(directory, 'marquee.db'));
  const writing = SqliteClient.open(join(directory, 'marquee.db'));
  try {
    await writing.execute('CREATE TABLE t (n INTEGER)');
    // Intervals fire only as the test moves their clock: a server doing nothing must not be woken to look.
    t.mock.timers.enable({ apis: ['setInterval'] });
    let told = 0;
    const subscription = listening.listen('a', () => told++);
    await writing.execute('INSERT INTO t VALUES (1)');
    await until(() => told === 1, 'the first commit was not told as the log was written');
    await writing.execute('INSERT INTO t VALUES (2)');
    await sleep(50);
    assert.equal(told, 1, 'while the database is written, commits are looked for every 20 ms, not at each write');
    t.mock.timers.tick(20);
    assert.equal(told, 2);
    // A second of looks that find no commit, and the log is waited for again.
    for (let look = 0; look < 50; look++) t.mock.timers.tick(20);
    await writing.execute('INSERT INTO t VALUES (3)');
    await until(() => told === 3, 'a commit after a quiet second was not told as the log was written');
    await subscription.close();
  } finally {
    await listening.close();
    await writing.close();
    await rm(directory, { recursive: true, force: true });
  }
});
