/** What the HTTP layer reads from the catalogues a server answers from. */
import type { PublishedCatalogue } from '../formats/published-catalogue.js';

/** Where a request finds the answers of its customer's catalogue. */
export interface CatalogueDirectory {
  published(customer: string): PublishedCatalogue;
}

/** What readiness checks need to know about the catalogues a server answers from. */
export interface CatalogueHealth {
  /** Every stored catalogue has been loaded at least once. */
  readonly loaded: boolean;
  /** The last look at the database succeeded. */
  readonly databaseAnswering: boolean;
}

/** One customer's catalogue as a server answers from it. */
export interface ServedCatalogue {
  readonly customer: string;
  readonly version: number;
  readonly films: number;
  readonly packages: number;
  /** When the import that made this version committed. */
  readonly changedAt: Date | undefined;
  /** How often this server has loaded the customer's catalogue: once at start, then once per import. */
  readonly loads: number;
}

export interface CatalogueStatistics {
  readonly catalogues: readonly ServedCatalogue[];
  /** Looks at the database for new catalogues that failed. */
  readonly failedRefreshes: number;
}

/** What the operations endpoints and the metrics read. */
export interface CatalogueMonitor {
  health(): CatalogueHealth;
  statistics(): CatalogueStatistics;
}

export type ServedCatalogues = CatalogueDirectory & CatalogueMonitor;
