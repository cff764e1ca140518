import assert from 'node:assert/strict';
import { test } from 'node:test';
import { retryAfterMs, tryOutcome } from './retry-schedule.js';

const HOUR = 3_600_000;
const now = Date.parse('2026-11-27T12:00:00Z');
const middle = (): number => 0.5;
const fresh = { failures: 0, failingSince: null };

test('a 2xx answer delivers; 410 disables at once', () => {
  assert.deepEqual(tryOutcome({ status: 204 }, fresh, now), { kind: 'delivered', status: 204 });
  const gone = tryOutcome({ status: 410 }, fresh, now);
  assert.equal(gone.kind, 'disabled');
});

test('failures follow the schedule, within a tenth either way, and the schedule spent disables', () => {
  const waits = [5_000, 300_000, 1_800_000, 2 * HOUR, 5 * HOUR, 10 * HOUR, 14 * HOUR, 20 * HOUR, 24 * HOUR];
  for (const [failures, wait] of waits.entries()) {
    const outcome = tryOutcome({ status: 500 }, { failures, failingSince: now }, now, undefined, middle);
    assert.deepEqual(outcome, { kind: 'failed', status: 500, error: null, nextAt: now + wait });
    const early = tryOutcome({ status: 500 }, { failures, failingSince: now }, now, undefined, () => 0);
    const late = tryOutcome({ status: 500 }, { failures, failingSince: now }, now, undefined, () => 0.999_999);
    assert.ok(early.kind === 'failed' && late.kind === 'failed' && early.nextAt >= now + wait * 0.9 && late.nextAt <= now + wait * 1.1 && early.nextAt < late.nextAt);
  }
  const spent = tryOutcome({ status: 500 }, { failures: 9, failingSince: now }, now);
  assert.equal(spent.kind, 'disabled');
  assert.match(spent.kind === 'disabled' ? spent.reason : '', /all 10 tries failed/);
});

test('three days of failures disable the endpoint', () => {
  const young = tryOutcome({ status: null, error: 'ECONNREFUSED' }, { failures: 3, failingSince: now - 71 * HOUR }, now);
  assert.equal(young.kind, 'failed');
  const old = tryOutcome({ status: null, error: 'ECONNREFUSED' }, { failures: 3, failingSince: now - 72 * HOUR }, now);
  assert.deepEqual(old, { kind: 'disabled', status: null, error: 'ECONNREFUSED', reason: 'every try failed for 72 h' });
});

test('Retry-After is honoured on 429 and 503 only, in seconds or as a date, and never brings a try before the schedule', () => {
  const limited = tryOutcome({ status: 429, retryAfter: '120' }, fresh, now, undefined, middle);
  assert.deepEqual(limited, { kind: 'failed', status: 429, error: null, nextAt: now + 120_000 });
  const busy = tryOutcome({ status: 503, retryAfter: new Date(now + 60_000).toUTCString() }, fresh, now, undefined, middle);
  assert.equal(busy.kind === 'failed' && busy.nextAt, now + 60_000);
  const other = tryOutcome({ status: 500, retryAfter: '120' }, fresh, now, undefined, middle);
  assert.equal(other.kind === 'failed' && other.nextAt, now + 5_000);
  for (const retryAfter of ['0', '1', new Date(now - 60_000).toUTCString()]) {
    const soon = tryOutcome({ status: 429, retryAfter }, { failures: 2, failingSince: now }, now, undefined, middle);
    assert.equal(soon.kind === 'failed' && soon.nextAt, now + 1_800_000, retryAfter);
  }
  assert.equal(retryAfterMs('soon', now), undefined);
  assert.equal(retryAfterMs('999999999', now), 24 * HOUR);
});

test('a redirect is a failure, not followed', () => {
  const moved = tryOutcome({ status: 301 }, fresh, now, undefined, middle);
  assert.equal(moved.kind === 'failed' && moved.error, 'answered 301: redirects are not followed');
});
