/** The key of the digests that name customers in cache tags (CONTRACT §14), kept in the database so that every server names them alike. */
import { randomBytes } from 'node:crypto';
import type { SqlClient } from './sql-client.js';

/** The key of the cache tags' digests, made by the first process that asks for it. */
export async function loadCacheTagKey(db: SqlClient): Promise<string> {
  const [found] = await db.query<{ secret: string }>('SELECT secret FROM cache_tag_key WHERE singleton = 1');
  if (found !== undefined) return found.secret;
  return db.transaction(async (tx) => {
    await tx.execute('INSERT INTO cache_tag_key (singleton, secret) VALUES (1, ?) ON CONFLICT (singleton) DO NOTHING', [randomBytes(32).toString('base64url')]);
    const [row] = await tx.query<{ secret: string }>('SELECT secret FROM cache_tag_key WHERE singleton = 1');
    return (row as { secret: string }).secret;
  });
}
