import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { DatabaseBusyError, type SqlClient, type SqlValue, type TransactionOptions } from './sql-client.js';

const BUSY_TIMEOUT_MS = 5000;

/** SQLite through better-sqlite3: WAL, so readers never wait for an import to commit. */
export class SqliteClient implements SqlClient {
  /** SQLite's default collation, BINARY, compares bytes, and UTF-8 bytes order as code points do. */
  readonly exactTextType = 'TEXT';
  private readonly statements = new Map<string, Database.Statement>();
  /** Prepared apart from `statements`: a statement returns either objects or arrays, never both. */
  private readonly arrayStatements = new Map<string, Database.Statement>();
  private inTransaction = false;

  private constructor(private readonly db: Database.Database) {}

  static open(path: string): SqliteClient {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    const db = new Database(path);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    // Several servers and an importer may share the file: wait for a lock instead of failing.
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    return new SqliteClient(db);
  }

  private statement(sql: string, rows: 'objects' | 'arrays' = 'objects'): Database.Statement {
    const statements = rows === 'objects' ? this.statements : this.arrayStatements;
    let statement = statements.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare(sql);
      if (rows === 'arrays') statement.raw(true);
      statements.set(sql, statement);
    }
    return statement;
  }

  async query<Row>(sql: string, params: readonly SqlValue[] = []): Promise<Row[]> {
    // better-sqlite3 runs on the caller's thread: each query takes its own turn of the event
    // loop, so a server answers requests between the pages of a long read.
    await nextTurn();
    return this.statement(sql).all(...params) as Row[];
  }

  async queryArrays<Row extends readonly SqlValue[]>(sql: string, params: readonly SqlValue[] = []): Promise<Row[]> {
    await nextTurn();
    return this.statement(sql, 'arrays').all(...params) as Row[];
  }

  async execute(sql: string, params: readonly SqlValue[] = []): Promise<void> {
    const statement = this.statement(sql);
    if (statement.reader) statement.all(...params);
    else statement.run(...params);
  }

  async transaction<T>(work: (tx: SqlClient) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    if (this.inTransaction) {
      // One connection holds one transaction at a time; a server's catalogue reload holds its read
      // transaction over many turns of the event loop, during which a background write may come.
      if (options.failIfBusy) throw new DatabaseBusyError('another transaction is open on this connection');
      throw new Error('SQLite transactions do not nest');
    }
    // A writer takes the lock up front (IMMEDIATE), so two importers queue instead of
    // deadlocking; a reader's DEFERRED transaction reads one WAL snapshot and blocks nobody.
    if (options.readOnly) this.db.exec('BEGIN DEFERRED');
    else if (options.failIfBusy) this.beginWithoutWaiting();
    else this.db.exec('BEGIN IMMEDIATE');
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

  /** better-sqlite3 waits for a lock inside the call, blocking every request of the process. */
  private beginWithoutWaiting(): void {
    this.db.pragma('busy_timeout = 0');
    try {
      this.db.exec('BEGIN IMMEDIATE');
    } catch (error) {
      throw (error as { code?: string }).code === 'SQLITE_BUSY' ? new DatabaseBusyError() : error;
    } finally {
      this.db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    }
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
