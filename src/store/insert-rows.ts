/** Writes, deletes and reads many rows in few statements. */
import type { SqlClient, SqlValue } from './sql-client.js';

/** Rows per INSERT or keys per DELETE: few statements for big imports, well under both databases' parameter limits. */
const ROWS_PER_STATEMENT = 200;

export async function insertRows(tx: SqlClient, table: string, columns: readonly string[], rows: readonly (readonly SqlValue[])[], conflict = ''): Promise<void> {
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
    const batch = rows.slice(start, start + ROWS_PER_STATEMENT);
    await tx.execute(
      `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${batch.map(() => tuple).join(', ')}${conflict}`,
      batch.flat(),
    );
  }
}

/** Deletes the customer's rows whose `column` is one of `keys`, a few hundred keys a statement. */
export async function deleteRows(tx: SqlClient, table: string, customer: string, column: string, keys: readonly SqlValue[]): Promise<void> {
  for (let start = 0; start < keys.length; start += ROWS_PER_STATEMENT) {
    const batch = keys.slice(start, start + ROWS_PER_STATEMENT);
    await tx.execute(`DELETE FROM ${table} WHERE customer = ? AND ${column} IN (${batch.map(() => '?').join(', ')})`, [customer, ...batch]);
  }
}

/** `read` of each batch of `keys`, given the batch's placeholders (`?, ?, ?`); the results one after the other. */
export async function inBatches<Key, T>(keys: readonly Key[], read: (batch: readonly Key[], placeholders: string) => Promise<T[]>): Promise<T[]> {
  const results: T[] = [];
  for (let start = 0; start < keys.length; start += ROWS_PER_STATEMENT) {
    const batch = keys.slice(start, start + ROWS_PER_STATEMENT);
    results.push(...(await read(batch, batch.map(() => '?').join(', '))));
  }
  return results;
}

/** A read of the rows a customer has in one table: their `columns`, in the order of `orderBy` (in no particular order without it). */
export interface CustomerRows {
  readonly table: string;
  readonly columns: readonly string[];
  readonly orderBy: string | undefined;
}

/**
 * The customer's rows of each read, as arrays of their columns, all read in one statement: one
 * round trip to the database however many tables. The reads' results are JSON, so this suits
 * what is read whole, not the pages of a big catalogue.
 */
export async function readCustomerRows<Name extends string>(db: SqlClient, customer: string, reads: Readonly<Record<Name, CustomerRows>>): Promise<Record<Name, SqlValue[][]>> {
  const names = Object.keys(reads) as Name[];
  const subqueries = names.map((name) => {
    const { table, columns, orderBy } = reads[name];
    return `(SELECT ${db.jsonRows(columns, orderBy)} FROM ${table} WHERE customer = ?)`;
  });
  const [row = []] = await db.queryArrays<(string | null)[]>(`SELECT ${subqueries.join(', ')}`, names.map(() => customer));
  return Object.fromEntries(names.map((name, index) => [name, JSON.parse(row[index] ?? '[]') as SqlValue[][]])) as Record<Name, SqlValue[][]>;
}

/** The column of a record's field: its name in snake case. */
export function columnOf(field: string): string {
  return field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}
