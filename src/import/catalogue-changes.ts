/**
 * What an import does to a catalogue: each incoming record is compared with the stored one by
 * a digest of its wire form, so a whole catalogue is compared while holding one short string
 * per record.
 */
import { createHash } from 'node:crypto';
import type { ExistingRecords, ReferencedKind } from '../catalogue/import-check.js';
import type { Attribute, Film, FilmPackage, Screen, Session, Site } from '../catalogue/model.js';
import { jsonRecord } from '../formats/json-writer.js';
import { ATTRIBUTE_SHAPE, FILM_SHAPE, PACKAGE_SHAPE, SCREEN_SHAPE, SITE_SHAPE, WEB_SESSION_SHAPE, type WireShape } from '../formats/wire-shape.js';
import { loadPackages, readFilmPages } from '../store/catalogue-repository.js';
import { PROGRAMME_TABLES, loadRecords } from '../store/record-tables.js';
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
  return createHash('sha1').update(jsonRecord(shape, record)).digest('base64url');
}

/** Compares incoming records of one kind with those stored. */
class ChangeTracker<Key, T> {
  private readonly seen = new Set<Key>();
  private added = 0;
  private changed = 0;
  private unchanged = 0;

  constructor(
    private readonly shape: WireShape<T>,
    private readonly stored: ReadonlyMap<Key, string>,
  ) {}

  static of<Key, T>(shape: WireShape<T>, records: Iterable<T>, key: (record: T) => Key): ChangeTracker<Key, T> {
    const stored = new Map<Key, string>();
    for (const record of records) stored.set(key(record), digest(shape, record));
    return new ChangeTracker(shape, stored);
  }

  has(key: Key): boolean {
    return this.stored.has(key);
  }

  classify(key: Key, record: T): Change {
    this.seen.add(key);
    const before = this.stored.get(key);
    const change: Change = before === undefined ? 'added' : before === digest(this.shape, record) ? 'unchanged' : 'changed';
    this[change]++;
    return change;
  }

  counts(replace: boolean): ChangeCounts {
    const removed = replace ? [...this.stored.keys()].filter((key) => !this.seen.has(key)).length : 0;
    return { added: this.added, changed: this.changed, unchanged: this.unchanged, removed };
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
  /** What the stored catalogue holds, for the references of an import that merges into it. */
  readonly existing: ExistingRecords;
}

/** Digests of the stored catalogue, films read page by page. */
export async function trackChanges(db: SqlClient, customer: string): Promise<CatalogueChanges> {
  const films = new Map<string, string>();
  for await (const page of readFilmPages(db, customer)) for (const film of page) films.set(film.id, digest(FILM_SHAPE, film));
  const packages = await loadPackages(db, customer);
  const sessions = await loadRecords(db, PROGRAMME_TABLES.session, customer);
  const changes = {
    films: new ChangeTracker(FILM_SHAPE, films),
    packages: ChangeTracker.of(PACKAGE_SHAPE, packages, (p) => p.id),
    screens: ChangeTracker.of(SCREEN_SHAPE, await loadRecords(db, PROGRAMME_TABLES.screen, customer), (s) => s.id),
    attributes: ChangeTracker.of(ATTRIBUTE_SHAPE, await loadRecords(db, PROGRAMME_TABLES.attribute, customer), (a) => a.id),
    site: ChangeTracker.of(SITE_SHAPE, await loadRecords(db, PROGRAMME_TABLES.site, customer), () => SITE_KEY),
    sessions: ChangeTracker.of(WEB_SESSION_SHAPE, sessions, (s) => s.id),
  };
  const trackers: Readonly<Record<ReferencedKind, { has(key: never): boolean }>> = {
    film: changes.films,
    package: changes.packages,
    screen: changes.screens,
    attribute: changes.attributes,
  };
  const packageFilms = new Map(packages.map((p) => [p.id, p.films.map((film) => film.filmId)]));
  const existing: ExistingRecords = {
    has: (kind, key) => trackers[kind].has(key as never),
    hasSite: changes.site.has(SITE_KEY),
    packageFilms: (id) => packageFilms.get(id),
    packageSessions: sessions.flatMap((s) => (s.filmPackageId !== null && s.filmId !== null ? [{ id: s.id, packageId: s.filmPackageId, filmId: s.filmId }] : [])),
  };
  return { ...changes, existing };
}
