/** What `marquee sync` remembers of each upstream, per customer. */
import type { SqlClient } from './sql-client.js';

export interface SyncSource {
  /** The ETag each list answered with, by its path. */
  readonly etags: Readonly<Record<string, string>>;
  /** The local catalogue version the last sync left. */
  readonly catalogueVersion: number;
}

export async function loadSyncSource(db: SqlClient, customer: string, url: string): Promise<SyncSource | undefined> {
  const [row] = await db.query<{ etags: string | null; catalogue_version: number }>(
    'SELECT etags, catalogue_version FROM sync_source WHERE customer = ? AND url = ?',
    [customer, url],
  );
  // A row written before the ETags of every list were kept has none: the next sync reads every list.
  return row && { etags: row.etags === null ? {} : (JSON.parse(row.etags) as Record<string, string>), catalogueVersion: row.catalogue_version };
}

export async function saveSyncSource(db: SqlClient, customer: string, url: string, source: SyncSource): Promise<void> {
  await db.execute(
    `INSERT INTO sync_source (customer, url, etags, catalogue_version, synced_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (customer, url) DO UPDATE SET etags = excluded.etags, catalogue_version = excluded.catalogue_version, synced_at = excluded.synced_at`,
    [customer, url, JSON.stringify(source.etags), source.catalogueVersion, new Date().toISOString()],
  );
}
