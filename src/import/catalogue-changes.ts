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
import { loadCatalogueOutline, readFilmPages } from '../store/catalogue-repository.js';
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

  /**
   * Compares with `records`, digested only when the input may hold records of their kind
   * (`compared`): otherwise their keys are all an import needs of them.
   */
  static of<Key, T>(shape: WireShape<T>, records: Iterable<T>, key: (record: T) => Key, compared: boolean): ChangeTracker<Key, T> {
    const stored = new Map<Key, string>();
    for (const record of records) stored.set(key(record), compared ? digest(shape, record) : '');
    return new ChangeTracker(shape, stored);
  }

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
 * them there computed them. A sync replaces a cinema's sessions every minute or so: with these
 * it compares the incoming sessions without reading and digesting every stored one again (a
 * fifth of its work for 300 sessions). Packed, since a sync process keeps them for every cinema it mirrors: a
 * cinema's 300 sessions take about 10 KB.
 */
export class StoredSessions {
  private constructor(
    /** The catalogue version at which the sessions are these: at any other, they may not be. */
    readonly version: number,
    private readonly ids: Float64Array,
    private readonly digests: string,
  ) {}

  static of(version: number, digests: ReadonlyMap<number, string>): StoredSessions {
    return new StoredSessions(version, Float64Array.from(digests.keys()), [...digests.values()].join(''));
  }

  unpacked(): Map<number, string> {
    return new Map(Array.from(this.ids, (id, index) => [id, this.digests.slice(index * DIGEST_LENGTH, (index + 1) * DIGEST_LENGTH)]));
  }
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
function storedReferences(packages: readonly FilmPackage[], sessions: readonly Session[], site: Site | null): StoredReference[] {
  const references: StoredReference[] = [];
  const refer = (holder: RecordKind, file: string, record: number, id: string | undefined, field: string, kind: ReferencedKind, key: string | number): void => {
    references.push({ holder, file, record, id, field, kind, key });
  };
  packages.forEach((p, index) => p.films.forEach((film, position) => refer('package', STORED.package, index + 1, String(p.id), `Films[${position + 1}].FilmId`, 'film', film.filmId)));
  sessions.forEach((session, index) => {
    const at = (field: string, kind: ReferencedKind, key: string | number): void => refer('session', STORED.session, index + 1, String(session.id), field, kind, key);
    if (session.filmPackageId !== null) at('FilmPackageId', 'package', session.filmPackageId);
    else if (session.filmId !== null) at('FilmId', 'film', session.filmId);
    at('ScreenId', 'screen', session.screenId);
    session.attributes.forEach((attribute, position) => at(`Attributes[${position + 1}]`, 'attribute', attribute));
  });
  site?.screens.forEach((screen, position) => refer('site', STORED.site, 1, undefined, `Screens[${position + 1}].Id`, 'screen', screen));
  return references;
}

/**
 * Digests of the stored catalogue, read in one statement but for the films, which are read page by
 * page only when the input may hold some (`kinds`): a catalogue's films are most of its records.
 * A kind is digested only when the input may hold records of it; otherwise its keys are all an
 * import needs, as a sync of the sessions alone needs of the rest. The sessions' digests are not
 * read when they are known (`storedSessions`, of an import that replaces the sessions: what the
 * stored sessions name is not checked then, as the input's replace them).
 */
export async function trackChanges(db: SqlClient, customer: string, kinds: ReadonlySet<RecordKind>, storedSessions?: StoredSessions): Promise<CatalogueChanges> {
  const { filmIds, packages, screens, attributes, site, sessions } = await loadCatalogueOutline(db, customer, storedSessions === undefined);
  const films = new Map<string, string>();
  if (kinds.has('film')) for await (const page of readFilmPages(db, customer)) for (const film of page) films.set(film.id, digest(FILM_SHAPE, film));
  // Never compared: no film comes in.
  else for (const id of filmIds) films.set(id, '');
  const changes = {
    films: new ChangeTracker(FILM_SHAPE, films),
    packages: ChangeTracker.of(PACKAGE_SHAPE, packages, (p) => p.id, kinds.has('package')),
    screens: ChangeTracker.of(SCREEN_SHAPE, screens, (s) => s.id, kinds.has('screen')),
    attributes: ChangeTracker.of(ATTRIBUTE_SHAPE, attributes, (a) => a.id, kinds.has('attribute')),
    site: ChangeTracker.of(SITE_SHAPE, site === null ? [] : [site], () => SITE_KEY, kinds.has('site')),
    sessions:
      storedSessions === undefined
        ? ChangeTracker.of(WEB_SESSION_SHAPE, sessions, (s) => s.id, kinds.has('session'))
        : new ChangeTracker(WEB_SESSION_SHAPE, storedSessions.unpacked()),
  };
  const trackers: Readonly<Record<ReferencedKind, { has(key: never): boolean }>> = {
    film: changes.films,
    package: changes.packages,
    screen: changes.screens,
    attribute: changes.attributes,
  };
  const packageFilms = new Map(packages.map((p) => [p.id, p.films.map((film) => film.filmId)]));
  const packageSessions = sessions.flatMap((s) => (s.filmPackageId !== null && s.filmId !== null ? [{ id: s.id, packageId: s.filmPackageId, filmId: s.filmId }] : []));
  const references = storedReferences(packages, sessions, site);
  const [first] = sessions;
  const existingBeside = (replaced: ReadonlySet<RecordKind>): ExistingRecords => ({
    has: (kind, key) => !replaced.has(kind) && trackers[kind].has(key as never),
    hasSite: !replaced.has('site') && site !== null,
    firstSession: replaced.has('session') || first === undefined ? undefined : { file: STORED.session, record: 1, id: String(first.id) },
    packageFilms: (id) => (replaced.has('package') ? undefined : packageFilms.get(id)),
    packageSessions: replaced.has('session') ? [] : packageSessions,
    references: references.filter((reference) => !replaced.has(reference.holder)),
  });
  return { ...changes, existingBeside };
}
