/**
 * Opens the database a `--database` value names: a SQLite file (a path or `sqlite:PATH`) or a
 * PostgreSQL URL. This is the one place that tells the databases apart.
 */
import { existsSync } from 'node:fs';
import { checkSchemaVersion, migrate } from './migrations.js';
import type { LockWait, SqlClient } from './sql-client.js';

export const DEFAULT_DATABASE = './data/marquee.db';

export class DatabaseSpecError extends Error {}

/** A database that had to be there already is not: no SQLite file at the path. */
export class NoDatabaseError extends Error {
  constructor(readonly path: string) {
    super(`no database at ${path}`);
    this.name = 'NoDatabaseError';
  }
}

export type DatabaseSpec = { readonly kind: 'sqlite'; readonly path: string } | { readonly kind: 'postgres'; readonly url: string };

export function parseDatabaseSpec(text: string): DatabaseSpec {
  if (/^postgres(ql)?:\/\//i.test(text)) {
    if (!URL.canParse(text)) throw new DatabaseSpecError('must be a valid postgres:// URL');
    return { kind: 'postgres', url: text };
  }
  // Read as a path, mysql://host/db (or file:/x) would be made as a SQLite file in a folder named
  // 'mysql:'. A scheme has two letters at least, so that C:\data is a path.
  const scheme = /^([a-z][a-z0-9+.-]+):/i.exec(text)?.[1];
  const path = text.replace(/^sqlite:/i, '');
  if (path === '' || (scheme !== undefined && scheme.toLowerCase() !== 'sqlite')) throw new DatabaseSpecError('must name a SQLite file or a postgres:// URL');
  return { kind: 'sqlite', path };
}

export interface OpenOptions {
  /**
   * The process only reads this database, as from a replica: its schema is checked, never
   * migrated, since a replica takes no writes and gets its schema from its primary.
   */
  readonly readOnly?: boolean;
  /**
   * The database must be there already: a SQLite file is never made. So with `readOnly`, and for
   * a command that only reads, which would read a mistyped path as an empty catalogue.
   */
  readonly existing?: boolean;
  /** How its read-write transactions wait for another writer; a minute, silently, unless given. */
  readonly lockWait?: LockWait;
}

/** Opens the database and brings its schema up to date. */
export async function openDatabase(spec: DatabaseSpec, options: OpenOptions = {}): Promise<SqlClient> {
  // PostgreSQL never makes a database on connecting; SQLite makes the file unless it is looked for first.
  if (spec.kind === 'sqlite' && (options.existing || options.readOnly) && spec.path !== ':memory:' && !existsSync(spec.path)) throw new NoDatabaseError(spec.path);
  // Each driver is loaded only when used: a command starts faster without the other one.
  const db =
    spec.kind === 'postgres'
      ? (await import('./postgres-client.js')).PostgresClient.open(spec.url, options.lockWait)
      : (await import('./sqlite-client.js')).SqliteClient.open(spec.path, options.lockWait);
  try {
    await (options.readOnly ? checkSchemaVersion(db) : migrate(db));
  } catch (error) {
    await db.close();
    throw error;
  }
  return db;
}
