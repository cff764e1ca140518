import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SyncState } from '../store/sync-repository.js';
import { age, statusLines, syncStatuses } from './sync-status.js';

const NOW = Date.UTC(2026, 10, 26, 12, 0, 0);
const MINUTE = 60_000;

function state(customer: string, fields: Partial<SyncState> = {}): SyncState {
  return {
    customer,
    url: 'https://api.example',
    addedAt: NOW - 60 * MINUTE,
    everySeconds: 900,
    sessionsEverySeconds: 60,
    dueAt: NOW,
    catalogueDueAt: NOW,
    leaseOwner: null,
    leaseUntil: null,
    etags: {},
    catalogueVersion: 1,
    attemptedAt: NOW - MINUTE,
    succeededAt: NOW - MINUTE,
    catalogueSucceededAt: NOW - 10 * MINUTE,
    changedAt: NOW - 10 * MINUTE,
    failures: 0,
    lastError: null,
    ...fields,
  };
}

test('a customer whose last success is older than twice an interval is stale, and listed first', { timeout: 5000 }, () => {
  const statuses = syncStatuses(
    [
      state('a-fresh'),
      state('b-sessions-late', { succeededAt: NOW - 2 * MINUTE - 1000, failures: 3, lastError: 'https://api.example/v1/session answered 503 Service Unavailable' }),
      state('c-films-late', { catalogueSucceededAt: NOW - 31 * MINUTE }),
      state('d-failing', { succeededAt: NOW - 90_000, failures: 1, lastError: 'x' }),
      state('e-never', { succeededAt: null, catalogueSucceededAt: null, addedAt: NOW - 30_000 }),
      state('f-never-late', { succeededAt: null, catalogueSucceededAt: null, addedAt: NOW - 3 * MINUTE }),
      state('g-by-hand', { everySeconds: null, sessionsEverySeconds: null, succeededAt: NOW - 600 * MINUTE }),
    ],
    NOW,
  );
  assert.deepEqual(
    statuses.map((status) => `${status.customer} ${status.stale}`),
    ['b-sessions-late true', 'c-films-late true', 'f-never-late true', 'a-fresh false', 'd-failing false', 'e-never false', 'g-by-hand false'],
  );
  const lines = statusLines(statuses, NOW);
  assert.match(lines[0] ?? '', /^STALE +b-sessions-late +attempted 60 s ago +succeeded 2 min ago +changed 10 min ago +3 failures +https:\/\/api\.example\/v1\/session answered 503/);
  assert.match(lines[4] ?? '', /^failing +d-failing /);
  assert.match(lines[5] ?? '', /^ok +e-never +attempted 60 s ago +succeeded never +changed 10 min ago +0 failures$/);
});

test('ages read as people say them', { timeout: 5000 }, () => {
  const ago = (ms: number): string => age(new Date(NOW - ms).toISOString(), NOW);
  assert.deepEqual([ago(0), ago(119_000), ago(120_000), ago(7_199_000), ago(7_200_000), ago(3 * 86_400_000)], ['0 s ago', '119 s ago', '2 min ago', '120 min ago', '2 h ago', '3 d ago']);
  assert.equal(age(null, NOW), 'never');
});
