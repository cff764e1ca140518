import { watch } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { makeDirectory } from './make-directory.js';
import {
  DatabaseBusyError,
  DatabaseFullError,
  DEFAULT_LOCK_TIMEOUT_MS,
  LockTimeoutError,
  type LockWait,
  type SqlClient,
  type SqlValue,
  type Subscription,
  type TransactionOptions,
  Turns,
} from './sql-client.js';

/**
 * How long SQLite itself may block on the short locks it takes outside a writer's transaction,
 * such as while another process checkpoints its log on closing. A writer's own wait for another
 * writer never blocks: it is retried between turns of the event loop.
 */
const BUSY_TIMEOUT_MS = 5000;
const FIRST_RETRY_MS = 50;
/** How often a listener looks whether another connection committed, while the database is written. */
const COMMIT_CHECK_MS = 20;
/** Looks that found no commit, a second's worth, after which a listener waits for the log to be written again. */
const QUIET_CHECKS = 50;
const LONGEST_RETRY_MS = 1000;

/** Primary result codes, the low byte of the extended code node:sqlite reports as `errcode`. */
const SQLITE_BUSY = 5;
const SQLITE_FULL = 13;

function resultCode(error: unknown): number | undefined {
  const code = (error as { errcode?: unknown } | null)?.errcode;
  return typeof code === 'number' ? code & 0xff : undefined;
}

/** How long opening waits between tries to turn a new database to WAL. */
const WAL_RETRY_MS = 10;

/**
 * Turns the database to WAL from the start. Two processes opening a new database at the same
 * moment both try, and SQLite answers the one that loses "database is locked" at once, without
 * its busy wait (a sync process started beside another died so): it tries again until the busy
 * timeout. Opening happens once, before any request, so the short pauses may block.
 */
function turnToWal(db: DatabaseSync): void {
  const deadline = performance.now() + BUSY_TIMEOUT_MS;
  for (;;) {
    try {
      db.exec('PRAGMA journal_mode = WAL');
      return;
    } catch (error) {
      if (resultCode(error) !== SQLITE_BUSY || performance.now() > deadline) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, WAL_RETRY_MS);
    }
  }
}

/** SQLite through Node's own node:sqlite: WAL, so readers never wait for an import to commit. */
export class SqliteClient implements SqlClient {
  /** SQLite's default collation, BINARY, compares bytes, and UTF-8 bytes order as code points do. */
  readonly exactTextType = 'TEXT';
  private readonly statements = new Map<string, StatementSync>();
  /** Prepared apart from `statements`: a statement returns either objects or arrays, never both. */
  private readonly arrayStatements = new Map<string, StatementSync>();
  /** Transactions, one after another. */
  private readonly turns = new Turns();
  /** Those told of other connections' commits, and what looks for them while there are any. */
  private readonly listeners = new Set<() => void>();
  private commitWatch: { close(): void } | undefined;

  private constructor(
    private readonly db: DatabaseSync,
    private readonly path: string,
    private readonly lockWait: LockWait,
  ) {}

  static open(path: string, lockWait: LockWait = { timeoutMs: DEFAULT_LOCK_TIMEOUT_MS }): SqliteClient {
    if (path !== ':memory:') makeDirectory(dirname(path));
    const db = new DatabaseSync(path, { timeout: BUSY_TIMEOUT_MS });
    turnToWal(db);
    db.exec('PRAGMA synchronous = NORMAL');
    db.exec('PRAGMA foreign_keys = ON');
    return new SqliteClient(db, path, lockWait);
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
    // node:sqlite runs on the caller's thread: each query takes its own turn of the event loop,
    // so a server answers requests between the pages of a long read.
    await nextTurn();
    return this.statement(sql).all(...params) as Row[];
  }

  async queryArrays<Row extends readonly SqlValue[]>(sql: string, params: readonly SqlValue[] = []): Promise<Row[]> {
    await nextTurn();
    return this.statement(sql, 'arrays').all(...params) as unknown as Row[];
  }

  jsonRows(columns: readonly string[], orderBy: string | undefined): string {
    return `json_group_array(json_array(${columns.join(', ')})${orderBy === undefined ? '' : ` ORDER BY ${orderBy}`})`;
  }

  async execute(sql: string, params: readonly SqlValue[] = []): Promise<void> {
    try {
      this.statement(sql).run(...params);
    } catch (error) {
      throw this.explain(error);
    }
  }

  /** A transaction of its own: the connection's one transaction at a time would take in a statement run beside it. */
  writeAlone<Row>(sql: string, params?: readonly SqlValue[]): Promise<Row[]> {
    return this.transaction((tx) => tx.query<Row>(sql, params));
  }

  /**
   * One connection holds one transaction at a time, so transactions take turns, in the order they
   * were asked for: a server builds several customers' catalogues at once, each in a read
   * transaction that spans turns of the event loop. One that must not wait (`failIfBusy`, the
   * background writes of token uses) fails while any other is under way or waiting.
   */
  async transaction<T>(work: (tx: SqlClient) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    if (options.failIfBusy && this.turns.busy) throw new DatabaseBusyError('another transaction is open on this connection');
    return this.turns.take(() => this.runTransaction(work, options));
  }

  private async runTransaction<T>(work: (tx: SqlClient) => Promise<T>, options: TransactionOptions): Promise<T> {
    // A writer takes the lock up front (IMMEDIATE), so two importers queue instead of
    // deadlocking; a reader's DEFERRED transaction reads one WAL snapshot and blocks nobody.
    if (options.readOnly) this.db.exec('BEGIN DEFERRED');
    else if (options.failIfBusy) {
      if (!this.tryBeginWriting()) throw new DatabaseBusyError();
    } else await this.beginWriting();
    try {
      const result = await work(this);
      this.db.exec('COMMIT');
      return result;
    } catch (error) {
      // SQLite has already rolled back after some errors, such as a full disk; a ROLLBACK then
      // would fail, and its error would hide the one that matters.
      if (this.db.isTransaction) this.db.exec('ROLLBACK');
      throw this.explain(error);
    }
  }

  /** Takes the write lock, trying again after short pauses until the lock timeout has passed. */
  private async beginWriting(): Promise<void> {
    const { timeoutMs, onWait } = this.lockWait;
    const deadline = performance.now() + timeoutMs;
    for (let pauseMs = FIRST_RETRY_MS; ; pauseMs = Math.min(pauseMs * 2, LONGEST_RETRY_MS)) {
      if (this.tryBeginWriting()) return;
      const leftMs = deadline - performance.now();
      if (leftMs <= 0) throw new LockTimeoutError(timeoutMs);
      if (pauseMs === FIRST_RETRY_MS) onWait?.();
      await sleep(Math.min(pauseMs, leftMs));
    }
  }

  /** BEGIN IMMEDIATE without SQLite's own wait, which would block every request of the process. */
  private tryBeginWriting(): boolean {
    this.db.exec('PRAGMA busy_timeout = 0');
    try {
      this.db.exec('BEGIN IMMEDIATE');
      return true;
    } catch (error) {
      if (resultCode(error) === SQLITE_BUSY) return false;
      throw error;
    } finally {
      this.db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    }
  }

  /** SQLite's "database or disk is full" told as what the operator must act on. */
  private explain(error: unknown): unknown {
    if (resultCode(error) !== SQLITE_FULL) return error;
    return new DatabaseFullError(`the disk holding ${this.path} is full (SQLITE_FULL)`, { cause: error });
  }

  /**
   * SQLite cannot notify, but `PRAGMA data_version` moves whenever another connection commits,
   * any import included: each move is a signal to every listener, whatever the channel. One
   * watch serves them all, so that a server is woken as often however many parts of it listen.
   * Nothing is missed while listening, so nothing is signalled when it starts.
   */
  listen(_channel: string, onSignal: () => void): Subscription {
    // A function of its own: one listening twice is two listeners, each closed apart.
    const listener = (): void => onSignal();
    this.listeners.add(listener);
    this.commitWatch ??= this.watchCommits();
    return {
      close: async () => {
        this.listeners.delete(listener);
        if (this.listeners.size > 0) return;
        this.commitWatch?.close();
        this.commitWatch = undefined;
      },
    };
  }

  /**
   * Reads `PRAGMA data_version` every COMMIT_CHECK_MS while the database is written, and in
   * between waits for its write-ahead log to be written (inotify) with no timer: a server with
   * nothing to read is not woken. On a virtual machine each wake cost more than the pragma:
   * reading it every COMMIT_CHECK_MS always was about 1 % of a core for a server doing nothing,
   * and reading it at each write of the log cost more than that while a sync committed 30 times
   * a second. Where the log cannot be watched (a database in memory, a file system without
   * inotify) it is read every COMMIT_CHECK_MS always.
   */
  private watchCommits(): { close(): void } {
    const dataVersion = (): unknown => this.statement('PRAGMA data_version', 'arrays').get()?.[0];
    // Read first: the log is made by the first read of a database whose last connection removed it.
    let seen = dataVersion();
    const moved = (): boolean => {
      if (!this.db.isOpen) return false;
      const version = dataVersion();
      if (version === seen) return false;
      seen = version;
      for (const signal of this.listeners) signal();
      return true;
    };
    let stop: () => void;
    const poll = (untilQuiet: boolean): void => {
      let quietChecks = 0;
      const timer = setInterval(() => {
        if (moved()) quietChecks = 0;
        else if (untilQuiet && ++quietChecks >= QUIET_CHECKS) {
          clearInterval(timer);
          watchLog();
        }
      }, COMMIT_CHECK_MS).unref();
      stop = () => clearInterval(timer);
    };
    const watchLog = (): void => {
      try {
        let written = false;
        const watcher = watch(`${this.path}-wal`, { persistent: false }, () => {
          if (written) return;
          written = true;
          watcher.close();
          // A commit writes its frames before it marks them committed: it is looked for at once and then every COMMIT_CHECK_MS.
          moved();
          poll(true);
        });
        watcher.on('error', () => {
          watcher.close();
          poll(false);
        });
        stop = () => watcher.close();
        // A commit between the last look and the watch wrote the log before the watch began.
        moved();
      } catch {
        poll(false);
      }
    };
    watchLog();
    return { close: () => stop() };
  }

  async close(): Promise<void> {
    // Closing twice does nothing, as with PostgreSQL.
    if (this.db.isOpen) this.db.close();
  }
}
