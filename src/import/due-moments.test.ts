import assert from 'node:assert/strict';
import { test } from 'node:test';
import { seededRandom } from '../../scripts/generate-catalogue.js';
import { DueMoments } from './due-moments.js';

test('customers due at one moment are due in the order they were set', { timeout: 5000 }, () => {
  const due = new DueMoments();
  for (const customer of ['c', 'a', 'b']) due.set(customer, 100);
  due.set('early', 50);
  due.set('later', 200);
  assert.deepEqual(due.dueBy(100), ['early', 'c', 'a', 'b']);
  assert.equal(due.nextAfter(100, () => true), 200);
  assert.equal(due.nextAfter(100, (customer) => customer !== 'later'), undefined);
});

test('the next moment is of a customer that counts, however early one that does not falls due', { timeout: 5000 }, () => {
  const due = new DueMoments();
  due.set('syncing', 200);
  due.set('waiting', 300);
  assert.equal(due.nextAfter(100, (customer) => customer !== 'syncing'), 300);
  due.set('syncing', 400);
  assert.equal(due.nextAfter(100, () => true), 300);
});

test('which customers are due, and when the next falls due, are what every moment set, moved and deleted says', { timeout: 10_000 }, () => {
  const draw = seededRandom(7);
  const random = (below: number): number => Math.floor(draw() * below);
  const due = new DueMoments();
  const moments = new Map<string, number>();
  /** The step at which each customer's moment was last set to another. */
  const setAt = new Map<string, number>();
  for (let step = 0; step < 20_000; step++) {
    const customer = `cinema-${random(300)}`;
    if (random(10) === 0) {
      due.delete(customer);
      moments.delete(customer);
    } else {
      const at = random(1000);
      due.set(customer, at);
      if (moments.get(customer) !== at) setAt.set(customer, step);
      moments.set(customer, at);
    }
    if (step % 50 !== 0) continue;
    const now = random(1000);
    const dueNow = due.dueBy(now);
    const expected = [...moments].filter(([, at]) => at <= now);
    assert.deepEqual(new Set(dueNow), new Set(expected.map(([name]) => name)), `step ${step}`);
    assert.equal(dueNow.length, expected.length, `step ${step}: each customer once`);
    const order = (name: string): [number, number] => [moments.get(name) as number, setAt.get(name) as number];
    const inOrder = [...dueNow].sort((a, b) => order(a)[0] - order(b)[0] || order(a)[1] - order(b)[1]);
    assert.deepEqual(dueNow, inOrder, `step ${step}: earliest first, and in the order set at one moment`);
    const counts = (name: string): boolean => !name.endsWith('7');
    const later = [...moments].filter(([name, at]) => at > now && counts(name)).map(([, at]) => at);
    assert.equal(due.nextAfter(now, counts), later.length === 0 ? undefined : Math.min(...later), `step ${step}`);
  }
});
