import assert from 'node:assert/strict';
import { test } from 'node:test';
import { QueueFullError, WorkQueue } from './work-queue.js';

test('runs at most `parallel` at once, the others in order, and refuses beyond those waiting', { timeout: 10_000 }, async () => {
  const queue = new WorkQueue(2, 2);
  let running = 0;
  let most = 0;
  const started: number[] = [];
  const releases: (() => void)[] = [];
  const job = (n: number) => () => {
    started.push(n);
    running++;
    most = Math.max(most, running);
    return new Promise<number>((resolve) => releases.push(() => (running--, resolve(n))));
  };
  const jobs = [1, 2, 3, 4].map((n) => queue.run(job(n)));
  await assert.rejects(queue.run(job(5)), QueueFullError);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(started, [1, 2]);
  while (releases.length > 0) {
    releases.shift()?.();
    await new Promise((resolve) => setImmediate(resolve));
  }
  assert.deepEqual(await Promise.all(jobs), [1, 2, 3, 4]);
  assert.deepEqual(started, [1, 2, 3, 4]);
  assert.equal(most, 2);
});
