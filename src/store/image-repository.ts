/**
 * The pictures read from their sources (CONTRACT §13), kept in the database that every server
 * shares. A picture's size stays known when its bytes are let go to stay within the room given to
 * them, so that the programme's answers do not change.
 */
import type { SqlClient } from './sql-client.js';

/** What the programme needs of a picture read: its size in pixels, and whether it has transparency. */
export interface SourceSize {
  readonly width: number;
  readonly height: number;
  readonly transparent: boolean;
}

export interface KeptSource extends SourceSize {
  /** A digest of its URL. */
  readonly id: string;
  readonly url: string;
  readonly content: Buffer;
}

/** How many pictures were ever read: it grows whenever any server reads a new one. */
export async function countSources(db: SqlClient): Promise<number> {
  const [row] = await db.query<{ sources: number | string }>('SELECT count(*) AS sources FROM image_source');
  return Number(row?.sources ?? 0);
}

/** The size of every picture ever read, by the digest of its URL. */
export async function loadSourceSizes(db: SqlClient): Promise<Map<string, SourceSize>> {
  const rows = await db.queryArrays<[string, number, number, number]>('SELECT id, width, height, transparent FROM image_source');
  return new Map(rows.map(([id, width, height, transparent]) => [id, { width: Number(width), height: Number(height), transparent: Number(transparent) === 1 }]));
}

/** The picture of `id` while its bytes are kept, noting that it was used `now`. */
export async function loadSource(db: SqlClient, id: string, now: Date): Promise<KeptSource | undefined> {
  const [row] = await db.query<{ url: string; width: number; height: number; transparent: number; content: Uint8Array | null }>(
    'SELECT url, width, height, transparent, content FROM image_source WHERE id = ?',
    [id],
  );
  if (row === undefined || row.content === null) return undefined;
  await db.execute('UPDATE image_source SET used_at = ? WHERE id = ?', [now.toISOString(), id]);
  const content = Buffer.from(row.content.buffer, row.content.byteOffset, row.content.byteLength);
  return { id, url: row.url, width: Number(row.width), height: Number(row.height), transparent: Number(row.transparent) === 1, content };
}

/**
 * Keeps `source`, then lets go of the bytes of the least recently used pictures until those kept
 * take at most `roomBytes`, in one transaction.
 */
export async function keepSource(db: SqlClient, source: KeptSource, roomBytes: number, now: Date): Promise<void> {
  const at = now.toISOString();
  await db.transaction(async (tx) => {
    await tx.execute(
      `INSERT INTO image_source (id, url, width, height, transparent, bytes, content, read_at, used_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET width = excluded.width, height = excluded.height, transparent = excluded.transparent,
         bytes = excluded.bytes, content = excluded.content, read_at = excluded.read_at, used_at = excluded.used_at`,
      [source.id, source.url, source.width, source.height, source.transparent ? 1 : 0, source.content.length, source.content, at, at],
    );
    const kept = await tx.queryArrays<[string, number]>('SELECT id, bytes FROM image_source WHERE content IS NOT NULL ORDER BY used_at DESC, id');
    let total = 0;
    for (const [id, bytes] of kept) {
      total += Number(bytes);
      if (total > roomBytes) await tx.execute('UPDATE image_source SET content = NULL WHERE id = ?', [id]);
    }
  });
}
