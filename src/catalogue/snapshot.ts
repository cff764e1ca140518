/**
 * One customer's catalogue as served: immutable, in the contract's order, with lookups by id.
 * A new snapshot is built for every committed import and swapped in whole.
 */
import { compareCodePoints } from './code-points.js';
import type { Catalogue, Film, FilmPackage } from './model.js';

export class CatalogueSnapshot {
  /** Films by DisplaySequence, then Id by code point. */
  readonly films: readonly Film[];
  /** Packages by Id. */
  readonly packages: readonly FilmPackage[];

  constructor(
    catalogue: Catalogue,
    /** The stored catalogue version this snapshot reflects; 0 before any import. */
    readonly version: number,
  ) {
    this.films = [...catalogue.films].sort((a, b) => a.displaySequence - b.displaySequence || compareCodePoints(a.id, b.id));
    this.packages = [...catalogue.packages].sort((a, b) => a.id - b.id);
  }

  static empty(): CatalogueSnapshot {
    return new CatalogueSnapshot({ films: [], packages: [] }, 0);
  }
}
