/**
 * The tables of the programme's records (screens, attributes, the site, sessions), each record
 * one row whose columns are its fields. Each table is declared once, field by field; its column
 * names, its rows and the records read back from them are derived from that declaration.
 */
import type { Attribute, Screen, Session, Site } from '../catalogue/model.js';
import { columnOf, deleteRows, inBatches, insertRows, type CustomerRows } from './insert-rows.js';
import type { SqlClient, SqlValue } from './sql-client.js';

/** How a column keeps its field: as it is, a flag as 0 or 1, a list as JSON text. */
type Storage = 'value' | 'flag' | 'list';

export interface RecordTable<T> {
  readonly name: string;
  /** Every field of the record and how its column keeps it, in the order of the columns. */
  readonly fields: { readonly [Field in keyof T]-?: Storage };
  /** The field that tells a customer's records apart; none where a customer has one. */
  readonly key?: keyof T & string;
}

const SCREEN_TABLE: RecordTable<Screen> = {
  name: 'screen',
  key: 'id',
  fields: { id: 'value', name: 'value', screenNumber: 'value', hasCustomLayout: 'flag', totalSeats: 'value', houseSeats: 'value', wheelChairSeats: 'value' },
};

const ATTRIBUTE_TABLE: RecordTable<Attribute> = {
  name: 'attribute',
  key: 'id',
  fields: { id: 'value', description: 'value', shortName: 'value', fontColor: 'value', backgroundColor: 'value', showOnSessionsWithNoComps: 'flag' },
};

const SITE_TABLE: RecordTable<Site> = {
  name: 'site',
  fields: {
    name: 'value',
    shortName: 'value',
    legalName: 'value',
    nationalCode: 'value',
    address1: 'value',
    address2: 'value',
    address3: 'value',
    postCode: 'value',
    phone1: 'value',
    phone2: 'value',
    fax: 'value',
    salesTaxRegistration: 'value',
    ticketMessage1: 'value',
    ticketMessage2: 'value',
    receiptMessage1: 'value',
    receiptMessage2: 'value',
    receiptMessage3: 'value',
    receiptMessage4: 'value',
    receiptMessage5: 'value',
    receiptMessage6: 'value',
    timeZoneIdentifier: 'value',
    country: 'value',
    screens: 'list',
  },
};

const SESSION_TABLE: RecordTable<Session> = {
  name: 'session',
  key: 'id',
  fields: {
    id: 'value',
    filmId: 'value',
    filmPackageId: 'value',
    title: 'value',
    screenId: 'value',
    seating: 'value',
    areComplimentariesAllowed: 'flag',
    showType: 'value',
    salesVia: 'list',
    status: 'value',
    preShowStartTime: 'value',
    salesCutOffTime: 'value',
    ticketsSoldOut: 'flag',
    fewTicketsLeft: 'flag',
    featureStartTime: 'value',
    featureEndTime: 'value',
    cleanupEndTime: 'value',
    seatsAvailable: 'value',
    seatsHeld: 'value',
    seatsHouse: 'value',
    seatsSold: 'value',
    filmFormat: 'value',
    priceCardName: 'value',
    attributes: 'list',
    audioLanguage: 'value',
    url: 'value',
  },
};

export const PROGRAMME_TABLES = { screen: SCREEN_TABLE, attribute: ATTRIBUTE_TABLE, site: SITE_TABLE, session: SESSION_TABLE } as const;

function fieldsOf<T>(table: RecordTable<T>): [field: keyof T & string, storage: Storage][] {
  return Object.entries(table.fields) as [keyof T & string, Storage][];
}

/** The table's columns, in the order of its fields. */
function columnsOf<T>(table: RecordTable<T>): string[] {
  return fieldsOf(table).map(([field]) => columnOf(field));
}

function rowOf<T>(table: RecordTable<T>, record: T): SqlValue[] {
  return fieldsOf(table).map(([field, storage]) => {
    const value = record[field];
    if (storage === 'flag') return value ? 1 : 0;
    return storage === 'list' ? JSON.stringify(value) : (value as SqlValue);
  });
}

/**
 * Records read per query. Making objects of thousands of sessions, lists parsed, took tens of
 * milliseconds, which a server's answers would wait for; a page takes a few.
 */
const RECORDS_PER_PAGE = 500;

/**
 * The customer's records of `table`, a page at a time by key where the table has one. Rows were
 * validated on their way in, so their values are trusted on the way out.
 */
export async function loadRecords<T>(db: SqlClient, table: RecordTable<T>, customer: string): Promise<T[]> {
  const fields = fieldsOf(table);
  const select = selectOf(table);
  const recordOf = (row: SqlValue[]): T => recordOfRow(fields, row);
  if (table.key === undefined) return (await db.queryArrays<SqlValue[]>(select, [customer])).map(recordOf);
  const key = columnOf(table.key);
  const keyAt = fields.findIndex(([field]) => field === table.key);
  const records: T[] = [];
  // The first page has no key before it: keys are numbers in some tables, text in others.
  let after: SqlValue | undefined;
  for (;;) {
    const rows =
      after === undefined
        ? await db.queryArrays<SqlValue[]>(`${select} ORDER BY ${key} LIMIT ${RECORDS_PER_PAGE}`, [customer])
        : await db.queryArrays<SqlValue[]>(`${select} AND ${key} > ? ORDER BY ${key} LIMIT ${RECORDS_PER_PAGE}`, [customer, after]);
    for (const row of rows) records.push(recordOf(row));
    if (rows.length < RECORDS_PER_PAGE) return records;
    after = rows.at(-1)?.[keyAt] ?? null;
  }
}

/** The customer's records of `table` with these keys that exist, in no particular order; the one record, where a customer has one, when a key is given. */
export async function loadRecordsByKey<T>(db: SqlClient, table: RecordTable<T>, customer: string, keys: readonly SqlValue[]): Promise<T[]> {
  const key = table.key;
  if (key === undefined) return keys.length > 0 ? loadRecords(db, table, customer) : [];
  return inBatches(keys, async (batch, placeholders) => {
    const rows = await db.queryArrays<SqlValue[]>(`${selectOf(table)} AND ${columnOf(key)} IN (${placeholders})`, [customer, ...batch]);
    const fields = fieldsOf(table);
    return rows.map((row) => recordOfRow(fields, row));
  });
}

/** The read of the customer's records of `table`, for `readCustomerRows`; `recordsOfRows` makes records of its rows. */
export function recordRows<T>(table: RecordTable<T>): CustomerRows {
  // A table without a key holds one row a customer.
  return { table: table.name, columns: columnsOf(table), orderBy: columnOf(table.key ?? 'customer') };
}

export function recordsOfRows<T>(table: RecordTable<T>, rows: readonly (readonly SqlValue[])[]): T[] {
  const fields = fieldsOf(table);
  return rows.map((row) => recordOfRow(fields, row));
}

function selectOf<T>(table: RecordTable<T>): string {
  return `SELECT ${columnsOf(table).join(', ')} FROM ${table.name} WHERE customer = ?`;
}

/** The record of a row of the columns of `fields`. */
function recordOfRow<T>(fields: readonly [field: keyof T & string, storage: Storage][], row: readonly SqlValue[]): T {
  const record: Record<string, unknown> = {};
  fields.forEach(([field, storage], index) => {
    const value = row[index] ?? null;
    record[field] = storage === 'flag' ? value !== 0 : storage === 'list' ? JSON.parse(String(value)) : value;
  });
  return record as T;
}

/** Inserts records, or replaces those whose key is already taken. */
export async function saveRecords<T>(tx: SqlClient, table: RecordTable<T>, customer: string, records: readonly T[]): Promise<void> {
  const columns = columnsOf(table);
  const key = table.key === undefined ? [] : [columnOf(table.key)];
  const updates = columns.filter((column) => !key.includes(column)).map((column) => `${column} = excluded.${column}`);
  await insertRows(
    tx,
    table.name,
    ['customer', ...columns],
    records.map((record) => [customer, ...rowOf(table, record)]),
    ` ON CONFLICT (${['customer', ...key].join(', ')}) DO UPDATE SET ${updates.join(', ')}`,
  );
}

/** Deletes the customer's records of `table` with these keys; the one record, where a customer has one, when a key is given. */
export async function deleteRecords<T>(tx: SqlClient, table: RecordTable<T>, customer: string, keys: readonly SqlValue[]): Promise<void> {
  if (table.key !== undefined) await deleteRows(tx, table.name, customer, columnOf(table.key), keys);
  else if (keys.length > 0) await tx.execute(`DELETE FROM ${table.name} WHERE customer = ?`, [customer]);
}
