/** Secrets every server of one database shares, such as the key that signs the pictures' URLs. */
import { randomBytes } from 'node:crypto';
import type { SqlClient } from './sql-client.js';

/**
 * The secret named `name`, made by the first server that asks for it; every later one reads
 * the same. Two servers asking at once both insert, and the second insert does nothing.
 */
export async function loadSharedSecret(db: SqlClient, name: string): Promise<string> {
  await db.transaction((tx) => tx.execute('INSERT INTO server_secret (name, secret) VALUES (?, ?) ON CONFLICT (name) DO NOTHING', [name, randomBytes(32).toString('base64url')]));
  const [row] = await db.query<{ secret: string }>('SELECT secret FROM server_secret WHERE name = ?', [name]);
  return (row as { secret: string }).secret;
}
