/**
 * Correcting how a cinema's attributes read into the access vocabulary (CONTRACT §15): what
 * `marquee access` does, apart from reading its arguments. A correction names the terms an
 * attribute means in place of reading its names; clearing it goes back to reading them. Each
 * change moves the customer's version of its corrections in the same transaction, so running
 * servers prepare the customer's programme again within their poll interval (at once on
 * PostgreSQL, which notifies them).
 */
import type { Attribute } from '../catalogue/model.js';
import { deleteAccessCorrection, loadAccessCorrections, saveAccessCorrection } from '../store/access-correction-repository.js';
import { loadRecords, PROGRAMME_TABLES } from '../store/record-tables.js';
import type { SqlClient } from '../store/sql-client.js';
import { correctedReading, readAttribute, type AccessTerm } from './access-terms.js';

/** A correction named an attribute the customer's catalogue does not hold. */
export class UnknownAttributeError extends Error {
  constructor(
    readonly customer: string,
    readonly attributeId: string,
  ) {
    super(`customer '${customer}' has no attribute '${attributeId}'; 'marquee access list --customer ${customer}' shows its attributes`);
    this.name = 'UnknownAttributeError';
  }
}

/** How one attribute reads: its names, its terms and subtitle language, and whether a correction set them. */
export interface AttributeAccess {
  readonly id: string;
  /** Null for a correction whose attribute the catalogue no longer holds. */
  readonly description: string | null;
  readonly shortName: string | null;
  readonly terms: readonly AccessTerm[];
  readonly subtitleLanguage: string | null;
  /** `set` by a correction, or `read` from its names. */
  readonly source: 'set' | 'read';
}

function accessOf(attribute: Attribute, corrected: readonly AccessTerm[] | undefined): AttributeAccess {
  const { terms, subtitleLanguage } = correctedReading(readAttribute(attribute), corrected);
  return { id: attribute.id, description: attribute.description, shortName: attribute.shortName, terms, subtitleLanguage, source: corrected === undefined ? 'read' : 'set' };
}

/** Each attribute of the customer's catalogue as it reads, by id; then corrections of attributes it no longer holds. */
export async function listAccess(db: SqlClient, customer: string): Promise<AttributeAccess[]> {
  return db.transaction(
    async (tx) => {
      const attributes = await loadRecords(tx, PROGRAMME_TABLES.attribute, customer);
      const corrections = await loadAccessCorrections(tx, customer);
      const held = new Set(attributes.map((attribute) => attribute.id));
      const orphans = [...corrections]
        .filter(([id]) => !held.has(id))
        .map(([id, terms]): AttributeAccess => ({ id, description: null, shortName: null, terms, subtitleLanguage: null, source: 'set' }));
      return [...attributes.map((attribute) => accessOf(attribute, corrections.get(attribute.id))), ...orphans].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    },
    { readOnly: true },
  );
}

/** Sets what the attribute means (no term for an empty list); the attribute must be in the customer's catalogue. */
export async function setAccess(db: SqlClient, customer: string, attributeId: string, terms: readonly AccessTerm[]): Promise<AttributeAccess> {
  return db.transaction(async (tx) => {
    const attribute = (await loadRecords(tx, PROGRAMME_TABLES.attribute, customer)).find((one) => one.id === attributeId);
    if (attribute === undefined) throw new UnknownAttributeError(customer, attributeId);
    await saveAccessCorrection(tx, customer, attributeId, terms);
    return accessOf(attribute, terms);
  });
}

/** Removes the attribute's correction, back to reading its names; false when it had none. */
export async function clearAccess(db: SqlClient, customer: string, attributeId: string): Promise<boolean> {
  return db.transaction((tx) => deleteAccessCorrection(tx, customer, attributeId));
}
