/**
 * The little the repositories need from a database: queries with `?` placeholders, and
 * transactions. Each database has one adapter; nothing else knows which database it is.
 */
export type SqlValue = string | number | null;

export interface TransactionOptions {
  readonly readOnly?: boolean;
  /**
   * Fail at once, instead of waiting, when another writer holds the lock: for background writes
   * that must never stall a server. An adapter whose waits do not block the process may ignore it.
   */
  readonly failIfBusy?: boolean;
}

export interface SqlClient {
  query<Row>(sql: string, params?: readonly SqlValue[]): Promise<Row[]>;
  execute(sql: string, params?: readonly SqlValue[]): Promise<void>;
  /**
   * Runs `work` in one transaction: committed when it resolves, rolled back when it throws.
   * A read-only transaction sees one consistent state and never blocks a writer.
   */
  transaction<T>(work: (tx: SqlClient) => Promise<T>, options?: TransactionOptions): Promise<T>;
  close(): Promise<void>;
}
