/**
 * Opens the database a `--database` value names: a SQLite file (a path or `sqlite:PATH`) or a
 * PostgreSQL URL. This is the one place that tells the databases apart.
 */
import { SqliteClient } from './sqlite-client.js';
import { migrate } from './migrations.js';
import type { SqlClient } from './sql-client.js';

export const DEFAULT_DATABASE = './data/marquee.db';

export class DatabaseSpecError extends Error {}

export type DatabaseSpec = { readonly kind: 'sqlite'; readonly path: string } | { readonly kind: 'postgres'; readonly url: string };

export function parseDatabaseSpec(text: string): DatabaseSpec {
  if (/^postgres(ql)?:\/\//i.test(text)) return { kind: 'postgres', url: text };
  const path = text.replace(/^sqlite:/i, '');
  if (path === '') throw new DatabaseSpecError('the database path is empty');
  return { kind: 'sqlite', path };
}

/** Opens the database and brings its schema up to date. */
export async function openDatabase(spec: DatabaseSpec): Promise<SqlClient> {
  if (spec.kind === 'postgres') throw new DatabaseSpecError('PostgreSQL databases are not supported by this version; use a SQLite path');
  const db = SqliteClient.open(spec.path);
  try {
    await migrate(db);
  } catch (error) {
    await db.close();
    throw error;
  }
  return db;
}
