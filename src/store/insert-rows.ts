/** Writes, deletes and reads by key many rows in few statements. */
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

/** The column of a record's field: its name in snake case. */
export function columnOf(field: string): string {
  return field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}
