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

test('a commit is told as the log is written, with no timer looking for it meanwhile', { timeout: 20_000 }, async (t) => {
  const directory = await mkdtemp(join(tmpdir(), 'marquee-sqlite-watch-'));
  const listening = SqliteClient.open(join(directory, 'marquee.db'));
  const writing = SqliteClient.open(join(directory, 'marquee.db'));
  try {
    await writing.execute('CREATE TABLE t (n INTEGER)');
    // An interval never fires from here on: a server doing nothing must not be woken to look.
    t.mock.timers.enable({ apis: ['setInterval'] });
    let told = 0;
    const subscription = listening.listen('a', () => told++);
    for (const n of [1, 2, 3]) {
      await writing.execute(`INSERT INTO t VALUES (${n})`);
      await until(() => told === n, `commit ${n} was not told`);
    }
    await subscription.close();
  } finally {
    await listening.close();
    await writing.close();
    await rm(directory, { recursive: true, force: true });
  }
});
