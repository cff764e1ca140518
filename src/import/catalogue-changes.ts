/**
 * What an import does to a catalogue: each incoming record is compared with the stored one by
 * a digest of its wire form, so a whole catalogue is compared while holding one short string
 * per record.
 */
import { hash } from 'node:crypto';
import type { KindChange } from '../catalogue/catalogue-change.js';
import type { ExistingRecords, Reference, ReferencedKind } from '../catalogue/import-check.js';
import type { Attribute, Film, FilmPackage, Screen, Session, Site } from '../catalogue/model.js';
import { jsonRecord } from '../formats/json-writer.js';
import type { RecordKind } from '../formats/record-kinds.js';
import { ATTRIBUTE_SHAPE, FILM_SHAPE, PACKAGE_SHAPE, SCREEN_SHAPE, SITE_SHAPE, WEB_SESSION_SHAPE, type WireShape } from '../formats/wire-shape.js';
import { loadCatalogueOutline, readFilmPages, type CatalogueOutline } from '../store/catalogue-repository.js';
import type { SqlClient } from '../store/sql-client.js';

export interface ChangeCounts {
  readonly added: number;
  readonly changed: number;
  readonly unchanged: number;
  /** Only `--replace` removes records. */
  readonly removed: number;
}

export type Change = 'added' | 'changed' | 'unchanged';

function digest<T>(shape: WireShape<T>, record: T): string {
  return hash('sha1', jsonRecord(shape, record), 'base64url');
}

/** Compares incoming records of one kind with those stored. */
class ChangeTracker<Key, T> {
  /** The digest of each incoming record, by key. */
  private readonly seen = new Map<Key, string>();
  private readonly added: Key[] = [];
  private readonly changed: Key[] = [];
  private unchanged = 0;

  constructor(
    private readonly shape: WireShape<T>,
    private readonly stored: ReadonlyMap<Key, string>,
  ) {}

  has(key: Key): boolean {
    return this.stored.has(key);
  }

  classify(key: Key, record: T): Change {
    const after = digest(this.shape, record);
    this.seen.set(key, after);
    const before = this.stored.get(key);
    const change: Change = before === undefined ? 'added' : before === after ? 'unchanged' : 'changed';
    if (change === 'unchanged') this.unchanged++;
    else this[change].push(key);
    return change;
  }

  /** Counts a stored record as the input's, unchanged, without reading it (it must be stored). */
  keep(key: Key): void {
    const stored = this.stored.get(key);
    if (stored === undefined) throw new Error(`a record kept as stored is not stored: ${String(key)}`);
    this.seen.set(key, stored);
    this.unchanged++;
  }

  /** The digests of the records as a replace of this kind leaves them: the input's. */
  replacedDigests(): ReadonlyMap<Key, string> {
    return this.seen;
  }

  /** The stored records the input did not have: those a replace removes. */
  unseen(): Key[] {
    return [...this.stored.keys()].filter((key) => !this.seen.has(key));
  }

  /** What the import does to this kind; `replace` removes the records the input did not have. */
  change(replace: boolean): KindChange<Key> {
    return { added: this.added, changed: this.changed, removed: replace ? this.unseen() : [] };
  }

  /** How many records `change`, this kind's change as `change()` gave it, touched, and how many it left as they were. */
  counts({ added, changed, removed }: KindChange): ChangeCounts {
    return { added: added.length, changed: changed.length, unchanged: this.unchanged, removed: removed.length };
  }
}

/** A digest's length: SHA-1 in base64url. */
const DIGEST_LENGTH = 27;

/**
 * The digests of a customer's stored sessions at one catalogue version, as the import that left
 * them there computed them, and what they may name at that version. A sync replaces a cinema's
 * sessions every minute or so: with these it compares the incoming sessions without reading and
 * digesting every stored one again (a fifth of its work for 300 sessions), and checks what they
 * name without reading the rest of the catalogue. Packed, since a sync process keeps them for
 * every cinema it mirrors: a cinema's 300 sessions take about 10 KB, what they may name about 6 KB
 * for 400 films.
 */
export class StoredSessions {
  private constructor(
    /** The catalogue version at which the sessions are these: at any other, they may not be. */
    readonly version: number,
    private readonly ids: Float64Array,
    private readonly digests: string,
    /** What the sessions may name, as JSON. */
    private readonly named: string,
  ) {}

  static of(version: number, digests: ReadonlyMap<number, string>, named: NamedRecords): StoredSessions {
    return new StoredSessions(version, Float64Array.from(digests.keys()), [...digests.values()].join(''), JSON.stringify(named));
  }

  unpacked(): Map<number, string> {
    return new Map(Array.from(this.ids, (id, index) => [id, this.digests.slice(index * DIGEST_LENGTH, (index + 1) * DIGEST_LENGTH)]));
  }

  /** What the sessions may name at the same version. */
  namedRecords(): NamedRecords {
    return JSON.parse(this.named) as NamedRecords;
  }
}

/**
 * What sessions may name, and what else names a record: the keys of the films, packages, screens
 * and attributes, the films of each package and the screens of the site. An import of sessions
 * alone needs nothing else of the rest of the catalogue, and a sync keeps it with the stored
 * sessions: reading it at each change of a cinema's sessions was a tenth of what the sync spent.
 * Each list is in the order of the keys, as stored records are read.
 */
export interface NamedRecords {
  readonly filmIds: readonly string[];
  readonly packages: readonly (readonly [id: number, filmIds: readonly string[]])[];
  readonly screenIds: readonly number[];
  readonly attributeIds: readonly string[];
  /** Null when there is no site. */
  readonly siteScreens: readonly number[] | null;
}

function namedRecords({ filmIds, packages, screens, attributes, site }: CatalogueOutline): NamedRecords {
  return {
    filmIds,
    packages: packages.map((p) => [p.id, p.films.map((film) => film.filmId)]),
    screenIds: screens.map((screen) => screen.id),
    attributeIds: attributes.map((attribute) => attribute.id),
    siteScreens: site?.screens ?? null,
  };
}

/** What the customer's sessions may name, read. */
export async function loadNamedRecords(db: SqlClient, customer: string): Promise<NamedRecords> {
  return namedRecords(await loadCatalogueOutline(db, customer, false));
}

/** Whether these kinds are sessions alone (or none). */
function onlySessions(kinds: Iterable<RecordKind>): boolean {
  return [...kinds].every((kind) => kind === 'session');
}

/** The one site of a customer is told apart from none by this key. */
export const SITE_KEY = 'site';

export interface CatalogueChanges {
  readonly films: ChangeTracker<string, Film>;
  readonly packages: ChangeTracker<number, FilmPackage>;
  readonly screens: ChangeTracker<number, Screen>;
  readonly attributes: ChangeTracker<string, Attribute>;
  readonly site: ChangeTracker<string, Site>;
  readonly sessions: ChangeTracker<number, Session>;
  /** What the stored sessions may name, as the import found it. */
  readonly named: NamedRecords;
  /** What the stored catalogue keeps beside an import that replaces the records of `replaced`. */
  existingBeside(replaced: ReadonlySet<RecordKind>): ExistingRecords;
}

/** Where a problem of a stored record is said to be: in no file, but in the catalogue. */
const STORED = { package: "the catalogue's film packages", session: "the catalogue's sessions", site: "the catalogue's site" } as const;

/** A reference a stored record makes, and the kind of that record. */
interface StoredReference extends Reference {
  readonly holder: RecordKind;
}

/** What stored packages, sessions and the site name, each placed as the record's problem would be. */
function storedReferences({ packages, siteScreens }: NamedRecords, sessions: readonly Session[]): StoredReference[] {
  const references: StoredReference[] = [];
  const refer = (holder: RecordKind, file: string, record: number, id: string | undefined, field: string, kind: ReferencedKind, key: string | number): void => {
    references.push({ holder, file, record, id, field, kind, key });
  };
  packages.forEach(([id, filmIds], index) => filmIds.forEach((filmId, position) => refer('package', STORED.package, index + 1, String(id), `Films[${position + 1}].FilmId`, 'film', filmId)));
  sessions.forEach((session, index) => {
    const at = (field: string, kind: ReferencedKind, key: string | number): void => refer('session', STORED.session, index + 1, String(session.id), field, kind, key);
    if (session.filmPackageId !== null) at('FilmPackageId', 'package', session.filmPackageId);
    else if (session.filmId !== null) at('FilmId', 'film', session.filmId);
    at('ScreenId', 'screen', session.screenId);
    session.attributes.forEach((attribute, position) => at(`Attributes[${position + 1}]`, 'attribute', attribute));
  });
  siteScreens?.forEach((screen, position) => refer('site', STORED.site, 1, undefined, `Screens[${position + 1}].Id`, 'screen', screen));
  return references;
}

/**
 * What the stored catalogue is, for an import of `kinds`: what its sessions may name, kept with
 * the stored sessions for an import of sessions alone, else read with the outline.
 */
async function storedOutline(
  db: SqlClient,
  customer: string,
  kinds: ReadonlySet<RecordKind>,
  storedSessions: StoredSessions | undefined,
): Promise<{ readonly named: NamedRecords; readonly outline?: CatalogueOutline }> {
  const kept = onlySessions(kinds) ? storedSessions?.namedRecords() : undefined;
  if (kept !== undefined) return { named: kept };
  const outline = await loadCatalogueOutline(db, customer, storedSessions === undefined);
  return { named: namedRecords(outline), outline };
}

/**
 * A tracker of a kind's stored records: compared by their digests when the input may hold records
 * of the kind (and `records` were read for it), otherwise known by their keys alone.
 */
function trackerOf<Key, T>(shape: WireShape<T>, records: readonly T[] | undefined, key: (record: T) => Key, keys: readonly Key[]): ChangeTracker<Key, T> {
  return new ChangeTracker(shape, new Map(records === undefined ? keys.map((k) => [k, '']) : records.map((record) => [key(record), digest(shape, record)])));
}

/**
 * Digests of the stored catalogue, read in one statement but for the films, which are read page by
 * page only when the input may hold some (`kinds`): a catalogue's films are most of its records.
 * A kind is digested only when the input may hold records of it; otherwise its keys are all an
 * import needs, as a sync of the sessions alone needs of the rest. The sessions' digests are not
 * read when they are known (`storedSessions`, of an import that replaces the sessions: what the
 * stored sessions name is not checked then, as the input's replace them), nor is anything else
 * for an import of sessions alone, since they keep what they may name.
 */
export async function trackChanges(db: SqlClient, customer: string, kinds: ReadonlySet<RecordKind>, storedSessions?: StoredSessions): Promise<CatalogueChanges> {
  const { named, outline } = await storedOutline(db, customer, kinds, storedSessions);
  const sessions = outline?.sessions ?? [];
  const films = new Map<string, string>();
  if (kinds.has('film')) for await (const page of readFilmPages(db, customer)) for (const film of page) films.set(film.id, digest(FILM_SHAPE, film));
  // Never compared: no film comes in.
  else for (const id of named.filmIds) films.set(id, '');
  /** The stored records of `kind`, when the input may hold some: the outline is read whenever it may hold more than sessions. */
  const compared = <T>(kind: RecordKind, records: (read: CatalogueOutline) => readonly T[]): readonly T[] | undefined =>
    kinds.has(kind) && outline !== undefined ? records(outline) : undefined;
  const changes = {
    films: new ChangeTracker(FILM_SHAPE, films),
    packages: trackerOf(PACKAGE_SHAPE, compared('package', (read) => read.packages), (p) => p.id, named.packages.map(([id]) => id)),
    screens: trackerOf(SCREEN_SHAPE, compared('screen', (read) => read.screens), (s) => s.id, named.screenIds),
    attributes: trackerOf(ATTRIBUTE_SHAPE, compared('attribute', (read) => read.attributes), (a) => a.id, named.attributeIds),
    site: trackerOf(SITE_SHAPE, compared('site', (read) => (read.site === null ? [] : [read.site])), () => SITE_KEY, named.siteScreens === null ? [] : [SITE_KEY]),
    sessions:
      storedSessions === undefined
        ? trackerOf(WEB_SESSION_SHAPE, compared('session', (read) => read.sessions), (s) => s.id, sessions.map((s) => s.id))
        : new ChangeTracker(WEB_SESSION_SHAPE, storedSessions.unpacked()),
  };
  const trackers: Readonly<Record<ReferencedKind, { has(key: never): boolean }>> = {
    film: changes.films,
    package: changes.packages,
    screen: changes.screens,
    attribute: changes.attributes,
  };
  const packageFilms = new Map(named.packages);
  const packageSessions = sessions.flatMap((s) => (s.filmPackageId !== null && s.filmId !== null ? [{ id: s.id, packageId: s.filmPackageId, filmId: s.filmId }] : []));
  const references = storedReferences(named, sessions);
  const [first] = sessions;
  const existingBeside = (replaced: ReadonlySet<RecordKind>): ExistingRecords => ({
    has: (kind, key) => !replaced.has(kind) && trackers[kind].has(key as never),
    hasSite: !replaced.has('site') && named.siteScreens !== null,
    firstSession: replaced.has('session') || first === undefined ? undefined : { file: STORED.session, record: 1, id: String(first.id) },
    packageFilms: (id) => (replaced.has('package') ? undefined : packageFilms.get(id)),
    packageSessions: replaced.has('session') ? [] : packageSessions,
    references: references.filter((reference) => !replaced.has(reference.holder)),
  });
  return { ...changes, named, existingBeside };
}
