/**
 * One customer's catalogue as served: immutable, in the contract's order, with lookups by id.
 * A new snapshot is built for every committed import and swapped in whole.
 */
import { compareCodePoints } from './code-points.js';
import type { Attribute, Catalogue, Film, FilmPackage, Screen, Session, Site } from './model.js';
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

  constructor(catalogue: Catalogue, source: SnapshotSource) {
    this.customer = source.customer;
    this.version = source.version;
    this.changedAt = source.changedAt;
    this.accessCorrections = source.accessCorrections ?? new Map();
    this.correctionVersion = source.correctionVersion ?? 0;
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
