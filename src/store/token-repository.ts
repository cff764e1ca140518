/**
 * Reading and writing access tokens. Every function takes the database or the transaction it
 * works in; the caller decides where a transaction begins and ends. The token itself is never
 * stored, only its digest, and only the server's loader reads the digest back.
 */
import type { TokenInfo, TokenKind } from '../access/access-token.js';
import type { StoredDigest } from '../access/token-set.js';
import type { SqlClient } from './sql-client.js';

interface TokenRow {
  id: number;
  customer: string;
  kind: TokenKind;
  label: string | null;
  origins: string | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

interface DigestRow {
  id: number;
  customer: string;
  kind: TokenKind;
  origins: string | null;
  digest: string;
  revoked_at: string | null;
}

const TOKEN_COLUMNS = 'id, customer, kind, label, origins, created_at, last_used_at, revoked_at';

/** The origins column: a JSON array, or null for none. */
function originsFromColumn(column: string | null): readonly string[] {
  return column === null ? [] : (JSON.parse(column) as string[]);
}

function tokenFromRow(row: TokenRow): TokenInfo {
  return {
    id: row.id,
    customer: row.customer,
    kind: row.kind,
    label: row.label,
    origins: originsFromColumn(row.origins),
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  };
}

export interface NewToken {
  readonly customer: string;
  readonly kind: TokenKind;
  readonly label: string | null;
  readonly origins: readonly string[];
  /** SHA-256 of the token, in lower-case hex. */
  readonly digest: string;
  readonly createdAt: string;
}

/**
 * Marks the tokens as changed; servers reload when they see a new version. A writer calls it
 * first in its transaction: the row lock it takes queues concurrent writers on PostgreSQL, so
 * the next id is read after the previous writer committed.
 */
export async function bumpTokenVersion(tx: SqlClient): Promise<void> {
  await tx.execute('UPDATE access_token_version SET version = version + 1 WHERE singleton = 1');
}

export async function loadTokenVersion(db: SqlClient): Promise<number> {
  const [row] = await db.query<{ version: number }>('SELECT version FROM access_token_version WHERE singleton = 1');
  return row?.version ?? 0;
}

/** Stores a token under the next id, one more than any ever issued, and returns that id. */
export async function insertToken(tx: SqlClient, token: NewToken): Promise<number> {
  const [next] = await tx.query<{ id: number }>('SELECT COALESCE(MAX(id), 0) + 1 AS id FROM access_token');
  const id = next?.id ?? 1;
  await tx.execute('INSERT INTO access_token (id, customer, kind, label, origins, digest, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)', [
    id,
    token.customer,
    token.kind,
    token.label,
    token.origins.length === 0 ? null : JSON.stringify(token.origins),
    token.digest,
    token.createdAt,
  ]);
  return id;
}

/** Every token ever issued, revoked ones included, by id. */
export async function loadTokens(db: SqlClient): Promise<TokenInfo[]> {
  const rows = await db.query<TokenRow>(`SELECT ${TOKEN_COLUMNS} FROM access_token ORDER BY id`);
  return rows.map(tokenFromRow);
}

export async function loadToken(db: SqlClient, id: number): Promise<TokenInfo | undefined> {
  const [row] = await db.query<TokenRow>(`SELECT ${TOKEN_COLUMNS} FROM access_token WHERE id = ?`, [id]);
  return row === undefined ? undefined : tokenFromRow(row);
}

export async function markTokenRevoked(tx: SqlClient, id: number, revokedAt: string): Promise<void> {
  await tx.execute('UPDATE access_token SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL', [revokedAt, id]);
}

/** What a server needs to admit requests: digests, their customers, kinds and origins. */
export async function loadTokenDigests(db: SqlClient): Promise<StoredDigest[]> {
  const rows = await db.query<DigestRow>('SELECT id, customer, kind, origins, digest, revoked_at FROM access_token');
  return rows.map((row) => ({
    id: row.id,
    customer: row.customer,
    kind: row.kind,
    origins: originsFromColumn(row.origins),
    digest: row.digest,
    revoked: row.revoked_at !== null,
  }));
}

/**
 * Records when tokens were last used. Several servers may record the same token: the latest
 * time wins, whichever writes last (ISO-8601 UTC timestamps sort as text).
 */
export async function recordTokenUses(tx: SqlClient, uses: ReadonlyMap<number, string>): Promise<void> {
  for (const [id, usedAt] of uses) {
    await tx.execute('UPDATE access_token SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)', [usedAt, id, usedAt]);
  }
}
