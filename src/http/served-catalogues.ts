/** What the HTTP layer reads from the catalogues a server answers from. */
import type { PartName, PublishedCatalogue } from '../formats/published-catalogue.js';

/** Where a request finds the answers of its customer's catalogue. */
export interface CatalogueDirectory {
  /**
   * The customer's published catalogue: at once when it is held, else once it is built, with the
   * `wanted` part published. The promise rejects when the database cannot be read.
   */
  published(customer: string, wanted?: PartName): PublishedCatalogue | Promise<PublishedCatalogue>;
}

/** What readiness checks need to know about the catalogues a server answers from. */
export interface CatalogueHealth {
  /** The stored catalogues have been looked at once: any customer's can be built on request. */
  readonly started: boolean;
  /** The last look at the database succeeded. */
  readonly databaseAnswering: boolean;
}

/** One customer's catalogue as a server holds it. */
export interface HeldCatalogue {
  readonly customer: string;
  readonly version: number;
  readonly films: number;
  readonly packages: number;
  /** When the import that made this version committed. */
  readonly changedAt: Date | undefined;
  /** The memory its answers hold. */
  readonly bytes: number;
}

export interface CatalogueStatistics {
  /** The catalogues held now, least recently used first. */
  readonly held: readonly HeldCatalogue[];
  /** What the held catalogues may hold in all before the least recently used is let go. */
  readonly budgetBytes: number;
  /** Catalogues built since start: on a first request, or when a held one changed. */
  readonly builds: number;
  /** The time those builds took, in seconds: reading from the database and publishing each collection as it was first asked for. */
  readonly buildSeconds: number;
  /** Catalogues let go to keep within the budget. */
  readonly evictions: number;
  /** Looks at the database for new catalogues that failed. */
  readonly failedRefreshes: number;
}

/** What the operations endpoints and the metrics read. */
export interface CatalogueMonitor {
  health(): CatalogueHealth;
  statistics(): CatalogueStatistics;
}

export type ServedCatalogues = CatalogueDirectory & CatalogueMonitor;
