/**
 * Reading and writing a cinema's corrections of how its attributes read into the access
 * vocabulary (CONTRACT §15). Every function takes the database or the transaction it works in;
 * the caller decides where a transaction begins and ends. A writer moves the customer's version
 * of its corrections, which servers follow as they follow catalogue versions.
 */
import { isAccessTerm, type AccessTerm } from '../showtimes/access-terms.js';
import { NEXT_MOVE, notifyCatalogueReaders } from './catalogue-repository.js';
import type { SqlClient } from './sql-client.js';

/** The terms each corrected attribute means, by attribute id. */
export type AccessCorrections = ReadonlyMap<string, readonly AccessTerm[]>;

/** Moves the customer's version of its corrections, and tells the servers that follow the database. */
async function bumpCorrectionVersion(tx: SqlClient, customer: string): Promise<void> {
  await tx.execute(
    `INSERT INTO access_correction_version (customer, version, moved) VALUES (?, 1, ${NEXT_MOVE('access_correction_version')})
     ON CONFLICT (customer) DO UPDATE SET version = access_correction_version.version + 1, moved = excluded.moved`,
    [customer],
  );
  await notifyCatalogueReaders(tx, customer);
}

/** Sets what the attribute means, in place of reading its names. */
export async function saveAccessCorrection(tx: SqlClient, customer: string, attributeId: string, terms: readonly AccessTerm[]): Promise<void> {
  await tx.execute(
    `INSERT INTO access_correction (customer, attribute_id, terms, set_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (customer, attribute_id) DO UPDATE SET terms = excluded.terms, set_at = excluded.set_at`,
    [customer, attributeId, JSON.stringify(terms), new Date().toISOString()],
  );
  await bumpCorrectionVersion(tx, customer);
}

/** Removes the attribute's correction; false when it had none (nothing changes then). */
export async function deleteAccessCorrection(tx: SqlClient, customer: string, attributeId: string): Promise<boolean> {
  const [row] = await tx.query<{ n: number }>('SELECT COUNT(*) AS n FROM access_correction WHERE customer = ? AND attribute_id = ?', [customer, attributeId]);
  if (Number(row?.n ?? 0) === 0) return false;
  await tx.execute('DELETE FROM access_correction WHERE customer = ? AND attribute_id = ?', [customer, attributeId]);
  await bumpCorrectionVersion(tx, customer);
  return true;
}

export async function loadAccessCorrections(db: SqlClient, customer: string): Promise<Map<string, readonly AccessTerm[]>> {
  const rows = await db.query<{ attribute_id: string; terms: string }>('SELECT attribute_id, terms FROM access_correction WHERE customer = ?', [customer]);
  // Written by saveAccessCorrection from checked terms; a term a later version dropped reads as none.
  return new Map(rows.map((row) => [row.attribute_id, (JSON.parse(row.terms) as string[]).filter(isAccessTerm)]));
}
