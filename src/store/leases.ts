/**
 * How processes on one database share work: a row of work (a customer to sync, an endpoint to
 * deliver to) is taken by one process at a time through a lease, the columns `lease_owner` and
 * `lease_until` of its table. A process renews its leases while it works and gives them up as it
 * ends; when one dies, its rows are taken by the others as soon as their leases run out. A write
 * that ends a piece of work checks, in its transaction, that the lease is still its own.
 */
import { randomUUID } from 'node:crypto';
import type { SqlClient, SqlValue } from './sql-client.js';

/** The tables whose rows are leased. */
export type LeasedTable = 'sync_state' | 'webhook_endpoint';

/** The condition that `owner` may take a row at `now`: nobody holds it, its holder's time ran out, or `owner` holds it. */
export function leaseFree(now: number, owner: string): { readonly sql: string; readonly params: readonly SqlValue[] } {
  return { sql: '(lease_until IS NULL OR lease_until <= ? OR lease_owner = ?)', params: [stamp(now), owner] };
}

export const stamp = (ms: number): string => new Date(ms).toISOString();

/** Holds every row `owner` holds in `table` until `until`. */
export async function renewLeases(tx: SqlClient, table: LeasedTable, owner: string, until: number): Promise<void> {
  await tx.execute(`UPDATE ${table} SET lease_until = ? WHERE lease_owner = ?`, [stamp(until), owner]);
}

/** Lets go of every row `owner` holds in `table`, as its process stops. */
export async function releaseLeases(tx: SqlClient, table: LeasedTable, owner: string): Promise<void> {
  await tx.execute(`UPDATE ${table} SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = ?`, [owner]);
}

/**
 * One process's leases on one table: its name as leases know it, their renewal every third of a
 * lease while it holds any, and their release as it stops.
 */
export class LeaseKeeper {
  /** This process, as the leases name it. */
  readonly owner = randomUUID();
  private renewal: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: SqlClient,
    private readonly table: LeasedTable,
    readonly leaseMs: number,
    private readonly onDatabaseError: (error: unknown) => void,
  ) {}

  /** When a lease taken at `now` runs out. */
  until(now: number): number {
    return now + this.leaseMs;
  }

  /** Renews the leases, while `holding` says the process holds some. */
  start(holding: () => boolean): void {
    this.renewal = setInterval(() => {
      if (!holding()) return;
      this.db.transaction((tx) => renewLeases(tx, this.table, this.owner, this.until(Date.now()))).catch(this.onDatabaseError);
    }, this.leaseMs / 3);
  }

  /** Stops renewing and lets go of every lease: once the work under way has ended. */
  async stop(): Promise<void> {
    clearInterval(this.renewal);
    await this.db.transaction((tx) => releaseLeases(tx, this.table, this.owner)).catch(this.onDatabaseError);
  }
}
