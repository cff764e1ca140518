/** Writes many rows in few statements. */
import type { SqlClient, SqlValue } from './sql-client.js';

/** Rows per INSERT: few statements for big imports, well under both databases' parameter limits. */
const ROWS_PER_INSERT = 200;

export async function insertRows(tx: SqlClient, table: string, columns: readonly string[], rows: readonly (readonly SqlValue[])[], conflict = ''): Promise<void> {
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
    const batch = rows.slice(start, start + ROWS_PER_INSERT);
    await tx.execute(
      `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${batch.map(() => tuple).join(', ')}${conflict}`,
      batch.flat(),
    );
  }
}

/** The column of a record's field: its name in snake case. */
export function columnOf(field: string): string {
  return field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}
