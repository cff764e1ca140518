import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nextSlot, phaseOf, retryDelay } from './sync-schedule.js';

const MINUTE = 60_000;
const customers = Array.from({ length: 1000 }, (_, index) => `cinema-${String(index + 1).padStart(4, '0')}`);

test("a thousand customers' syncs are spread evenly over the interval", { timeout: 5000 }, () => {
  const tenths = Array<number>(10).fill(0);
  for (const customer of customers) {
    const phase = phaseOf(customer, MINUTE);
    assert.ok(phase >= 0 && phase < MINUTE);
    tenths[Math.floor(phase / (MINUTE / 10))] = (tenths[Math.floor(phase / (MINUTE / 10))] ?? 0) + 1;
  }
  for (const count of tenths) assert.ok(count >= 70 && count <= 130, tenths.join(' '));
});

test("each customer's next sync is its own moment, half an interval to an interval and a half after a read, an interval after the last", { timeout: 5000 }, () => {
  const start = Date.UTC(2026, 10, 26, 12, 0, 0);
  for (const customer of customers.slice(0, 50)) {
    const phase = phaseOf(customer, MINUTE);
    // At start, at one of its moments, a moment before one, and anywhere.
    for (const after of [start, start + phase, start + phase - 1000, start + 12_345_678]) {
      const next = nextSlot(customer, after, MINUTE);
      assert.ok(next > after + MINUTE / 2 && next <= after + 1.5 * MINUTE, `${customer}: ${next - after}`);
      assert.equal(next % MINUTE, phaseOf(customer, MINUTE));
      assert.equal(nextSlot(customer, next, MINUTE), next + MINUTE);
    }
  }
});

test('retries wait twice as long after each failure, at a random point of the second half', { timeout: 5000 }, () => {
  assert.equal(retryDelay(1, 1000, () => 0), 500);
  assert.equal(retryDelay(1, 1000, () => 0.999_999), 999.9995);
  assert.equal(retryDelay(3, 1000, () => 0), 2000);
  assert.equal(retryDelay(3, 1000, () => 1), 4000);
  const delays = new Set(Array.from({ length: 20 }, () => retryDelay(2, 1000)));
  assert.ok(delays.size > 1, 'jittered');
  for (const delay of delays) assert.ok(delay >= 1000 && delay <= 2000);
});
