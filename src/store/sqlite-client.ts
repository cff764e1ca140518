import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { SqlClient, SqlValue, TransactionOptions } from './sql-client.js';

/** SQLite through better-sqlite3: WAL, so readers never wait for an import to commit. */
export class SqliteClient implements SqlClient {
  /** SQLite's default collation, BINARY, compares bytes, and UTF-8 bytes order as code points do. */
  readonly exactTextType = 'TEXT';
  private readonly statements = new Map<string, Database.Statement>();
  private inTransaction = false;

  private constructor(private readonly db: Database.Database) {}

  static open(path: string): SqliteClient {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    const db = new Database(path);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    // Several servers and an importer may share the file: wait for a lock instead of failing.
    db.pragma('busy_timeout = 5000');
    return new SqliteClient(db);
  }

  private statement(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  async query<Row>(sql: string, params: readonly SqlValue[] = []): Promise<Row[]> {
    return this.statement(sql).all(...params) as Row[];
  }

  async execute(sql: string, params: readonly SqlValue[] = []): Promise<void> {
    const statement = this.statement(sql);
    if (statement.reader) statement.all(...params);
    else statement.run(...params);
  }

  async transaction<T>(work: (tx: SqlClient) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    if (this.inTransaction) throw new Error('SQLite transactions do not nest');
    // A writer takes the lock up front (IMMEDIATE), so two importers queue instead of
    // deadlocking; a reader's DEFERRED transaction reads one WAL snapshot and blocks nobody.
    this.db.exec(options.readOnly ? 'BEGIN DEFERRED' : 'BEGIN IMMEDIATE');
    this.inTransaction = true;
    try {
      const result = await work(this);
      this.db.exec('COMMIT');
      return result;
    } catch (error) {
      this.db.exec('ROLLBACK');
      throw error;
    } finally {
      this.inTransaction = false;
    }
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
