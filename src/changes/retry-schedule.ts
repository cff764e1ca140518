/**
 * What follows a try of a delivery (CONTRACT §14): a 2xx answer delivers; 410 disables the
 * endpoint; anything else is tried again after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and
 * 24 h, each within a tenth either way so that endpoints that failed together are not all tried
 * again at one instant, or after the `Retry-After` of a 429 or 503 where it asks for longer; an
 * endpoint that fails for three days, or through the whole schedule, is disabled.
 */
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

const RETRY_DELAYS_MS: readonly number[] = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 14 * HOUR, 20 * HOUR, 24 * HOUR];

const GIVE_UP_AFTER_MS = 72 * HOUR;

/** A `Retry-After` is honoured up to the schedule's longest wait. */
const LONGEST_RETRY_AFTER_MS = 24 * HOUR;

/** The wait before the next try after `failures` tries failed, or undefined when the schedule is spent. */
export function retryDelay(delays: readonly number[], failures: number, random: () => number = Math.random): number | undefined {
  const delay = delays[failures - 1];
  return delay === undefined ? undefined : Math.round(delay * (0.9 + 0.2 * random()));
}

/** A `Retry-After` header (seconds, or an HTTP date) as a wait in milliseconds from `now`; undefined when absent or unreadable. */
export function retryAfterMs(header: string | string[] | undefined, now: number): number | undefined {
  if (typeof header !== 'string') return undefined;
  const wait = /^\d+$/.test(header.trim()) ? Number(header.trim()) * SECOND : Date.parse(header) - now;
  return Number.isFinite(wait) ? Math.min(Math.max(wait, 0), LONGEST_RETRY_AFTER_MS) : undefined;
}

/** How one try ended, as it is recorded. */
export type TryOutcome =
  | { readonly kind: 'delivered'; readonly status: number }
  | { readonly kind: 'failed'; readonly status: number | null; readonly error: string | null; readonly nextAt: number }
  | { readonly kind: 'disabled'; readonly status: number | null; readonly error: string | null; readonly reason: string };

/** What a try met: the endpoint's answer, or the error that came instead. */
export interface TryResult {
  readonly status: number | null;
  readonly retryAfter?: string | string[] | undefined;
  readonly error?: string | undefined;
}

export interface Schedule {
  readonly retryDelaysMs: readonly number[];
  readonly giveUpAfterMs: number;
}

export const SCHEDULE: Schedule = { retryDelaysMs: RETRY_DELAYS_MS, giveUpAfterMs: GIVE_UP_AFTER_MS };

/**
 * What follows a try made at `now`, after `failures` tries of the same change failed, the first of
 * a run of failures at `failingSince`.
 */
export function tryOutcome(
  result: TryResult,
  endpoint: { readonly failures: number; readonly failingSince: number | null },
  now: number,
  schedule: Schedule = SCHEDULE,
  random: () => number = Math.random,
): TryOutcome {
  const { status } = result;
  if (status !== null && status >= 200 && status <= 299) return { kind: 'delivered', status };
  const error = result.error ?? (status !== null && status >= 300 && status <= 399 ? `answered ${status}: redirects are not followed` : null);
  if (status === 410) return { kind: 'disabled', status, error, reason: 'the endpoint answered 410 Gone' };
  if (endpoint.failingSince !== null && now - endpoint.failingSince >= schedule.giveUpAfterMs) {
    return { kind: 'disabled', status, error, reason: `every try failed for ${Math.round((now - endpoint.failingSince) / HOUR)} h` };
  }
  const failures = endpoint.failures + 1;
  const scheduled = retryDelay(schedule.retryDelaysMs, failures, random);
  if (scheduled === undefined) return { kind: 'disabled', status, error, reason: `all ${failures} tries failed` };
  // Never sooner than the schedule: each try counts towards it, and `Retry-After: 0` would spend it at once.
  const asked = status === 429 || status === 503 ? (retryAfterMs(result.retryAfter, now) ?? 0) : 0;
  return { kind: 'failed', status, error, nextAt: now + Math.max(asked, scheduled) };
}
