/**
 * Many customers mirrored by one process, each from its own upstream, on two intervals: every
 * list every `everyMs`, the sessions (which move with every sale) every `sessionsEveryMs`. Each
 * customer's syncs fall at its own moment of the interval, so that they spread evenly over it.
 *
 * The schedule lives in the database (sync_state), and a process takes a customer for the
 * length of one sync by a lease, renewed while it syncs and given up as it ends: several
 * processes on one database sync each customer once per interval between them, and when one
 * dies its customers are taken by the others as soon as its leases run out. The write of a sync
 * checks that the lease is still its own, in the same transaction, so a process that lost it
 * (held up for longer than the lease) writes nothing.
 *
 * One upstream cannot hold up the others: at most `concurrency` syncs run at once and at most
 * `perHost` to one host, each sync reads its lists one after the other, every request has a
 * deadline, and a sync that failed waits for its next try with no slot held.
 */
import { formatProblem } from '../catalogue/problems.js';
import { LeaseKeeper } from '../store/leases.js';
import { LockTimeoutError, type SqlClient } from '../store/sql-client.js';
import {
  claimCustomer,
  enrolCustomers,
  forgetCustomersBut,
  loadSyncState,
  loadSyncStates,
  makeDue,
  recordFailure,
  recordSuccess,
  type ClaimedCustomer,
  type HeldCustomer,
  type NextDue,
  type Schedule,
  type SyncState,
} from '../store/sync-repository.js';
import { DueMoments } from './due-moments.js';
import { InvalidImportError } from './import-files.js';
import { syncCustomer, type KnownSessions, type SyncLimits, type SyncOutcome } from './sync-customer.js';
import { nextSlot, retryDelay } from './sync-schedule.js';
import { TransientSyncError } from './upstream-fetch.js';
import type { Upstream } from './upstream-list.js';

export interface FleetSettings {
  /** How often every list is read; undefined to sync each upstream once, every list, and end. */
  readonly everyMs: number | undefined;
  /** How often the sessions are read; at most `everyMs`. */
  readonly sessionsEveryMs: number;
  /** Syncs at once, and at once to one host. */
  readonly concurrency: number;
  readonly perHost: number;
  /** Tries after a failure worth trying again (the network, a busy upstream), the first after `retryDelayMs`, each twice as long. */
  readonly retries: number;
  readonly retryDelayMs: number;
  readonly limits: SyncLimits;
  /**
   * The upstreams given are every one synced into the database: those of customers no longer
   * given are forgotten. False for a process that syncs some besides others.
   */
  readonly exclusive: boolean;
}

export interface FleetEvents {
  readonly onSynced?: (upstream: Upstream, outcome: SyncOutcome, seconds: number) => void;
  /** A sync failed; it is tried again in `nextInMs`, soon when `retrying`, otherwise at its next interval (or never, syncing once). */
  readonly onFailed?: (upstream: Upstream, failure: { readonly reason: string; readonly failures: number; readonly retrying: boolean; readonly nextInMs: number }) => void;
  /** Another process took the customer while this one synced it: this one wrote nothing. */
  readonly onLost?: (upstream: Upstream) => void;
  /** Customers no longer synced, whose state was forgotten. */
  readonly onForgotten?: (customers: readonly string[]) => void;
  /** The database did not answer; the fleet tries again. */
  readonly onDatabaseError?: (error: unknown) => void;
}

/** The write of a sync found that another process holds the customer now. */
class LeaseLostError extends Error {}

/** Longest the fleet sleeps without looking whether something is due. */
const LONGEST_SLEEP_MS = 1000;
/** How long before a process looks at a database that did not answer again. */
const DATABASE_RETRY_MS = 5000;
/** Longest lease: how long a customer waits for another process after its syncing process died. */
const LONGEST_LEASE_MS = 30_000;

/** One line that says why a sync failed, never holding a token: the upstream's address, the rule its data broke. */
function describeFailure(error: unknown): string {
  if (error instanceof InvalidImportError) {
    const [first] = error.problems;
    const more = error.problemCount - 1;
    return first === undefined ? error.message : `${formatProblem(first)}${more > 0 ? ` (and ${more.toLocaleString('en-US')} more problem${more === 1 ? '' : 's'})` : ''}`;
  }
  return error instanceof Error ? error.message : String(error);
}

/** A failure that may pass by itself: the network, a busy upstream, another writer holding the database. */
function isTransient(error: unknown): boolean {
  return error instanceof TransientSyncError || error instanceof LockTimeoutError;
}

export class SyncFleet {
  /** The customers this process syncs, as leases hold them. */
  private readonly leases: LeaseKeeper;
  private upstreams = new Map<string, Upstream>();
  /** When each customer is next due, as far as this process knows; the database decides. */
  private readonly due = new DueMoments();
  /** Each customer's sessions, as this process's last sync of it left them. */
  private readonly knownSessions = new Map<string, KnownSessions>();
  private readonly running = new Map<string, Promise<void>>();
  /**
   * Customers whose upstream moved or whose token changed while a sync of theirs was under way:
   * that sync, with the upstream as it was, records its own schedule as it ends, so they are made
   * due at once again then.
   */
  private readonly changedWhileRunning = new Set<string>();
  private readonly hosts = new Map<string, number>();
  /** Syncs with no further try, by customer, and their last failure (null when they succeeded); only when syncing once. */
  private readonly ended = new Map<string, unknown>();
  /** Failures in a row of this run, by customer; only when syncing once. */
  private readonly tries = new Map<string, number>();
  private readonly stopping = new AbortController();
  private wake: () => void = () => {};

  constructor(
    private readonly db: SqlClient,
    private readonly settings: FleetSettings,
    private readonly events: FleetEvents = {},
  ) {
    // A process holds a customer without renewing for at most one sessions interval.
    this.leases = new LeaseKeeper(db, 'sync_state', Math.min(LONGEST_LEASE_MS, settings.sessionsEveryMs), (error) => this.events.onDatabaseError?.(error));
  }

  private get once(): boolean {
    return this.settings.everyMs === undefined;
  }

  /**
   * Takes up a list of upstreams: a customer never synced, or whose upstream moved, is due at
   * once, as is one whose token changed (it may be the fix of a refused one); others keep their
   * schedule; one no longer listed is no longer synced (its catalogue stays as it is).
   */
  async setUpstreams(upstreams: readonly Upstream[]): Promise<void> {
    const next = new Map(upstreams.map((upstream) => [upstream.customer, upstream]));
    const moved = upstreams.filter((upstream) => this.upstreams.get(upstream.customer)?.url !== upstream.url);
    const retokened = upstreams.filter((upstream) => {
      const before = this.upstreams.get(upstream.customer);
      return before !== undefined && before.url === upstream.url && before.token !== upstream.token;
    });
    const { everyMs, sessionsEveryMs, exclusive } = this.settings;
    const now = Date.now();
    const schedule: Schedule | null =
      everyMs === undefined
        ? null
        : {
            intervals: { everySeconds: everyMs / 1000, sessionsEverySeconds: sessionsEveryMs / 1000 },
            slots: (customer) => this.slotsAfter(customer, now, nextSlot(customer, now, everyMs)),
          };
    for (const { customer } of [...moved, ...retokened]) if (this.running.has(customer)) this.changedWhileRunning.add(customer);
    const forgotten = await this.db.transaction(async (tx) => {
      await enrolCustomers(tx, moved, schedule, now);
      await makeDue(tx, retokened.map((upstream) => upstream.customer), now);
      return exclusive ? forgetCustomersBut(tx, new Set(next.keys())) : [];
    });
    const states = new Map((await loadSyncStates(this.db)).map((state) => [state.customer, state]));
    this.upstreams = next;
    for (const customer of this.due.keys()) if (!next.has(customer)) this.due.delete(customer);
    for (const customer of this.knownSessions.keys()) if (!next.has(customer)) this.knownSessions.delete(customer);
    for (const { customer } of upstreams) this.due.set(customer, this.once ? now : (states.get(customer)?.dueAt ?? now));
    if (forgotten.length > 0) this.events.onForgotten?.(forgotten);
    this.wake();
  }

  /**
   * Syncs until stopped or, syncing once, until every upstream has been synced or has failed
   * for good. Resolves when every sync under way has ended and the leases are given up.
   */
  async run(): Promise<void> {
    this.leases.start(() => this.running.size > 0);
    try {
      while (!this.stopping.signal.aborted && !(this.once && this.ended.size >= this.upstreams.size)) {
        await this.startDue();
        await this.sleep();
      }
    } finally {
      await Promise.all(this.running.values());
      await this.leases.stop();
    }
  }

  /** Stops starting syncs and stops those under way; their catalogues are left as they were. */
  stop(): void {
    this.stopping.abort();
    this.wake();
  }

  /** The last failure of each upstream that failed, once every one has ended: when syncing once. */
  failures(): Map<string, unknown> {
    return new Map([...this.ended].filter(([, failure]) => failure !== null));
  }

  /**
   * Waits for the next customer to fall due, for a sync's end, or for LONGEST_SLEEP_MS. One due
   * already waits for a slot or for its host's, as startDue has just started all it could: a
   * sync's end wakes this. Timed from a due moment passed, the loop would spin while behind.
   */
  private async sleep(): Promise<void> {
    const now = Date.now();
    const due = this.due.nextAfter(now, (customer) => this.upstreams.has(customer) && this.waits(customer));
    const next = Math.min(now + LONGEST_SLEEP_MS, due ?? Infinity);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, next - now);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /** Whether the customer waits for its next sync: not syncing now, nor done with for good. */
  private waits(customer: string): boolean {
    return !this.running.has(customer) && !this.ended.has(customer);
  }

  /** The customer of `upstream` as this process holds it while it syncs it. */
  private held({ customer, url }: Upstream): HeldCustomer {
    return { customer, owner: this.leases.owner, url };
  }

  private hostOf(upstream: Upstream): string {
    return new URL(upstream.url).host;
  }

  /** Starts the syncs that are due, as far as the slots allow, each once the database lets this process take it. */
  private async startDue(): Promise<void> {
    const now = Date.now();
    const { concurrency, perHost } = this.settings;
    // Woken as each sync ends: with a thousand customers and many due at once, it must cost little.
    if (this.running.size >= concurrency) return;
    const hosts = new Map(this.hosts);
    const chosen: Upstream[] = [];
    for (const customer of this.due.dueBy(now)) {
      const upstream = this.upstreams.get(customer);
      if (upstream === undefined || !this.waits(customer)) continue;
      if (this.running.size + chosen.length >= concurrency) break;
      const host = this.hostOf(upstream);
      if ((hosts.get(host) ?? 0) >= perHost) continue;
      hosts.set(host, (hosts.get(host) ?? 0) + 1);
      chosen.push(upstream);
    }
    if (chosen.length === 0) return;
    const claim = { owner: this.leases.owner, now, leaseUntil: this.leases.until(now), due: this.once ? 'now' : 'when due' } as const;
    const claims: { upstream: Upstream; claimed: ClaimedCustomer | undefined; found: SyncState | undefined }[] = [];
    try {
      for (const upstream of chosen) {
        const claimed = await claimCustomer(this.db, upstream.customer, claim);
        claims.push({ upstream, claimed, found: claimed?.state ?? (await this.db.transaction((tx) => this.notTaken(tx, upstream, now))) });
      }
    } catch (error) {
      this.events.onDatabaseError?.(error);
      // Those taken before the failure are this process's to take again.
      for (const { customer } of chosen) this.due.set(customer, now + DATABASE_RETRY_MS);
      return;
    }
    for (const { upstream, claimed, found } of claims) {
      if (claimed !== undefined) this.start(upstream, claimed);
      else if (found === undefined) this.due.set(upstream.customer, now);
      else if (this.once) this.ended.set(upstream.customer, new Error(`another sync process is syncing customer '${upstream.customer}' now`));
      else this.due.set(upstream.customer, Math.max(found.dueAt, found.leaseUntil ?? 0));
    }
  }

  /** The state of a customer that could not be taken; undefined for one forgotten by a process that lists other upstreams, listed again, due at once. */
  private async notTaken(tx: SqlClient, upstream: Upstream, now: number): Promise<SyncState | undefined> {
    const found = await loadSyncState(tx, upstream.customer);
    if (found === undefined) await enrolCustomers(tx, [upstream], null, now);
    return found;
  }

  private start(upstream: Upstream, claimed: ClaimedCustomer): void {
    const host = this.hostOf(upstream);
    this.hosts.set(host, (this.hosts.get(host) ?? 0) + 1);
    const done = this.sync(upstream, claimed)
      .then(() => this.dueAgainIfChanged(upstream.customer))
      .finally(() => {
        this.hosts.set(host, (this.hosts.get(host) ?? 1) - 1);
        this.running.delete(upstream.customer);
        this.wake();
      });
    this.running.set(upstream.customer, done);
  }

  /** Makes the customer due at once if its upstream changed during the sync that just ended (see `changedWhileRunning`). */
  private async dueAgainIfChanged(customer: string): Promise<void> {
    if (!this.changedWhileRunning.delete(customer) || !this.upstreams.has(customer)) return;
    const now = Date.now();
    try {
      await this.db.transaction((tx) => makeDue(tx, [customer], now));
      this.due.set(customer, now);
    } catch (error) {
      this.events.onDatabaseError?.(error);
    }
  }

  /** When the customer is next due after a sync that started at `started`: at its moments of each interval. */
  private scheduleAfter(customer: string, started: number, full: boolean, state: SyncState): NextDue {
    const { everyMs } = this.settings;
    // Synced once, by hand: the schedule of the processes that keep syncing it stays as it was.
    if (everyMs === undefined) return { dueAt: state.dueAt, catalogueDueAt: state.catalogueDueAt };
    return this.slotsAfter(customer, started, full ? nextSlot(customer, started, everyMs) : state.catalogueDueAt);
  }

  /** The customer's next moment of the sessions interval after `after`, or of every list when that comes first. */
  private slotsAfter(customer: string, after: number, catalogueDueAt: number): NextDue {
    return { dueAt: Math.min(nextSlot(customer, after, this.settings.sessionsEveryMs), catalogueDueAt), catalogueDueAt };
  }

  private async sync(upstream: Upstream, { state, catalogueVersion }: ClaimedCustomer): Promise<void> {
    const { customer } = upstream;
    const started = Date.now();
    const full = this.once || state.catalogueDueAt <= started;
    try {
      const outcome = await syncCustomer(this.db, {
        upstream,
        full,
        state,
        version: catalogueVersion,
        knownSessions: this.knownSessions.get(customer),
        limits: this.settings.limits,
        signal: this.stopping.signal,
        record: async (tx, taken) => {
          const success = { at: Date.now(), full: taken.full, changed: taken.result?.written === true, etags: taken.etags, catalogueVersion: taken.catalogueVersion };
          if (!(await recordSuccess(tx, this.held(upstream), { ...success, ...this.scheduleAfter(customer, started, taken.full, state) }))) throw new LeaseLostError();
        },
      });
      if (outcome.knownSessions === undefined) this.knownSessions.delete(customer);
      else this.knownSessions.set(customer, outcome.knownSessions);
      // As recorded: the schedule follows from its arguments alone, and the outcome is the one recorded.
      this.due.set(customer, this.scheduleAfter(customer, started, outcome.full, state).dueAt);
      if (this.once) this.ended.set(customer, null);
      this.events.onSynced?.(upstream, outcome, (Date.now() - started) / 1000);
    } catch (error) {
      // Stopped: the catalogue is as it was, and the lease is given up as the process stops.
      if (this.stopping.signal.aborted) return;
      if (error instanceof LeaseLostError) {
        this.due.set(customer, Date.now() + this.settings.sessionsEveryMs);
        this.events.onLost?.(upstream);
        return;
      }
      await this.failed(upstream, state, started, full, error);
    }
  }

  private async failed(upstream: Upstream, state: SyncState, started: number, full: boolean, error: unknown): Promise<void> {
    const { customer } = upstream;
    const now = Date.now();
    const failures = state.failures + 1;
    // Syncing once, only the tries of this run count: not those of processes before it.
    let tries = failures;
    if (this.once) {
      tries = (this.tries.get(customer) ?? 0) + 1;
      this.tries.set(customer, tries);
    }
    const { retries, retryDelayMs, everyMs, sessionsEveryMs } = this.settings;
    const retrying = isTransient(error) && tries <= retries;
    // An upstream that asks to be left alone is, for at most one interval.
    const retryAfterMs = Math.min(error instanceof TransientSyncError ? (error.retryAfterMs ?? 0) : 0, everyMs ?? sessionsEveryMs);
    const regular = this.scheduleAfter(customer, started, full, state);
    const next = retrying
      ? { dueAt: now + Math.max(retryDelay(tries, retryDelayMs), retryAfterMs), catalogueDueAt: state.catalogueDueAt }
      : { dueAt: Math.max(regular.dueAt, now + retryAfterMs), catalogueDueAt: regular.catalogueDueAt };
    const reason = describeFailure(error);
    try {
      await this.db.transaction((tx) => recordFailure(tx, this.held(upstream), { ...next, error: reason }));
    } catch (databaseError) {
      this.events.onDatabaseError?.(databaseError);
    }
    this.due.set(customer, next.dueAt);
    if (this.once && !retrying) this.ended.set(customer, error);
    this.events.onFailed?.(upstream, { reason, failures, retrying, nextInMs: next.dueAt - now });
  }
}
