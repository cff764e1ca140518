/**
 * How each customer's syncs went, as `marquee sync status` tells it from the database: a line per
 * customer, those gone stale first. A customer is stale when its last success is older than
 * twice its interval: its sessions' (any sync reads them), or its other lists' (a sync that read
 * every list). A customer never synced is judged from when it was listed; one only ever synced
 * by hand has no interval, and is never stale.
 */
import { alignColumns } from '../cli/text-columns.js';
import type { SyncState } from '../store/sync-repository.js';

export interface CustomerStatus {
  readonly customer: string;
  readonly url: string;
  readonly stale: boolean;
  /** Another process holds it, syncing it now. */
  readonly syncing: boolean;
  readonly lastAttempt: string | null;
  readonly lastSuccess: string | null;
  readonly lastFullSuccess: string | null;
  readonly lastChange: string | null;
  readonly failures: number;
  readonly lastError: string | null;
  readonly everySeconds: number | null;
  readonly sessionsEverySeconds: number | null;
}

function isStale(state: SyncState, now: number): boolean {
  const { everySeconds, sessionsEverySeconds } = state;
  if (everySeconds === null || sessionsEverySeconds === null) return false;
  const olderThan = (at: number | null, seconds: number): boolean => now - (at ?? state.addedAt) > 2 * seconds * 1000;
  return olderThan(state.succeededAt, Math.min(sessionsEverySeconds, everySeconds)) || olderThan(state.catalogueSucceededAt, everySeconds);
}

const iso = (at: number | null): string | null => (at === null ? null : new Date(at).toISOString());

/** Each customer's status, the stale ones first, then by key. */
export function syncStatuses(states: readonly SyncState[], now: number): CustomerStatus[] {
  const statuses = states.map((state) => ({
    customer: state.customer,
    url: state.url,
    stale: isStale(state, now),
    syncing: state.leaseUntil !== null && state.leaseUntil > now,
    lastAttempt: iso(state.attemptedAt),
    lastSuccess: iso(state.succeededAt),
    lastFullSuccess: iso(state.catalogueSucceededAt),
    lastChange: iso(state.changedAt),
    failures: state.failures,
    lastError: state.lastError,
    everySeconds: state.everySeconds,
    sessionsEverySeconds: state.sessionsEverySeconds,
  }));
  return statuses.sort((a, b) => Number(b.stale) - Number(a.stale) || (a.customer < b.customer ? -1 : a.customer > b.customer ? 1 : 0));
}

/** `12 s ago`, `4 min ago`, `3 h ago`, `2 d ago`, or `never`. */
export function age(at: string | null, now: number): string {
  if (at === null) return 'never';
  const seconds = Math.max(0, Math.round((now - Date.parse(at)) / 1000));
  if (seconds < 120) return `${seconds} s ago`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 172_800) return `${Math.round(seconds / 3600)} h ago`;
  return `${Math.round(seconds / 86_400)} d ago`;
}

/** One line per customer, its columns aligned: state, key, the times, failures in a row, the last error. */
export function statusLines(statuses: readonly CustomerStatus[], now: number): string[] {
  const rows = statuses.map((status) => [
    status.stale ? 'STALE' : status.failures > 0 ? 'failing' : 'ok',
    status.customer,
    `attempted ${age(status.lastAttempt, now)}${status.syncing ? ' (syncing)' : ''}`,
    `succeeded ${age(status.lastSuccess, now)}`,
    `changed ${age(status.lastChange, now)}`,
    `${status.failures} failure${status.failures === 1 ? '' : 's'}`,
    status.lastError ?? '',
  ]);
  return alignColumns(rows);
}
