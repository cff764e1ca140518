/**
 * One customer's catalogue as stored now, read for publishing: its site with the records of some
 * kinds, or records by key, each from one read transaction.
 */
import type { ListedKind } from '../catalogue/catalogue-change.js';
import type { RecordsByKey } from '../catalogue/changed-records.js';
import { CatalogueSnapshot, type CatalogueReader } from '../catalogue/snapshot.js';
import { loadAccessCorrections } from './access-correction-repository.js';
import { loadCatalogue, loadCatalogueStanding, loadFilms, loadPackages } from './catalogue-repository.js';
import { loadRecordsByKey, PROGRAMME_TABLES } from './record-tables.js';
import type { SqlClient } from './sql-client.js';

export function storedCatalogue(db: SqlClient, customer: string): CatalogueReader {
  return {
    snapshot: (kinds: ReadonlySet<ListedKind>) =>
      db.transaction(
        async (tx) => {
          const catalogue = await loadCatalogue(tx, customer, kinds);
          const standing = await loadCatalogueStanding(tx, customer);
          return new CatalogueSnapshot(catalogue, { customer, ...standing, accessCorrections: await loadAccessCorrections(tx, customer), kinds });
        },
        { readOnly: true },
      ),
    byKey: (read) => db.transaction((tx) => read(recordsByKey(tx, customer)), { readOnly: true }),
  };
}

/** Reads records by key in `tx`, the transaction of the version they are published for; the keys of packages, screens and sessions are numbers. */
export function recordsByKey(tx: SqlClient, customer: string): RecordsByKey {
  return {
    films: (ids) => loadFilms(tx, customer, ids),
    packages: async (ids) => (ids.length === 0 ? [] : loadPackages(tx, customer, ids.map(Number))),
    screens: (ids) => loadRecordsByKey(tx, PROGRAMME_TABLES.screen, customer, ids.map(Number)),
    attributes: (ids) => loadRecordsByKey(tx, PROGRAMME_TABLES.attribute, customer, ids),
    sessions: (ids) => loadRecordsByKey(tx, PROGRAMME_TABLES.session, customer, ids.map(Number)),
  };
}
