import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { DatabaseBusyError, type SqlClient, type SqlValue, type TransactionOptions } from './sql-client.js';

const BUSY_TIMEOUT_MS = 5000;

/** SQLite through Node's own node:sqlite: WAL, so readers never wait for an import to commit. */
export class SqliteClient implements SqlClient {
  /** SQLite's default collation, BINARY, compares bytes, and UTF-8 bytes order as code points do. */
  readonly exactTextType = 'TEXT';
  private readonly statements = new Map<string, StatementSync>();
  /** Prepared apart from `statements`: a statement returns either objects or arrays, never both. */
  private readonly arrayStatements = new Map<string, StatementSync>();
  private inTransaction = false;

  private constructor(private readonly db: DatabaseSync) {}

  static open(path: string): SqliteClient {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    const db = new DatabaseSync(path);
    db.exec('PRAGMA journal_mode = WAL');
    db.exec('PRAGMA synchronous = NORMAL');
    db.exec('PRAGMA foreign_keys = ON');
    // Several servers and an importer may share the file: wait for a lock instead of failing.
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    return new SqliteClient(db);
  }

  private statement(sql: string, rows: 'objects' | 'arrays' = 'objects'): StatementSync {
    const statements = rows === 'objects' ? this.statements : this.arrayStatements;
    let statement = statements.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare(sql);
      if (rows === 'arrays') statement.setReturnArrays(true);
      statements.set(sql, statement);
    }
    return statement;
  }

  async query<Row>(sql: string, params: readonly SqlValue[] = []): Promise<Row[]> {
    // node:sqlite runs on the caller's thread: each query takes its own turn of the event
    // loop, so a server answers requests between the pages of a long read.
    await nextTurn();
    return this.statement(sql).all(...params) as Row[];
  }

  async queryArrays<Row extends readonly SqlValue[]>(sql: string, params: readonly SqlValue[] = []): Promise<Row[]> {
    await nextTurn();
    return this.statement(sql, 'arrays').all(...params) as unknown as Row[];
  }

  async execute(sql: string, params: readonly SqlValue[] = []): Promise<void> {
    this.statement(sql).run(...params);
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

  /** SQLite waits for a lock inside the call, blocking every request of the process. */
  private beginWithoutWaiting(): void {
    this.db.exec('PRAGMA busy_timeout = 0');
    try {
      this.db.exec('BEGIN IMMEDIATE');
    } catch (error) {
      // node:sqlite reports the extended result code; its low byte is the primary one, 5 for SQLITE_BUSY.
      throw ((error as { errcode?: number }).errcode ?? 0) % 256 === 5 ? new DatabaseBusyError() : error;
    } finally {
      this.db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    }
  }

  async close(): Promise<void> {
    // Closing twice does nothing, as with PostgreSQL.
    if (this.db.isOpen) this.db.close();
  }
}
