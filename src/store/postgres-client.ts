/**
 * PostgreSQL through a pg connection pool. Queries run on any pooled connection; a transaction
 * holds one connection from BEGIN to COMMIT; a listener holds a connection of its own.
 */
import pg from 'pg';
import { PostgresListener } from './postgres-listener.js';
import { toPositionalParameters } from './positional-parameters.js';
import {
  DatabaseBusyError,
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
 * The advisory lock every read-write transaction takes first, so writers queue as they do on
 * SQLite; its key is "marquee\0" read as a 64-bit integer, unlikely to be another application's.
 */
const WRITER_LOCK = 'SELECT pg_advisory_xact_lock(7881706654501528832)';
const WRITER_TRY_LOCK = 'SELECT pg_try_advisory_xact_lock(7881706654501528832) AS locked';

/** The SQLSTATE of a lock wait that outlasted lock_timeout. */
const LOCK_NOT_AVAILABLE = '55P03';

/**
 * A whole read sees one snapshot: READ COMMITTED would let a reload mix two imports. A replica
 * accepts REPEATABLE READ, and READ ONLY never waits for the writer lock.
 */
const BEGIN_READ_ONLY = 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY';

/** "C" compares bytes, and UTF-8 bytes order as code points do. */
const EXACT_TEXT_TYPE = 'TEXT COLLATE "C"';

/** As text, which pg would otherwise parse: SQLite's JSON is text too. */
function jsonRows(columns: readonly string[], orderBy: string | undefined): string {
  return `json_agg(json_build_array(${columns.join(', ')})${orderBy === undefined ? '' : ` ORDER BY ${orderBy}`})::text`;
}

/**
 * The columns are INTEGER, which pg already returns as numbers; a bigint (a count, a sum) comes
 * back as a number too, and fails loudly rather than lose precision.
 */
function parseBigint(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new RangeError(`the integer ${text} is too large to be read exactly`);
  return value;
}

const TYPES: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === pg.types.builtins.INT8 ? parseBigint : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};

/**
 * A server needs a connection for a poll and one for a reload; an import needs one. Small pools
 * keep many servers on one database within PostgreSQL's connection limit.
 */
const POOL_SIZE = 4;

/** Statements with `?` placeholders, on a pool or on the one connection of a transaction. */
class PostgresStatements {
  private readonly positional = new Map<string, string>();

  constructor(private readonly queryable: pg.Pool | pg.PoolClient) {}

  async query<Row>(sql: string, params: readonly SqlValue[] = [], rowMode?: 'array'): Promise<Row[]> {
    let text = this.positional.get(sql);
    if (text === undefined) {
      text = toPositionalParameters(sql);
      this.positional.set(sql, text);
    }
    const config = { text, values: [...params] };
    const result = rowMode === 'array' ? await this.queryable.query({ ...config, rowMode }) : await this.queryable.query(config);
    return result.rows as Row[];
  }
}

/** The handle a transaction's work receives: every statement runs on the transaction's connection. */
class PostgresTransaction implements SqlClient {
  readonly exactTextType = EXACT_TEXT_TYPE;
  readonly jsonRows = jsonRows;
  private readonly statements: PostgresStatements;
  private last: Promise<unknown> = Promise.resolve();
  private ended = false;

  /** The statements that notify, to be sent with the COMMIT. */
  readonly notifications: string[] = [];

  constructor(private readonly connection: pg.PoolClient) {
    this.statements = new PostgresStatements(connection);
  }

  query<Row>(sql: string, params?: readonly SqlValue[]): Promise<Row[]> {
    return this.inTurn(() => this.statements.query<Row>(sql, params));
  }

  queryArrays<Row extends readonly SqlValue[]>(sql: string, params?: readonly SqlValue[]): Promise<Row[]> {
    return this.inTurn(() => this.statements.query<Row>(sql, params, 'array'));
  }

  /** A connection runs one statement at a time, and work may start several at once (Promise.all). */
  private inTurn<Rows>(statement: () => Promise<Rows>): Promise<Rows> {
    if (this.ended) return Promise.reject(new Error('the transaction has ended'));
    const result = this.last.then(statement);
    this.last = result.catch(() => {});
    return result;
  }

  /**
   * Waits for the statements already started, and refuses any more: when one of several
   * statements fails, the others must not run after the ROLLBACK, outside the transaction.
   */
  async end(): Promise<void> {
    this.ended = true;
    await this.last;
  }

  async execute(sql: string, params?: readonly SqlValue[]): Promise<void> {
    await this.query(sql, params);
  }

  transaction<T>(): Promise<T> {
    return Promise.reject(new Error('PostgreSQL transactions do not nest here'));
  }

  writeAlone<Row>(): Promise<Row[]> {
    return Promise.reject(new Error('a statement written alone is not part of a transaction'));
  }

  /** Sent with the COMMIT; PostgreSQL delivers them once it commits, and not at all if it rolls back. */
  async notify(channel: string, payload: string): Promise<void> {
    this.notifications.push(`SELECT pg_notify(${this.connection.escapeLiteral(channel)}, ${this.connection.escapeLiteral(payload)})`);
  }

  close(): Promise<void> {
    return Promise.reject(new Error('a transaction ends when its work does'));
  }
}

/**
 * Begins a read-write transaction and tries for the writer lock, in one round trip; answers
 * whether it has the lock.
 */
async function beginWithWriterLock(connection: pg.PoolClient): Promise<boolean> {
  // Statements without parameters, sent together, answer a result each.
  const results = (await connection.query(`BEGIN; ${WRITER_TRY_LOCK}`)) as unknown as pg.QueryResult<{ locked: boolean }>[];
  return results[1]?.rows[0]?.locked === true;
}

/** A connection listening to a channel, and the subscribers it signals. */
interface Listening {
  readonly subscribers: Set<() => void>;
  readonly listener: PostgresListener;
}

export class PostgresClient implements SqlClient {
  readonly exactTextType = EXACT_TEXT_TYPE;
  readonly jsonRows = jsonRows;
  private readonly statements: PostgresStatements;
  /** This process's read-write transactions, one after another. */
  private readonly writers = new Turns();
  /** The connection that listens to each channel, and what it signals. */
  private readonly channels = new Map<string, Listening>();

  private constructor(
    private readonly config: pg.ClientConfig,
    private readonly pool: pg.Pool,
    private readonly lockWait: LockWait,
  ) {
    this.statements = new PostgresStatements(pool);
  }

  static open(url: string, lockWait: LockWait = { timeoutMs: DEFAULT_LOCK_TIMEOUT_MS }): PostgresClient {
    const config: pg.ClientConfig = {
      connectionString: url,
      application_name: 'marquee',
      types: TYPES,
      // An unreachable host fails a look at the database instead of hanging it.
      connectionTimeoutMillis: 5000,
      keepAlive: true,
    };
    const pool = new pg.Pool({ ...config, max: POOL_SIZE });
    // An idle connection that the database drops is reported here and then discarded by the
    // pool; the next statement opens a new one or fails, and its caller hears of it.
    pool.on('error', () => {});
    return new PostgresClient(config, pool, lockWait);
  }

  query<Row>(sql: string, params?: readonly SqlValue[]): Promise<Row[]> {
    return this.statements.query<Row>(sql, params);
  }

  queryArrays<Row extends readonly SqlValue[]>(sql: string, params?: readonly SqlValue[]): Promise<Row[]> {
    return this.statements.query<Row>(sql, params, 'array');
  }

  async execute(sql: string, params?: readonly SqlValue[]): Promise<void> {
    await this.statements.query(sql, params);
  }

  /** On any pooled connection, outside a transaction: PostgreSQL commits the statement alone. */
  writeAlone<Row>(sql: string, params?: readonly SqlValue[]): Promise<Row[]> {
    return this.statements.query<Row>(sql, params);
  }

  /**
   * Read-write transactions take turns on the writer lock, across processes. A process's own take
   * turns here first: a sync process writes from several syncs at once, and a writer that found
   * the lock held by another of them spent three round trips more waiting for it.
   */
  async transaction<T>(work: (tx: SqlClient) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    if (options.readOnly) return this.run(work, options);
    if (options.failIfBusy && this.writers.busy) throw new DatabaseBusyError('another transaction of this process is writing');
    return this.writers.take(() => this.run(work, options));
  }

  private async run<T>(work: (tx: SqlClient) => Promise<T>, options: TransactionOptions): Promise<T> {
    const connection = await this.pool.connect();
    // While a connection is checked out the pool does not watch it; its errors also reject the
    // statement in flight, which is where they are handled.
    const ignore = (): void => {};
    connection.on('error', ignore);
    let broken: Error | undefined;
    try {
      if (options.readOnly) await connection.query(BEGIN_READ_ONLY);
      else if (!(await beginWithWriterLock(connection))) {
        if (options.failIfBusy) throw new DatabaseBusyError();
        await this.waitForWriterLock(connection);
      }
      const tx = new PostgresTransaction(connection);
      const result = await work(tx).finally(() => tx.end());
      // The notifications go with the COMMIT, in one round trip; should one fail, the COMMIT is not run.
      await connection.query([...tx.notifications, 'COMMIT'].join('; '));
      return result;
    } catch (error) {
      // A connection that cannot even roll back is dropped instead of going back to the pool.
      await connection.query('ROLLBACK').catch((rollbackError: unknown) => {
        broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
      });
      throw error;
    } finally {
      connection.off('error', ignore);
      connection.release(broken);
    }
  }

  /** Waits for the writer lock, which another writer holds, as SQLite's writers do: told through `onWait`, and for at most the lock timeout. */
  private async waitForWriterLock(connection: pg.PoolClient): Promise<void> {
    const { timeoutMs, onWait } = this.lockWait;
    // A lock_timeout of 0 would wait for ever.
    if (timeoutMs === 0) throw new LockTimeoutError(timeoutMs);
    onWait?.();
    await connection.query("SELECT set_config('lock_timeout', $1, true)", [`${timeoutMs}ms`]);
    try {
      await connection.query(WRITER_LOCK);
    } catch (error) {
      throw (error as { code?: string }).code === LOCK_NOT_AVAILABLE ? new LockTimeoutError(timeoutMs) : error;
    }
    // The writer holds the database now; its other lock waits, such as for a row that another
    // application holds, stay as the server is configured.
    await connection.query('SET LOCAL lock_timeout TO DEFAULT');
  }

  async notify(channel: string, payload: string): Promise<void> {
    await this.statements.query('SELECT pg_notify(?, ?)', [channel, payload]);
  }

  /**
   * One connection listens to a channel for all its subscribers, as SQLite's one watch of its
   * commits does: a server's catalogue and its webhooks' courier follow the same commits, and a
   * connection each read every notification twice and held a connection more.
   */
  listen(channel: string, onSignal: () => void): Subscription {
    // A function of its own: one listening twice is two subscribers, each closed apart.
    const subscriber = (): void => onSignal();
    const joined = this.channels.get(channel);
    const listening = joined ?? this.startListening(channel);
    // Joining a connection already listening, listening starts now for this subscriber (unless it is closed at once).
    if (joined !== undefined) queueMicrotask(() => listening.subscribers.has(subscriber) && subscriber());
    listening.subscribers.add(subscriber);
    return {
      close: async () => {
        listening.subscribers.delete(subscriber);
        if (listening.subscribers.size > 0 || this.channels.get(channel) !== listening) return;
        this.channels.delete(channel);
        await listening.listener.close();
      },
    };
  }

  private startListening(channel: string): Listening {
    const subscribers = new Set<() => void>();
    const listening = { subscribers, listener: new PostgresListener(this.config, channel, () => subscribers.forEach((signal) => signal())) };
    this.channels.set(channel, listening);
    return listening;
  }

  /** Closes the pool; closing again does nothing, as with SQLite. */
  async close(): Promise<void> {
    const channels = [...this.channels.values()];
    this.channels.clear();
    await Promise.all(channels.map(({ listener }) => listener.close()));
    if (!this.pool.ended) await this.pool.end();
  }
}
