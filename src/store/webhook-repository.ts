/**
 * Webhook endpoints and their deliveries (CONTRACT §14), and how long changes are kept. Every
 * function takes the database or the transaction it works in. Times are milliseconds since the
 * epoch here, ISO 8601 text in the database.
 */
import type { TryOutcome } from '../changes/retry-schedule.js';
import { leaseFree, stamp } from './leases.js';
import { limitTo, type SqlClient } from './sql-client.js';

/** An endpoint as operators see it: never its secret. */
export interface WebhookEndpoint {
  readonly id: number;
  readonly customer: string;
  readonly url: string;
  readonly label: string | null;
  readonly createdAt: string;
  /** Every change up to this version has been delivered, or was made before the endpoint was added. */
  readonly deliveredVersion: number;
  /** Failed tries of the next change. */
  readonly failures: number;
  readonly dueAt: string;
  readonly disabledAt: string | null;
  readonly disabledReason: string | null;
}

/** An endpoint a process took to deliver its next change to. */
export interface TakenEndpoint {
  readonly id: number;
  readonly customer: string;
  readonly url: string;
  readonly secret: string;
  readonly deliveredVersion: number;
  readonly failures: number;
  readonly failingSince: number | null;
}

/** One try of one delivery, for `webhook deliveries`. */
export interface DeliveryAttempt {
  readonly endpointId: number;
  readonly version: number;
  readonly attempt: number;
  readonly attemptedAt: string;
  /** The endpoint's answer, or null when none came. */
  readonly status: number | null;
  /** Why no answer came, or why the answer is not a delivery. */
  readonly error: string | null;
  /** When the delivery is tried again; null once delivered or given up. */
  readonly nextAt: string | null;
}

interface EndpointRow {
  id: number;
  customer: string;
  url: string;
  label: string | null;
  created_at: string;
  delivered_version: number;
  failures: number;
  due_at: string;
  disabled_at: string | null;
  disabled_reason: string | null;
}

const ENDPOINT_COLUMNS = 'id, customer, url, label, created_at, delivered_version, failures, due_at, disabled_at, disabled_reason';

function endpointFromRow(row: EndpointRow): WebhookEndpoint {
  return {
    id: Number(row.id),
    customer: row.customer,
    url: row.url,
    label: row.label,
    createdAt: row.created_at,
    deliveredVersion: Number(row.delivered_version),
    failures: Number(row.failures),
    dueAt: row.due_at,
    disabledAt: row.disabled_at,
    disabledReason: row.disabled_reason,
  };
}

export interface NewEndpoint {
  readonly customer: string;
  readonly url: string;
  readonly label: string | null;
  readonly secret: string;
  readonly now: number;
}

/**
 * Registers an endpoint under the next id; it hears of the changes committed after this
 * transaction, not of those before.
 */
export async function insertEndpoint(tx: SqlClient, endpoint: NewEndpoint): Promise<WebhookEndpoint> {
  const [next] = await tx.query<{ id: number }>('SELECT COALESCE(MAX(id), 0) + 1 AS id FROM webhook_endpoint');
  const [catalogue] = await tx.query<{ version: number }>('SELECT version FROM catalogue WHERE customer = ?', [endpoint.customer]);
  const now = stamp(endpoint.now);
  await tx.execute(
    `INSERT INTO webhook_endpoint (id, customer, url, label, secret, created_at, delivered_version, due_at, failures)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0)`,
    [Number(next?.id ?? 1), endpoint.customer, endpoint.url, endpoint.label, endpoint.secret, now, Number(catalogue?.version ?? 0), now],
  );
  const [row] = await tx.query<EndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoint WHERE id = ?`, [Number(next?.id ?? 1)]);
  return endpointFromRow(row as EndpointRow);
}

export async function loadEndpoints(db: SqlClient): Promise<WebhookEndpoint[]> {
  const rows = await db.query<EndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoint ORDER BY id`);
  return rows.map(endpointFromRow);
}

/** Removes an endpoint and its deliveries; the endpoint removed, or undefined when there was none. */
export async function deleteEndpoint(tx: SqlClient, id: number): Promise<WebhookEndpoint | undefined> {
  const [row] = await tx.query<EndpointRow>(`DELETE FROM webhook_endpoint WHERE id = ? RETURNING ${ENDPOINT_COLUMNS}`, [id]);
  await tx.execute('DELETE FROM webhook_delivery WHERE endpoint_id = ?', [id]);
  return row && endpointFromRow(row);
}

export interface Take {
  readonly owner: string;
  readonly now: number;
  readonly leaseUntil: number;
  readonly limit: number;
}

/**
 * Up to `limit` enabled endpoints with a change to deliver whose next try is due and that no
 * other process holds, due longest first. Only read: a process that finds nothing writes nothing,
 * so processes that wake at each other's commits do not wake each other without end.
 */
export async function findDueEndpoints(db: SqlClient, take: Take): Promise<number[]> {
  const free = leaseFree(take.now, take.owner);
  const rows = await db.query<{ id: number }>(
    `SELECT id FROM webhook_endpoint
     WHERE disabled_at IS NULL AND due_at <= ? AND ${free.sql}
       AND delivered_version < (SELECT version FROM catalogue WHERE catalogue.customer = webhook_endpoint.customer)
     ORDER BY due_at ${limitTo(take.limit)}`,
    [stamp(take.now), ...free.params],
  );
  return rows.map((row) => Number(row.id));
}

/**
 * Takes for `take.owner` those of `ids` that no other process holds. The lease is checked on each
 * row as it is updated, so two processes asking at once never both take one endpoint.
 */
export async function takeEndpoints(tx: SqlClient, ids: readonly number[], take: Take): Promise<TakenEndpoint[]> {
  if (ids.length === 0) return [];
  const free = leaseFree(take.now, take.owner);
  const rows = await tx.query<{ id: number; customer: string; url: string; secret: string; delivered_version: number; failures: number; failing_since: string | null }>(
    `UPDATE webhook_endpoint SET lease_owner = ?, lease_until = ?
     WHERE id IN (${ids.map(() => '?').join(', ')}) AND disabled_at IS NULL AND ${free.sql}
     RETURNING id, customer, url, secret, delivered_version, failures, failing_since`,
    [take.owner, stamp(take.leaseUntil), ...ids, ...free.params],
  );
  return rows.map((row) => ({
    id: Number(row.id),
    customer: row.customer,
    url: row.url,
    secret: row.secret,
    deliveredVersion: Number(row.delivered_version),
    failures: Number(row.failures),
    failingSince: row.failing_since === null ? null : Date.parse(row.failing_since),
  }));
}

/**
 * Records a try of delivering `version` to the endpoint `owner` holds, and lets go of it: the
 * next change is due at once after a delivery, this one again at `nextAt` after a failure, and
 * nothing more after the endpoint was disabled. False when `owner` no longer held the endpoint
 * (another process took it, or it was removed): nothing was recorded.
 */
export async function recordTry(tx: SqlClient, endpoint: TakenEndpoint, owner: string, version: number, now: number, outcome: TryOutcome): Promise<boolean> {
  const at = stamp(now);
  const release = 'lease_owner = NULL, lease_until = NULL';
  const held = 'WHERE id = ? AND lease_owner = ?';
  const updated =
    outcome.kind === 'delivered'
      ? await tx.query(`UPDATE webhook_endpoint SET delivered_version = ?, failures = 0, failing_since = NULL, due_at = ?, ${release} ${held} RETURNING id`, [
          version,
          at,
          endpoint.id,
          owner,
        ])
      : outcome.kind === 'failed'
        ? await tx.query(`UPDATE webhook_endpoint SET failures = failures + 1, failing_since = COALESCE(failing_since, ?), due_at = ?, ${release} ${held} RETURNING id`, [
            at,
            stamp(outcome.nextAt),
            endpoint.id,
            owner,
          ])
        : await tx.query(`UPDATE webhook_endpoint SET failures = failures + 1, disabled_at = ?, disabled_reason = ?, ${release} ${held} RETURNING id`, [
            at,
            outcome.reason,
            endpoint.id,
            owner,
          ]);
  if (updated.length === 0) return false;
  await tx.execute('INSERT INTO webhook_delivery (endpoint_id, version, attempt, attempted_at, status, error, next_at) VALUES (?, ?, ?, ?, ?, ?, ?)', [
    endpoint.id,
    version,
    endpoint.failures + 1,
    at,
    outcome.status,
    outcome.kind === 'delivered' ? null : outcome.error,
    outcome.kind === 'failed' ? stamp(outcome.nextAt) : null,
  ]);
  return true;
}

/** Moves an endpoint `owner` holds past changes no longer kept, to the catalogue's version, and lets go of it. */
export async function skipTo(tx: SqlClient, endpoint: TakenEndpoint, owner: string, version: number): Promise<void> {
  await tx.execute('UPDATE webhook_endpoint SET delivered_version = ?, failures = 0, failing_since = NULL, lease_owner = NULL, lease_until = NULL WHERE id = ? AND lease_owner = ?', [
    version,
    endpoint.id,
    owner,
  ]);
}

/** Tries of deliveries, newest first: of one endpoint or all, only those that did not deliver if asked. */
export async function loadDeliveries(db: SqlClient, filter: { readonly endpointId?: number; readonly failedOnly: boolean; readonly limit: number }): Promise<DeliveryAttempt[]> {
  const conditions = [...(filter.endpointId === undefined ? [] : ['endpoint_id = ?']), ...(filter.failedOnly ? ['(status IS NULL OR status < 200 OR status > 299)'] : [])];
  const rows = await db.query<{ endpoint_id: number; version: number; attempt: number; attempted_at: string; status: number | null; error: string | null; next_at: string | null }>(
    `SELECT endpoint_id, version, attempt, attempted_at, status, error, next_at FROM webhook_delivery
     ${conditions.length === 0 ? '' : `WHERE ${conditions.join(' AND ')}`}
     ORDER BY attempted_at DESC, endpoint_id, version DESC, attempt DESC LIMIT ?`,
    [...(filter.endpointId === undefined ? [] : [filter.endpointId]), filter.limit],
  );
  return rows.map((row) => ({
    endpointId: Number(row.endpoint_id),
    version: Number(row.version),
    attempt: Number(row.attempt),
    attemptedAt: row.attempted_at,
    status: row.status === null ? null : Number(row.status),
    error: row.error,
    nextAt: row.next_at,
  }));
}

/**
 * Lets go of the changes made before `before`, and the tries of deliveries made before it, but
 * never a change an enabled endpoint has still to be sent.
 */
export async function pruneChanges(tx: SqlClient, before: number): Promise<void> {
  await tx.execute(
    `DELETE FROM catalogue_change WHERE changed_at < ? AND NOT EXISTS (
       SELECT 1 FROM webhook_endpoint e WHERE e.customer = catalogue_change.customer AND e.disabled_at IS NULL AND e.delivered_version < catalogue_change.version
     )`,
    [stamp(before)],
  );
  await tx.execute('DELETE FROM webhook_delivery WHERE attempted_at < ?', [stamp(before)]);
}

/** The oldest change of the customer still kept, or undefined when none is. */
export async function oldestKeptChange(db: SqlClient, customer: string): Promise<number | undefined> {
  const [row] = await db.query<{ version: number | null }>('SELECT MIN(version) AS version FROM catalogue_change WHERE customer = ?', [customer]);
  return row?.version === null || row?.version === undefined ? undefined : Number(row.version);
}
