/** What `marquee sync` remembers of each upstream, per customer. */
import type { SqlClient } from './sql-client.js';

export interface SyncSource {
  readonly filmsEtag: string | null;
  readonly packagesEtag: string | null;
  /** The local catalogue version the last sync left. */
  readonly catalogueVersion: number;
}

export async function loadSyncSource(db: SqlClient, customer: string, url: string): Promise<SyncSource | undefined> {
  const [row] = await db.query<{ films_etag: string | null; packages_etag: string | null; catalogue_version: number }>(
    'SELECT films_etag, packages_etag, catalogue_version FROM sync_source WHERE customer = ? AND url = ?',
    [customer, url],
  );
  return row && { filmsEtag: row.films_etag, packagesEtag: row.packages_etag, catalogueVersion: row.catalogue_version };
}

export async function saveSyncSource(db: SqlClient, customer: string, url: string, source: SyncSource): Promise<void> {
  await db.execute(
    `INSERT INTO sync_source (customer, url, films_etag, packages_etag, catalogue_version, synced_at) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (customer, url) DO UPDATE SET films_etag = excluded.films_etag, packages_etag = excluded.packages_etag,
       catalogue_version = excluded.catalogue_version, synced_at = excluded.synced_at`,
    [customer, url, source.filmsEtag, source.packagesEtag, source.catalogueVersion, new Date().toISOString()],
  );
}
