/**
 * Reading and writing one customer's catalogue. Every function takes the database or the
 * transaction it works in; the caller decides where a transaction begins and ends.
 */
import type { CatalogueChange, CommittedChange, ListedKind } from '../catalogue/catalogue-change.js';
import type { Catalogue, Film, FilmPackage, PackageFilm, Person, RecordCounts } from '../catalogue/model.js';
import { columnOf, deleteRows, inBatches, insertRows, readCustomerRows } from './insert-rows.js';
import { PROGRAMME_TABLES, loadRecords, recordRows, recordsOfRows } from './record-tables.js';
import { limitTo, type SqlClient, type SqlValue, type Subscription } from './sql-client.js';

/** A person of a film, read as the film's columns are. */
type PersonColumns = [filmId: string, id: string, firstName: string | null, lastName: string | null, role: string];

const PACKAGE_COLUMNS = ['id', 'title', 'status'];
type PackageColumns = [id: number, title: string, status: string];

const PACKAGE_FILM_COLUMNS = ['package_id', 'film_order', 'film_id', 'title', 'split_millionths', 'trailer_duration', 'clean_up_duration'];
type PackageFilmColumns = [packageId: number, order: number, filmId: string, title: string, splitMillionths: number, trailerDuration: number, cleanUpDuration: number];

/**
 * The stored fields of a film, in the order of its columns. Each column is named after its field
 * in snake case.
 */
const FILM_FIELDS = [
  'id', 'title', 'shortName', 'synopsis', 'genre', 'signageText', 'distributor', 'lastModifiedDate',
  'openingDate', 'rating', 'status', 'content', 'duration', 'displaySequence', 'nationalCode', 'format',
  'isRestricted', 'audioLanguage', 'governmentFilmTitle', 'filmPosterUrl', 'filmPosterThumbnailUrl',
  'backdropImageUrl', 'filmTrailerUrl',
] as const satisfies readonly Exclude<keyof Film, 'people'>[];

const FILM_COLUMNS = FILM_FIELDS.map(columnOf);

/** A column holds its field's value, a flag as 0 or 1. */
type Stored<Value> = Value extends boolean ? number : Value;

/** The stored values of `Fields`, in their order; generic because TypeScript maps a tuple to a tuple only through a type parameter. */
type ColumnsOf<Fields extends readonly (keyof Film)[]> = { -readonly [Index in keyof Fields]: Stored<Film[Fields[Index] & keyof Film]> };

/**
 * A film's columns in the order of FILM_FIELDS. Films are read as arrays of columns: for the
 * thousands of films of a catalogue, making an object of each row took longer than reading it.
 * Rows were validated on their way in, so their enumerations are trusted on the way out.
 */
type FilmColumns = ColumnsOf<typeof FILM_FIELDS>;

function filmColumns(film: Film): SqlValue[] {
  return FILM_FIELDS.map((field) => {
    const value = film[field];
    return typeof value === 'boolean' ? Number(value) : value;
  });
}

function filmFromColumns(columns: FilmColumns, people: readonly Person[]): Film {
  const [
    id,
    title,
    shortName,
    synopsis,
    genre,
    signageText,
    distributor,
    lastModifiedDate,
    openingDate,
    rating,
    status,
    content,
    duration,
    displaySequence,
    nationalCode,
    format,
    isRestricted,
    audioLanguage,
    governmentFilmTitle,
    filmPosterUrl,
    filmPosterThumbnailUrl,
    backdropImageUrl,
    filmTrailerUrl,
  ] = columns;
  return {
    id,
    title,
    shortName,
    synopsis,
    genre,
    signageText,
    distributor,
    lastModifiedDate,
    openingDate,
    rating,
    status,
    content,
    duration,
    displaySequence,
    nationalCode,
    format,
    isRestricted: isRestricted !== 0,
    people,
    audioLanguage,
    governmentFilmTitle,
    filmPosterUrl,
    filmPosterThumbnailUrl,
    backdropImageUrl,
    filmTrailerUrl,
  };
}

function personFromColumns([, id, firstName, lastName, role]: PersonColumns): Person {
  return { id, firstName, lastName, role: role as Person['role'] };
}

/** Packages of their rows and the rows of their films, those in each package's order. Rows were validated on their way in. */
function packagesOfRows(packageRows: readonly PackageColumns[], packageFilmRows: readonly PackageFilmColumns[]): FilmPackage[] {
  const filmsByPackage = groupBy(packageFilmRows, ([packageId]) => packageId);
  return packageRows.map(([id, title, status]) => ({
    id,
    title,
    status: status as FilmPackage['status'],
    films: (filmsByPackage.get(id) ?? []).map(([, order, filmId, filmTitle, splitMillionths, trailerDuration, cleanUpDuration]): PackageFilm => ({
      filmId,
      title: filmTitle,
      splitMillionths,
      trailerDuration,
      cleanUpDuration,
      order,
    })),
  }));
}

function groupBy<Row, Key>(rows: readonly Row[], key: (row: Row) => Key): Map<Key, Row[]> {
  const groups = new Map<Key, Row[]>();
  for (const row of rows) {
    const group = groups.get(key(row));
    if (group) group.push(row);
    else groups.set(key(row), [row]);
  }
  return groups;
}

/**
 * Films read per query when loading a catalogue: on SQLite a query holds the event loop while it
 * runs, and 500 films and their people take 5 to 15 ms, which requests answered meanwhile wait for.
 */
const FILMS_PER_PAGE = 500;

/**
 * The customer's films in pages, by id, each with its people. A big catalogue is never read in
 * one long query, so it holds neither the event loop nor a connection for long, and a caller
 * that only looks at each page keeps one page in memory.
 */
export async function* readFilmPages(db: SqlClient, customer: string): AsyncGenerator<Film[]> {
  for (let after = ''; ; ) {
    const rows = await db.queryArrays<FilmColumns>(`SELECT ${FILM_COLUMNS.join(', ')} FROM film WHERE customer = ? AND id > ? ORDER BY id LIMIT ${FILMS_PER_PAGE}`, [customer, after]);
    const last = rows.at(-1)?.[0];
    if (last === undefined) return;
    const people = await db.queryArrays<PersonColumns>(
      'SELECT film_id, id, first_name, last_name, role FROM film_person WHERE customer = ? AND film_id > ? AND film_id <= ? ORDER BY film_id, position',
      [customer, after, last],
    );
    const peopleByFilm = groupBy(people, ([filmId]) => filmId);
    yield rows.map((row) => filmFromColumns(row, (peopleByFilm.get(row[0]) ?? []).map(personFromColumns)));
    if (rows.length < FILMS_PER_PAGE) return;
    after = last;
  }
}

/** The customer's films of these ids that exist, each with its people, in no particular order. */
export function loadFilms(db: SqlClient, customer: string, ids: readonly string[]): Promise<Film[]> {
  return inBatches(ids, async (batch, placeholders) => {
    const rows = await db.queryArrays<FilmColumns>(`SELECT ${FILM_COLUMNS.join(', ')} FROM film WHERE customer = ? AND id IN (${placeholders})`, [customer, ...batch]);
    const people = await db.queryArrays<PersonColumns>(
      `SELECT film_id, id, first_name, last_name, role FROM film_person WHERE customer = ? AND film_id IN (${placeholders}) ORDER BY film_id, position`,
      [customer, ...batch],
    );
    const peopleByFilm = groupBy(people, ([filmId]) => filmId);
    return rows.map((row) => filmFromColumns(row, (peopleByFilm.get(row[0]) ?? []).map(personFromColumns)));
  });
}

/** The customer's packages, or those of `ids` that exist, in no particular order. */
export async function loadPackages(db: SqlClient, customer: string, ids?: readonly number[]): Promise<FilmPackage[]> {
  return ids === undefined ? packagesAmong(db, customer) : inBatches(ids, (batch) => packagesAmong(db, customer, batch));
}

/** The customer's packages, or those of `ids`. */
async function packagesAmong(db: SqlClient, customer: string, ids?: readonly number[]): Promise<FilmPackage[]> {
  const among = (column: string): string => (ids === undefined ? '' : ` AND ${column} IN (${ids.map(() => '?').join(', ')})`);
  const parameters = [customer, ...(ids ?? [])];
  const packageRows = await db.queryArrays<PackageColumns>(`SELECT ${PACKAGE_COLUMNS.join(', ')} FROM film_package WHERE customer = ?${among('id')}`, parameters);
  if (packageRows.length === 0) return [];
  const packageFilmRows = await db.queryArrays<PackageFilmColumns>(
    `SELECT ${PACKAGE_FILM_COLUMNS.join(', ')} FROM film_package_film WHERE customer = ?${among('package_id')} ORDER BY package_id, film_order`,
    parameters,
  );
  return packagesOfRows(packageRows, packageFilmRows);
}

/**
 * What an import compares its input with and checks it against: every stored record but the
 * films, of which their ids in no particular order (the aggregate's sort of a cinema's 400 ids
 * was most of a small change's read); sessions in the order of their ids.
 */
export type CatalogueOutline = Omit<Catalogue, 'films'> & { readonly filmIds: readonly string[] };

/**
 * The customer's catalogue outlined, read in one statement: a small change's transaction waits
 * for one round trip, not one a table. A catalogue's films, most of its bytes, are left out, and
 * its sessions too when the caller knows them already (`withSessions` false: an empty list).
 */
export async function loadCatalogueOutline(db: SqlClient, customer: string, withSessions: boolean): Promise<CatalogueOutline> {
  const { site, screen, attribute, session } = PROGRAMME_TABLES;
  const reads = {
    filmIds: { table: 'film', columns: ['id'], orderBy: undefined },
    packages: { table: 'film_package', columns: PACKAGE_COLUMNS, orderBy: 'id' },
    packageFilms: { table: 'film_package_film', columns: PACKAGE_FILM_COLUMNS, orderBy: 'package_id, film_order' },
    screens: recordRows(screen),
    attributes: recordRows(attribute),
    site: recordRows(site),
  };
  const rows = withSessions ? await readCustomerRows(db, customer, { ...reads, sessions: recordRows(session) }) : { ...(await readCustomerRows(db, customer, reads)), sessions: [] };
  return {
    filmIds: rows.filmIds.map(([id]) => String(id)),
    packages: packagesOfRows(rows.packages as PackageColumns[], rows.packageFilms as PackageFilmColumns[]),
    screens: recordsOfRows(screen, rows.screens),
    attributes: recordsOfRows(attribute, rows.attributes),
    site: recordsOfRows(site, rows.site)[0] ?? null,
    sessions: recordsOfRows(session, rows.sessions),
  };
}

/** The customer's catalogue, in no particular order: its site and the records of `kinds`, the other lists left empty. */
export async function loadCatalogue(db: SqlClient, customer: string, kinds: ReadonlySet<ListedKind>): Promise<Catalogue> {
  const films: Film[] = [];
  if (kinds.has('films')) for await (const page of readFilmPages(db, customer)) films.push(...page);
  const [site = null] = await loadRecords(db, PROGRAMME_TABLES.site, customer);
  return {
    films,
    packages: kinds.has('packages') ? await loadPackages(db, customer) : [],
    screens: kinds.has('screens') ? await loadRecords(db, PROGRAMME_TABLES.screen, customer) : [],
    attributes: kinds.has('attributes') ? await loadRecords(db, PROGRAMME_TABLES.attribute, customer) : [],
    site,
    sessions: kinds.has('sessions') ? await loadRecords(db, PROGRAMME_TABLES.session, customer) : [],
  };
}

/** Deletes films, and their people with them; no package may name them. */
export async function deleteFilms(tx: SqlClient, customer: string, ids: readonly string[]): Promise<void> {
  await deleteRows(tx, 'film', customer, 'id', ids);
}

/** Deletes packages, and their films with them. */
export async function deletePackages(tx: SqlClient, customer: string, ids: readonly number[]): Promise<void> {
  await deleteRows(tx, 'film_package', customer, 'id', ids);
}

/** Inserts films, or replaces those whose id is already taken, people included. */
export async function saveFilms(tx: SqlClient, customer: string, films: readonly Film[]): Promise<void> {
  const updates = FILM_COLUMNS.filter((column) => column !== 'id').map((column) => `${column} = excluded.${column}`);
  await insertRows(
    tx,
    'film',
    ['customer', ...FILM_COLUMNS],
    films.map((film) => [customer, ...filmColumns(film)]),
    ` ON CONFLICT (customer, id) DO UPDATE SET ${updates.join(', ')}`,
  );
  await deleteRows(tx, 'film_person', customer, 'film_id', films.map((film) => film.id));
  await insertRows(
    tx,
    'film_person',
    ['customer', 'film_id', 'position', 'id', 'first_name', 'last_name', 'role'],
    films.flatMap((film) => film.people.map((person, position) => [customer, film.id, position, person.id, person.firstName, person.lastName, person.role])),
  );
}

/** Inserts packages, or replaces those whose id is already taken, films included. */
export async function savePackages(tx: SqlClient, customer: string, packages: readonly FilmPackage[]): Promise<void> {
  await deleteRows(tx, 'film_package', customer, 'id', packages.map((filmPackage) => filmPackage.id));
  await insertRows(tx, 'film_package', ['customer', 'id', 'title', 'status'], packages.map((p) => [customer, p.id, p.title, p.status]));
  await insertRows(
    tx,
    'film_package_film',
    ['customer', 'package_id', 'film_order', 'film_id', 'title', 'split_millionths', 'trailer_duration', 'clean_up_duration'],
    packages.flatMap((p) => p.films.map((f) => [customer, p.id, f.order, f.filmId, f.title, f.splitMillionths, f.trailerDuration, f.cleanUpDuration])),
  );
}

/**
 * The next place in the order of commits of a version table's rows (`moved`), taken in a
 * read-write transaction: writers take turns, so the order of these numbers is the order in which
 * their transactions commit, and a reader never sees a number before a lower one of the same table.
 */
export const NEXT_MOVE = (table: string): string => `(SELECT COALESCE(max(moved), 0) + 1 FROM ${table})`;

/** The notification channel of committed catalogue changes; its payload is the customer. */
const CATALOGUE_CHANNEL = 'marquee_catalogue';

/**
 * Commits a change of the customer's catalogue: a new version, and the change's description
 * beside it, in the caller's transaction. Servers publish again what it touched when they see
 * the new version, at once where the database notifies them of the commit.
 */
export async function commitCatalogueChange(tx: SqlClient, customer: string, change: CatalogueChange): Promise<CommittedChange> {
  const changedAt = new Date();
  const [row] = await tx.query<{ version: number }>(
    `INSERT INTO catalogue (customer, version, changed_at, moved) VALUES (?, 1, ?, ${NEXT_MOVE('catalogue')})
     ON CONFLICT (customer) DO UPDATE SET version = catalogue.version + 1, changed_at = excluded.changed_at, moved = excluded.moved
     RETURNING version`,
    [customer, changedAt.toISOString()],
  );
  const version = row?.version ?? 1;
  await tx.execute('INSERT INTO catalogue_change (customer, version, changed_at, changes) VALUES (?, ?, ?, ?)', [customer, version, changedAt.toISOString(), JSON.stringify(change)]);
  await notifyCatalogueReaders(tx, customer);
  return { version, changedAt, change };
}

/**
 * Tells the servers following the database, once the caller's transaction commits, that what they
 * publish of the customer's catalogue changed; a no-op where the database cannot notify.
 */
export async function notifyCatalogueReaders(tx: SqlClient, customer: string): Promise<void> {
  await tx.notify?.(CATALOGUE_CHANNEL, customer);
}

/** The customer's changes after a version, oldest first, at most as many as `limit` says (see `limitTo`). */
const changesAfter = (limit: string): string => `SELECT version, changed_at, changes FROM catalogue_change WHERE customer = ? AND version > ? ORDER BY version ${limit}`;

function committedChange([version, changedAt, changes]: readonly SqlValue[]): CommittedChange {
  return { version: Number(version), changedAt: new Date(String(changedAt)), change: JSON.parse(String(changes)) as CatalogueChange };
}

/** The customer's committed changes after `afterVersion`, oldest first, at most `limit`. */
export async function loadCatalogueChanges(db: SqlClient, customer: string, afterVersion: number, limit: number): Promise<CommittedChange[]> {
  const rows = await db.queryArrays<[number, string, string]>(changesAfter('LIMIT ?'), [customer, afterVersion, limit]);
  return rows.map(committedChange);
}

/** Where a customer's catalogue stands: what a server publishes it at and with. */
export interface CatalogueStanding {
  readonly version: number;
  /** When it last changed; undefined before its first import. */
  readonly changedAt: Date | undefined;
  /** The version of the customer's access corrections; 0 before the first. */
  readonly correctionVersion: number;
  readonly counts: RecordCounts;
}

/** The columns of a customer's standing, in the order of `standingOf`, each taking the customer as its one parameter. */
const STANDING = [
  'SELECT version FROM catalogue WHERE customer = ?',
  'SELECT changed_at FROM catalogue WHERE customer = ?',
  'SELECT version FROM access_correction_version WHERE customer = ?',
  'SELECT COUNT(*) FROM film WHERE customer = ?',
  'SELECT COUNT(*) FROM film_package WHERE customer = ?',
  'SELECT COUNT(*) FROM session WHERE customer = ?',
];
const STANDING_COLUMNS = STANDING.map((column) => `(${column})`).join(', ');

function standingOf([version, changedAt, correctionVersion, films, packages, sessions]: readonly SqlValue[]): CatalogueStanding {
  return {
    version: Number(version ?? 0),
    changedAt: changedAt === null || changedAt === undefined ? undefined : new Date(String(changedAt)),
    correctionVersion: Number(correctionVersion ?? 0),
    counts: { films: Number(films ?? 0), packages: Number(packages ?? 0), sessions: Number(sessions ?? 0) },
  };
}

/**
 * Where the customer's catalogue stands, in one statement: on PostgreSQL each statement is a round
 * trip of a customer's first answer, and of every change a server publishes.
 */
export async function loadCatalogueStanding(db: SqlClient, customer: string): Promise<CatalogueStanding> {
  const [row] = await db.queryArrays(`SELECT ${STANDING_COLUMNS}`, STANDING.map(() => customer));
  return standingOf(row ?? []);
}

/** Where a customer's catalogue stands, and the changes that brought it there from a version held. */
export interface CatalogueMoves extends CatalogueStanding {
  /** The changes committed after the version held, oldest first, at most the limit asked. */
  readonly changes: CommittedChange[];
}

/**
 * Where the customer's catalogue stands and its committed changes after `afterVersion` (at most
 * `limit`), in one statement: a server reads them on every commit to bring a held catalogue forward.
 */
export async function loadCatalogueMoves(db: SqlClient, customer: string, afterVersion: number, limit: number): Promise<CatalogueMoves> {
  const [row = []] = await db.queryArrays(
    `SELECT ${STANDING_COLUMNS}, (SELECT ${db.jsonRows(['version', 'changed_at', 'changes'], 'version')} FROM (${changesAfter(limitTo(limit))}) AS recent)`,
    [...STANDING.map(() => customer), customer, afterVersion],
  );
  const changes = row[STANDING.length];
  return { ...standingOf(row), changes: (JSON.parse(typeof changes === 'string' ? changes : '[]') as SqlValue[][]).map(committedChange) };
}

/**
 * Calls `onChange` soon after any catalogue change commits, where the database can notify;
 * undefined where it cannot, and only polling the versions finds changes.
 */
export function followCatalogueChanges(db: SqlClient, onChange: () => void): Subscription | undefined {
  return db.listen?.(CATALOGUE_CHANNEL, onChange);
}

/** How far a reader has followed the versions: the last place (`moved`) of each version table it has read. */
export interface VersionsSeen {
  readonly catalogues: number;
  readonly corrections: number;
}

/** Nothing read yet: every row is past it. */
export const NOTHING_SEEN: VersionsSeen = { catalogues: -1, corrections: -1 };

/**
 * What a look at the versions read, by customer: the versions of catalogues and of access
 * corrections that moved since what it had seen, or, `whole`, every one ever stored.
 */
export interface LookedVersions {
  readonly catalogues: Map<string, number>;
  readonly corrections: Map<string, number>;
  readonly whole: boolean;
  /** What to look past next time. */
  readonly seen: VersionsSeen;
}

/**
 * The versions that moved since `seen`, in one statement: a server reads them on every commit, and
 * every poll interval, so their cost follows the changes rather than the customers. Every version
 * (`whole`) when `seen` is NOTHING_SEEN, or when a table's last place is behind `seen`: the
 * database is not the one looked at before (restored from a copy, say), or the statement read an
 * older snapshot (on SQLite, one of another read transaction open on the connection).
 */
export async function loadStoredVersions(db: SqlClient, seen: VersionsSeen = NOTHING_SEEN): Promise<LookedVersions> {
  // Every version is read in a transaction of its own, which takes its turn on SQLite's one
  // connection: read between another transaction's statements, it would see that transaction's
  // snapshot, and versions older than the catalogues held.
  if (seen === NOTHING_SEEN) return db.transaction((tx) => readVersions(tx, NOTHING_SEEN), { readOnly: true });
  const looked = await readVersions(db, seen);
  if (looked.seen.catalogues < seen.catalogues || looked.seen.corrections < seen.corrections) return loadStoredVersions(db);
  return looked;
}

/** Reads the versions past `seen`, and each table's last place, in one statement. */
async function readVersions(db: SqlClient, seen: VersionsSeen): Promise<LookedVersions> {
  // Each row's table told by a number: told by its name, the look at 5,000 customers cost twice the
  // CPU, a new string in each row to look the map up by. Rows 2 and 3 are each table's last place.
  const rows = await db.queryArrays<[number, string | null, number | null, number | null]>(
    `SELECT 0, customer, version, moved FROM catalogue WHERE moved > ?
     UNION ALL SELECT 1, customer, version, moved FROM access_correction_version WHERE moved > ?
     UNION ALL SELECT 2, NULL, NULL, (SELECT max(moved) FROM catalogue)
     UNION ALL SELECT 3, NULL, NULL, (SELECT max(moved) FROM access_correction_version)`,
    [seen.catalogues, seen.corrections],
  );
  const looked = { catalogues: new Map<string, number>(), corrections: new Map<string, number>() };
  const last = { catalogues: 0, corrections: 0 };
  for (const [table, customer, version, moved] of rows) {
    const kind = Number(table);
    if (kind === 0) looked.catalogues.set(customer as string, Number(version));
    else if (kind === 1) looked.corrections.set(customer as string, Number(version));
    else last[kind === 2 ? 'catalogues' : 'corrections'] = Number(moved ?? 0);
  }
  return { ...looked, whole: seen === NOTHING_SEEN, seen: last };
}

export async function loadCatalogueVersion(db: SqlClient, customer: string): Promise<number> {
  const [row] = await db.query<{ version: number }>('SELECT version FROM catalogue WHERE customer = ?', [customer]);
  return row?.version ?? 0;
}
