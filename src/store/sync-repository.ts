/**
 * What `marquee sync` keeps of each customer it mirrors, shared by every sync process on the
 * database: the schedule, the lease of the process syncing it now, the ETags the upstream last
 * answered, and how the last tries went. Every function takes the database or the transaction it
 * works in. Times are milliseconds since the epoch here, ISO 8601 text in the database.
 */
import { insertRows } from './insert-rows.js';
import { leaseFree, stamp } from './leases.js';
import type { SqlClient, SqlValue } from './sql-client.js';

export interface SyncState {
  readonly customer: string;
  readonly url: string;
  /** When the customer was first listed: a customer never synced is judged from then. */
  readonly addedAt: number;
  /** The intervals of the process that last listed it; null when it was only ever synced once, by hand. */
  readonly everySeconds: number | null;
  readonly sessionsEverySeconds: number | null;
  /** When any of its lists is next due, and when all of them are. */
  readonly dueAt: number;
  readonly catalogueDueAt: number;
  readonly leaseOwner: string | null;
  readonly leaseUntil: number | null;
  /** The ETag each list last answered with, by its path. */
  readonly etags: Readonly<Record<string, string>>;
  /** The catalogue version the last sync left: the ETags speak for the catalogue only at that version. */
  readonly catalogueVersion: number | null;
  readonly attemptedAt: number | null;
  readonly succeededAt: number | null;
  /** The last sync that read every list. */
  readonly catalogueSucceededAt: number | null;
  /** The last sync that changed the catalogue. */
  readonly changedAt: number | null;
  readonly failures: number;
  readonly lastError: string | null;
}

const COLUMNS =
  'customer, url, added_at, every_seconds, sessions_every_seconds, due_at, catalogue_due_at, lease_owner, lease_until, etags, catalogue_version, ' +
  'attempted_at, succeeded_at, catalogue_succeeded_at, changed_at, failures, last_error';

interface SyncStateRow {
  customer: string;
  url: string;
  added_at: string;
  every_seconds: number | null;
  sessions_every_seconds: number | null;
  due_at: string;
  catalogue_due_at: string;
  lease_owner: string | null;
  lease_until: string | null;
  etags: string | null;
  catalogue_version: number | null;
  attempted_at: string | null;
  succeeded_at: string | null;
  catalogue_succeeded_at: string | null;
  changed_at: string | null;
  failures: number;
  last_error: string | null;
}

const time = (text: string): number => Date.parse(text);
const timeOrNull = (text: string | null): number | null => (text === null ? null : Date.parse(text));

function stateFromRow(row: SyncStateRow): SyncState {
  return {
    customer: row.customer,
    url: row.url,
    addedAt: time(row.added_at),
    everySeconds: row.every_seconds,
    sessionsEverySeconds: row.sessions_every_seconds,
    dueAt: time(row.due_at),
    catalogueDueAt: time(row.catalogue_due_at),
    leaseOwner: row.lease_owner,
    leaseUntil: timeOrNull(row.lease_until),
    etags: row.etags === null ? {} : (JSON.parse(row.etags) as Record<string, string>),
    catalogueVersion: row.catalogue_version,
    attemptedAt: timeOrNull(row.attempted_at),
    succeededAt: timeOrNull(row.succeeded_at),
    catalogueSucceededAt: timeOrNull(row.catalogue_succeeded_at),
    changedAt: timeOrNull(row.changed_at),
    failures: row.failures,
    lastError: row.last_error,
  };
}

export interface Enrolment {
  readonly customer: string;
  readonly url: string;
}

export interface Intervals {
  readonly everySeconds: number;
  readonly sessionsEverySeconds: number;
}

/** How a process that keeps syncing schedules its customers. */
export interface Schedule {
  readonly intervals: Intervals;
  /** When the customer is next due on these intervals, counting from now. */
  readonly slots: (customer: string) => NextDue;
}

/**
 * Lists customers to sync, due at `now` when new. One already listed keeps its schedule, no later
 * than `schedule.slots` when its intervals changed (or it would wait out the longer ones of a
 * process before); when its upstream's address changed, it forgets the ETags of the old one and is
 * due at `now`. `schedule` is null for a sync made once, which keeps the intervals a process set.
 */
export async function enrolCustomers(tx: SqlClient, customers: readonly Enrolment[], schedule: Schedule | null, now: number): Promise<void> {
  const due = stamp(now);
  const intervals = schedule?.intervals;
  if (schedule !== null && customers.length > 0) {
    const urls = new Map(customers.map(({ customer, url }) => [customer, url]));
    const rows = await tx.query<Pick<SyncStateRow, 'customer' | 'url' | 'every_seconds' | 'sessions_every_seconds' | 'due_at' | 'catalogue_due_at'>>(
      'SELECT customer, url, every_seconds, sessions_every_seconds, due_at, catalogue_due_at FROM sync_state',
    );
    for (const row of rows) {
      const same = row.every_seconds === schedule.intervals.everySeconds && row.sessions_every_seconds === schedule.intervals.sessionsEverySeconds;
      if (same || urls.get(row.customer) !== row.url) continue;
      const slots = schedule.slots(row.customer);
      await tx.execute('UPDATE sync_state SET due_at = ?, catalogue_due_at = ? WHERE customer = ?', [
        stamp(Math.min(time(row.due_at), slots.dueAt)),
        stamp(Math.min(time(row.catalogue_due_at), slots.catalogueDueAt)),
        row.customer,
      ]);
    }
  }
  const keepUnlessMoved = (column: string): string => `${column} = CASE WHEN sync_state.url = excluded.url THEN sync_state.${column} ELSE excluded.${column} END`;
  await insertRows(
    tx,
    'sync_state',
    ['customer', 'url', 'added_at', 'every_seconds', 'sessions_every_seconds', 'due_at', 'catalogue_due_at', 'failures'],
    customers.map(({ customer, url }) => [customer, url, due, intervals?.everySeconds ?? null, intervals?.sessionsEverySeconds ?? null, due, due, 0]),
    ` ON CONFLICT (customer) DO UPDATE SET
      every_seconds = COALESCE(excluded.every_seconds, sync_state.every_seconds),
      sessions_every_seconds = COALESCE(excluded.sessions_every_seconds, sync_state.sessions_every_seconds),
      etags = CASE WHEN sync_state.url = excluded.url THEN sync_state.etags END,
      ${keepUnlessMoved('due_at')}, ${keepUnlessMoved('catalogue_due_at')},
      url = excluded.url`,
  );
}

/** Makes every list of these customers due at `now`, as when their token changed. */
export async function makeDue(tx: SqlClient, customers: readonly string[], now: number): Promise<void> {
  for (const customer of customers) await tx.execute('UPDATE sync_state SET due_at = ?, catalogue_due_at = ? WHERE customer = ?', [stamp(now), stamp(now), customer]);
}

/** Forgets every customer but `kept`: those no longer synced. Returns the keys forgotten. */
export async function forgetCustomersBut(tx: SqlClient, kept: ReadonlySet<string>): Promise<string[]> {
  const rows = await tx.query<{ customer: string }>('SELECT customer FROM sync_state');
  const forgotten = rows.map((row) => row.customer).filter((customer) => !kept.has(customer));
  for (const customer of forgotten) await tx.execute('DELETE FROM sync_state WHERE customer = ?', [customer]);
  return forgotten;
}

export interface Claim {
  readonly owner: string;
  readonly now: number;
  readonly leaseUntil: number;
  /** Claim it whether or not it is due: a sync asked for by hand. */
  readonly due: 'when due' | 'now';
}

/** A customer taken for a sync: its state, and its catalogue's version as the sync starts. */
export interface ClaimedCustomer {
  readonly state: SyncState;
  readonly catalogueVersion: number;
}

/**
 * Takes the customer for `claim.owner` until `claim.leaseUntil`, if no other process holds it
 * and it is due: its state as the sync starts, with its catalogue's version, or undefined when it
 * was not taken. One statement, so two processes asking at once cannot both take it.
 */
export async function claimCustomer(db: SqlClient, customer: string, claim: Claim): Promise<ClaimedCustomer | undefined> {
  const now = stamp(claim.now);
  const free = leaseFree(claim.now, claim.owner);
  const [row] = await db.writeAlone<SyncStateRow & { version_now: number | null }>(
    `UPDATE sync_state SET lease_owner = ?, lease_until = ?, attempted_at = ?
     WHERE customer = ? AND ${free.sql} AND (due_at <= ? OR ? = 1)
     RETURNING ${COLUMNS}, (SELECT version FROM catalogue WHERE customer = ?) AS version_now`,
    [claim.owner, stamp(claim.leaseUntil), now, customer, ...free.params, now, claim.due === 'now' ? 1 : 0, customer],
  );
  return row && { state: stateFromRow(row), catalogueVersion: row.version_now ?? 0 };
}

/** When the customer's lists are next due, as a sync ends. */
export interface NextDue {
  readonly dueAt: number;
  readonly catalogueDueAt: number;
}

export interface Success extends NextDue {
  readonly at: number;
  /** Every list was read. */
  readonly full: boolean;
  readonly changed: boolean;
  readonly etags: Readonly<Record<string, string>>;
  readonly catalogueVersion: number;
}

/** A customer as one sync holds it: by the process `owner`, syncing from `url`. */
export interface HeldCustomer {
  readonly customer: string;
  readonly owner: string;
  readonly url: string;
}

/**
 * Records a sync that succeeded and lets go of the customer. False when its owner no longer held it
 * (another process took it once the lease ran out): the caller's transaction must not commit.
 */
export async function recordSuccess(tx: SqlClient, held: HeldCustomer, success: Success): Promise<boolean> {
  const at = stamp(success.at);
  return updateHeld(
    tx,
    held,
    `due_at = ?, catalogue_due_at = ?, etags = ?, catalogue_version = ?, succeeded_at = ?,
     catalogue_succeeded_at = ${success.full ? '?' : 'catalogue_succeeded_at'}, changed_at = ${success.changed ? '?' : 'changed_at'}, failures = 0, last_error = NULL`,
    [stamp(success.dueAt), stamp(success.catalogueDueAt), JSON.stringify(success.etags), success.catalogueVersion, at, ...(success.full ? [at] : []), ...(success.changed ? [at] : [])],
  );
}

/** Records a sync that failed, and lets go of the customer; false as for recordSuccess. */
export async function recordFailure(tx: SqlClient, held: HeldCustomer, failure: NextDue & { readonly error: string }): Promise<boolean> {
  return updateHeld(tx, held, 'due_at = ?, catalogue_due_at = ?, failures = failures + 1, last_error = ?', [
    stamp(failure.dueAt),
    stamp(failure.catalogueDueAt),
    failure.error,
  ]);
}

/**
 * Writes `assignments` to the state of a customer `held` holds, and lets go of it; false when it
 * no longer holds it. When another process has moved the customer to another URL meanwhile (its
 * list changed), the state stays as the move left it (every list due at once, no ETags): a sync
 * of the old URL must not put off reading the new one.
 */
async function updateHeld(tx: SqlClient, { customer, owner, url }: HeldCustomer, assignments: string, params: readonly SqlValue[]): Promise<boolean> {
  const release = 'lease_owner = NULL, lease_until = NULL';
  const recorded = await tx.query(`UPDATE sync_state SET ${assignments}, ${release} WHERE customer = ? AND lease_owner = ? AND url = ? RETURNING customer`, [...params, customer, owner, url]);
  if (recorded.length > 0) return true;
  const released = await tx.query(`UPDATE sync_state SET ${release} WHERE customer = ? AND lease_owner = ? RETURNING customer`, [customer, owner]);
  return released.length > 0;
}

export async function loadSyncState(db: SqlClient, customer: string): Promise<SyncState | undefined> {
  const [row] = await db.query<SyncStateRow>(`SELECT ${COLUMNS} FROM sync_state WHERE customer = ?`, [customer]);
  return row && stateFromRow(row);
}

/** Every customer synced, by key. */
export async function loadSyncStates(db: SqlClient): Promise<SyncState[]> {
  const rows = await db.query<SyncStateRow>(`SELECT ${COLUMNS} FROM sync_state ORDER BY customer`);
  return rows.map(stateFromRow);
}
