/**
 * Delivers each committed change's event to the customer's webhook endpoints (CONTRACT §14):
 * in version order per endpoint, at least once, signed, with the retry schedule.
 *
 * What each endpoint has been sent lives in the database (webhook_endpoint), beside the changes
 * themselves (catalogue_change, written in each change's transaction): a process that dies
 * mid-delivery has recorded nothing, and the change is sent again, under the same id, by
 * whichever process takes the endpoint next. Processes take endpoints by leases, as sync
 * processes take customers, so several servers on one database deliver each event once between
 * them.
 *
 * One endpoint cannot hold up the others: each delivery runs on its own, up to `concurrency` at
 * once, every request has a deadline, no redirect is followed, and a failed delivery waits for its
 * next try with no slot held.
 */
import type { IncomingMessage } from 'node:http';
import { loadCatalogueChanges, loadCatalogueVersion, followCatalogueChanges } from '../store/catalogue-repository.js';
import { LeaseKeeper } from '../store/leases.js';
import type { SqlClient, Subscription } from '../store/sql-client.js';
import { findDueEndpoints, pruneChanges, recordTry, skipTo, takeEndpoints, type TakenEndpoint } from '../store/webhook-repository.js';
import type { AddressRule } from '../outbound/address-rule.js';
import { Deadline } from '../outbound/deadline.js';
import { sendOutbound } from '../outbound/outbound-request.js';
import type { CacheTags } from './cache-tags.js';
import { catalogueEvent, eventId } from './catalogue-event.js';
import { SCHEDULE, tryOutcome, type Schedule } from './retry-schedule.js';
import { signWebhook } from './webhook-signature.js';

export interface CourierSettings {
  /** Where deliveries may connect: public addresses, and the prefixes of --webhook-target. */
  readonly rule: AddressRule;
  readonly tags: CacheTags;
  /** How long changes are kept (--change-retention), in milliseconds. */
  readonly retentionMs: number;
  /** Deliveries at once. */
  readonly concurrency?: number;
  /** How long a request may take, its answer included. */
  readonly requestTimeoutMs?: number;
  /** The waits after each failed try, and how long an endpoint may fail before it is disabled: the contract's unless a test shortens them. */
  readonly schedule?: Schedule;
}

export interface CourierEvents {
  readonly onDelivered?: (endpointId: number, version: number, status: number) => void;
  readonly onFailed?: (endpointId: number, version: number, failure: string, nextInMs: number) => void;
  readonly onDisabled?: (endpointId: number, reason: string) => void;
  readonly onDatabaseError?: (error: unknown) => void;
}

/** How the deliveries of a server have gone since it started, for /metrics. */
export interface WebhookStatistics {
  /** Tries recorded, by how they ended. */
  readonly tries: { readonly delivered: number; readonly failed: number; readonly disabled: number };
  /** Deliveries under way now. */
  readonly inFlight: number;
}

export interface WebhookMonitor {
  statistics(): WebhookStatistics;
}

/** Longest the courier sleeps without looking whether a delivery is due. */
const LONGEST_SLEEP_MS = 1000;
/**
 * How long the courier gathers the commits it is told of before it looks for what is due: many
 * cinemas' changes are then taken in one transaction rather than one each.
 */
const GATHER_MS = 100;
/** How long a process holds an endpoint without renewing (it renews while it delivers): how long the endpoints of a process that died wait. */
const LEASE_MS = 10_000;
const PRUNE_EVERY_MS = 3_600_000;
/** How long the rest of an answer is read, to close its connection: what a receiver says beyond its status is not used. */
const ANSWER_MS = 1000;

function describe(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message;
}

export class WebhookCourier implements WebhookMonitor {
  private readonly leases: LeaseKeeper;
  private readonly tries = { delivered: 0, failed: 0, disabled: 0 };
  private readonly running = new Map<number, Promise<void>>();
  private readonly stopping = new AbortController();
  private wake: () => void = () => {};
  private subscription: Subscription | undefined;
  private prunedAt = 0;

  constructor(
    private readonly db: SqlClient,
    private readonly settings: CourierSettings,
    private readonly events: CourierEvents = {},
  ) {
    this.leases = new LeaseKeeper(db, 'webhook_endpoint', LEASE_MS, (error) => this.events.onDatabaseError?.(error));
  }

  /** Delivers until stopped; resolves once the deliveries under way have ended and the leases are given up. */
  async run(): Promise<void> {
    this.leases.start(() => this.running.size > 0);
    // A change committed anywhere wakes the courier, where the database tells, once the commits of a moment are gathered.
    let gathering: NodeJS.Timeout | undefined;
    this.subscription = followCatalogueChanges(this.db, () => {
      gathering ??= setTimeout(() => {
        gathering = undefined;
        this.wake();
      }, GATHER_MS);
    });
    try {
      while (!this.stopping.signal.aborted) {
        await this.prune();
        await this.startDue();
        await this.sleep();
      }
    } finally {
      clearTimeout(gathering);
      await this.subscription?.close();
      await Promise.all(this.running.values());
      await this.leases.stop();
    }
  }

  statistics(): WebhookStatistics {
    return { tries: { ...this.tries }, inFlight: this.running.size };
  }

  /** Stops taking endpoints and ends the requests under way, recording nothing of them: they are sent again. */
  stop(): void {
    this.stopping.abort();
    this.wake();
  }

  private sleep(): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, LONGEST_SLEEP_MS);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  private async prune(): Promise<void> {
    const now = Date.now();
    if (now - this.prunedAt < PRUNE_EVERY_MS) return;
    this.prunedAt = now;
    await this.db.transaction((tx) => pruneChanges(tx, now - this.settings.retentionMs)).catch((error: unknown) => this.events.onDatabaseError?.(error));
  }

  private async startDue(): Promise<void> {
    const limit = (this.settings.concurrency ?? 64) - this.running.size;
    if (limit <= 0) return;
    const now = Date.now();
    let taken: TakenEndpoint[];
    try {
      const take = { owner: this.leases.owner, now, leaseUntil: this.leases.until(now), limit };
      // This process's own leases count as free to it: those it is delivering to now are left alone.
      const due = (await findDueEndpoints(this.db, { ...take, limit: limit + this.running.size })).filter((id) => !this.running.has(id)).slice(0, limit);
      taken = due.length === 0 ? [] : await this.db.transaction((tx) => takeEndpoints(tx, due, take));
    } catch (error) {
      this.events.onDatabaseError?.(error);
      return;
    }
    for (const endpoint of taken) {
      const done = this.deliver(endpoint)
        .catch((error: unknown) => this.events.onDatabaseError?.(error))
        .finally(() => {
          this.running.delete(endpoint.id);
          this.wake();
        });
      this.running.set(endpoint.id, done);
    }
  }

  /** Sends the endpoint its next change, once, and records how it went. */
  private async deliver(endpoint: TakenEndpoint): Promise<void> {
    const [committed] = await loadCatalogueChanges(this.db, endpoint.customer, endpoint.deliveredVersion, 1);
    if (committed === undefined) {
      // The changes it was owed are no longer kept (older than --change-retention): it follows from now.
      const version = await loadCatalogueVersion(this.db, endpoint.customer);
      await this.db.transaction((tx) => skipTo(tx, endpoint, this.leases.owner, version));
      return;
    }
    const { version } = committed;
    const id = eventId(endpoint.customer, version);
    const body = JSON.stringify(catalogueEvent(endpoint.customer, committed, this.settings.tags));
    const timestamp = Math.floor(Date.now() / 1000);
    const timeoutMs = this.settings.requestTimeoutMs ?? 15_000;
    const deadline = new Deadline(timeoutMs, this.stopping.signal);
    let answer: IncomingMessage | undefined;
    let failure: string | undefined;
    try {
      answer = await sendOutbound(new URL(endpoint.url), this.settings.rule, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Marquee-Webhooks',
          'webhook-id': id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signWebhook(endpoint.secret, id, timestamp, body),
        },
        body,
        signal: deadline.signal,
      });
      await this.letGo(answer);
    } catch (error) {
      failure = deadline.passed ? `no answer within ${timeoutMs / 1000} s` : describe(error);
    } finally {
      deadline.end();
    }
    // Stopping: nothing is recorded, and the change is sent again by the next process to take the endpoint.
    if (this.stopping.signal.aborted) return;
    const now = Date.now();
    const outcome = tryOutcome({ status: answer?.statusCode ?? null, retryAfter: answer?.headers['retry-after'], error: failure }, endpoint, now, this.settings.schedule ?? SCHEDULE);
    const recorded = await this.db.transaction((tx) => recordTry(tx, endpoint, this.leases.owner, version, now, outcome));
    if (!recorded) return;
    this.tries[outcome.kind] += 1;
    if (outcome.kind === 'delivered') this.events.onDelivered?.(endpoint.id, version, outcome.status);
    else if (outcome.kind === 'failed') this.events.onFailed?.(endpoint.id, version, outcome.error ?? `answered ${outcome.status}`, outcome.nextAt - now);
    else this.events.onDisabled?.(endpoint.id, outcome.reason);
  }

  /** Reads what is left of an answer, within a second, so that its connection closes; what it says does not matter. */
  private async letGo(answer: IncomingMessage): Promise<void> {
    const read = new Promise<void>((resolve) => {
      answer.on('end', resolve).on('error', () => resolve()).on('close', resolve);
      answer.resume();
    });
    const timer = setTimeout(() => answer.destroy(), ANSWER_MS);
    await read;
    clearTimeout(timer);
  }
}
