/**
 * One customer's catalogue as served: immutable, in the contract's order, with lookups by id.
 * A new snapshot is built for every committed import and swapped in whole.
 */
import { compareCodePoints } from './code-points.js';
import { LISTED_KINDS, type ListedKind } from './catalogue-change.js';
import type { RecordsByKey } from './changed-records.js';
import type { Attribute, Catalogue, Film, FilmPackage, RecordCounts, Screen, Session, Site } from './model.js';
import type { AccessTerm } from '../showtimes/access-terms.js';

/** Where a snapshot comes from: whose catalogue, which stored version, and when that version was committed. */
export interface SnapshotSource {
  readonly customer: string;
  /** 0 before any import. */
  readonly version: number;
  /** Undefined before any import. */
  readonly changedAt?: Date | undefined;
  /** The cinema's corrections of how its attributes read (`marquee access set`): terms by attribute id. */
  readonly accessCorrections?: ReadonlyMap<string, readonly AccessTerm[]>;
  /** The stored version of those corrections; 0 before the first. */
  readonly correctionVersion?: number;
  /** The kinds whose records were read, when not all were: the others' lists are empty, whatever is stored. */
  readonly kinds?: ReadonlySet<ListedKind>;
  /** What is stored, when not every kind was read. */
  readonly counts?: RecordCounts;
}

/** Reads one customer's catalogue as stored now. */
export interface CatalogueReader {
  /** Its site and its records of `kinds`, from one read transaction. */
  snapshot(kinds: ReadonlySet<ListedKind>): Promise<CatalogueSnapshot>;
  /** What `read` reads by key, from one read transaction. */
  byKey<T>(read: (records: RecordsByKey) => Promise<T>): Promise<T>;
}

export class CatalogueSnapshot {
  /** Films by DisplaySequence, then Id by code point. */
  readonly films: readonly Film[];
  /** Packages by Id. */
  readonly packages: readonly FilmPackage[];
  /** Screens by Id. */
  readonly screens: readonly Screen[];
  /** Attributes by Id, by code point. */
  readonly attributes: readonly Attribute[];
  readonly site: Site | null;
  /** Sessions by PreShowStartTime, then Id. */
  readonly sessions: readonly Session[];
  readonly customer: string;
  /** The stored catalogue version this snapshot reflects; 0 before any import. */
  readonly version: number;
  readonly changedAt: Date | undefined;
  readonly accessCorrections: ReadonlyMap<string, readonly AccessTerm[]>;
  readonly correctionVersion: number;
  /** The kinds whose records were read: a part written from another kind's records cannot be published from this snapshot. */
  readonly kinds: ReadonlySet<ListedKind>;
  readonly counts: RecordCounts;

  constructor(catalogue: Catalogue, source: SnapshotSource) {
    this.customer = source.customer;
    this.version = source.version;
    this.changedAt = source.changedAt;
    this.accessCorrections = source.accessCorrections ?? new Map();
    this.correctionVersion = source.correctionVersion ?? 0;
    this.kinds = source.kinds ?? new Set(LISTED_KINDS);
    this.counts = source.counts ?? { films: catalogue.films.length, packages: catalogue.packages.length, sessions: catalogue.sessions.length };
    this.films = [...catalogue.films].sort((a, b) => a.displaySequence - b.displaySequence || compareCodePoints(a.id, b.id));
    this.packages = [...catalogue.packages].sort((a, b) => a.id - b.id);
    this.screens = [...catalogue.screens].sort((a, b) => a.id - b.id);
    this.attributes = [...catalogue.attributes].sort((a, b) => compareCodePoints(a.id, b.id));
    this.site = catalogue.site === null ? null : { ...catalogue.site, screens: [...catalogue.site.screens].sort((a, b) => a - b) };
    // The times share one fixed-width form, so their text orders as they do.
    this.sessions = [...catalogue.sessions].sort((a, b) => compareCodePoints(a.preShowStartTime, b.preShowStartTime) || a.id - b.id);
  }

  /** The catalogue of every customer never imported. */
  static empty(): CatalogueSnapshot {
    return new CatalogueSnapshot({ films: [], packages: [], screens: [], attributes: [], site: null, sessions: [] }, { customer: '', version: 0 });
  }
}

/** Reads the catalogue of every customer never imported: no site, no records. */
export const NOTHING_STORED: CatalogueReader = {
  snapshot: async () => CatalogueSnapshot.empty(),
  byKey: (read) => read({ films: async () => [], packages: async () => [], screens: async () => [], attributes: async () => [], sessions: async () => [] }),
};
