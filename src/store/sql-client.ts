/**
 * The little the repositories need from a database: queries with `?` placeholders, and
 * transactions. Each database has one adapter; nothing else knows which database it is.
 */
/** Bytes go in as a Buffer; they come out as a Buffer (PostgreSQL) or a Uint8Array (SQLite). */
export type SqlValue = string | number | null | Uint8Array;

export interface TransactionOptions {
  readonly readOnly?: boolean;
  /**
   * Fail at once with DatabaseBusyError, instead of waiting, when another writer holds the lock,
   * when another write of this process is under way or waiting, or, on a connection that holds one
   * transaction at a time, when a transaction is open on it: for background writes that must never
   * stall a server.
   */
  readonly failIfBusy?: boolean;
}

/**
 * How a read-write transaction waits while another writer holds the database: never by
 * blocking the process, which a server shares with its requests.
 */
export interface LockWait {
  /** How long to wait before failing with LockTimeoutError; 0 fails at once. */
  readonly timeoutMs: number;
  /** Called when a transaction finds the database held and starts to wait. */
  readonly onWait?: () => void;
}

export const DEFAULT_LOCK_TIMEOUT_MS = 60_000;

/**
 * `LIMIT count` with the count written into the statement, for the statements run at every
 * commit, whose count is the program's own: SQLite plans `ORDER BY … LIMIT ?` with the count
 * bound, so binding it prepares the statement again at each run, 100 to 300 µs on a server
 * following another process's commits against 20 to 80 µs without. A count a client chooses
 * stays bound: each count written in would be a statement of its own, kept.
 */
export function limitTo(count: number): string {
  if (!Number.isSafeInteger(count) || count < 0) throw new RangeError(`a LIMIT needs a count of 0 or more, not ${count}`);
  return `LIMIT ${count}`;
}

/** A standing interest in a notification channel; `close` ends it. */
export interface Subscription {
  close(): Promise<void>;
}

export interface SqlClient {
  /**
   * The column type of identifiers: text that is equal, unique and ordered byte for byte, so
   * by code point, whatever collation the database was created with.
   */
  readonly exactTextType: string;
  /**
   * An aggregate of the rows a SELECT picks: their `columns` as one JSON text, an array of
   * arrays in the order of `orderBy` (in no particular order without it), or NULL when it picks
   * none. Tables read so, each in a subquery of one statement, cost one round trip rather than
   * one each.
   */
  jsonRows(columns: readonly string[], orderBy: string | undefined): string;
  query<Row>(sql: string, params?: readonly SqlValue[]): Promise<Row[]>;
  /**
   * Rows as arrays of their columns, in the order selected: for the thousands of rows of a
   * catalogue, where making an object of each row took longer than reading it.
   */
  queryArrays<Row extends readonly SqlValue[]>(sql: string, params?: readonly SqlValue[]): Promise<Row[]>;
  execute(sql: string, params?: readonly SqlValue[]): Promise<void>;
  /**
   * One statement that writes, committed on its own, and the rows it returns: for a write that one
   * statement makes whole, such as a lease taken. It does not take turns with the read-write
   * transactions, as the writes that readers follow by their moves (a catalogue's changes) must:
   * it writes nothing so followed. Never called inside a transaction. On PostgreSQL it costs one
   * round trip, where a transaction costs three.
   */
  writeAlone<Row>(sql: string, params?: readonly SqlValue[]): Promise<Row[]>;
  /**
   * Runs `work` in one transaction: committed when it resolves, rolled back when it throws.
   * A read-only transaction sees one consistent state and never blocks a writer. Read-write
   * transactions take turns on the whole database, so two writers queue instead of interleaving.
   */
  transaction<T>(work: (tx: SqlClient) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /**
   * Signals `channel` to every listener of the database: when the transaction commits, called
   * on a transaction's handle; at once otherwise. Absent where the database cannot notify: its
   * readers find changes by polling.
   */
  notify?(channel: string, payload: string): Promise<void>;
  /**
   * Calls `onSignal` for every notification on `channel`, from any connection to the database,
   * until the subscription is closed; where the database cannot notify, for every commit of
   * another connection. The connection is re-established when it drops; since a
   * notification sent meanwhile is lost, `onSignal` is also called each time listening starts.
   */
  listen?(channel: string, onSignal: () => void): Subscription;
  close(): Promise<void>;
}

/**
 * Work that takes turns, in the order it was asked for: each waits for the one before to end,
 * however that ends.
 */
export class Turns {
  /** Turns under way or waiting. */
  private taken = 0;
  /** Settles when the last turn asked for has ended. */
  private last: Promise<void> = Promise.resolve();

  /** Whether a turn is under way or waiting. */
  get busy(): boolean {
    return this.taken > 0;
  }

  async take<T>(work: () => Promise<T>): Promise<T> {
    this.taken += 1;
    const turn = this.last;
    let done = (): void => {};
    this.last = new Promise((resolve) => (done = resolve));
    try {
      await turn;
      return await work();
    } finally {
      this.taken -= 1;
      done();
    }
  }
}

/** A `failIfBusy` transaction found another writer holding the database. */
export class DatabaseBusyError extends Error {
  constructor(message = 'another writer holds the database') {
    super(message);
    this.name = 'DatabaseBusyError';
  }
}

/** A read-write transaction waited `timeoutMs` for another writer and gave up; it wrote nothing. */
export class LockTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`another writer held the database for longer than ${timeoutMs / 1000} s`);
    this.name = 'LockTimeoutError';
  }
}

/** The disk holding the database is full; the transaction that met it was rolled back. */
export class DatabaseFullError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'DatabaseFullError';
  }
}
