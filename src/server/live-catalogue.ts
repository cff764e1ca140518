/**
 * The catalogues a server answers from. Each customer's snapshot is loaded in one read
 * transaction, published, and swapped in whole when the stored version moves, so every answer
 * comes wholly from one committed catalogue.
 */
import { CatalogueSnapshot } from '../catalogue/snapshot.js';
import { PublishedCatalogue } from '../formats/published-catalogue.js';
import type { XmlWriter } from '../formats/xml-writer.js';
import type { CatalogueDirectory } from '../http/catalogue-routes.js';
import type { CatalogueHealth, CatalogueMonitor, CatalogueStatistics } from '../http/operations-routes.js';
import { loadCatalogue, loadCatalogueChangedAt, loadCatalogueVersion, loadCatalogueVersions } from '../store/catalogue-repository.js';
import type { SqlClient } from '../store/sql-client.js';

/** What the metrics tell about a customer's catalogue beyond its snapshot. */
interface LoadHistory {
  readonly changedAt: Date | undefined;
  readonly loads: number;
}

export class LiveCatalogue implements CatalogueDirectory, CatalogueMonitor {
  private catalogues = new Map<string, PublishedCatalogue>();
  private readonly history = new Map<string, LoadHistory>();
  private failedRefreshes = 0;
  private state: CatalogueHealth = { loaded: false, databaseAnswering: false };
  private readonly empty: PublishedCatalogue;
  private timer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> | undefined;

  constructor(
    private readonly db: SqlClient,
    private readonly xml: XmlWriter,
    private readonly onReload: (customer: string, snapshot: CatalogueSnapshot) => void = () => {},
  ) {
    this.empty = new PublishedCatalogue(CatalogueSnapshot.empty(), xml);
  }

  health(): CatalogueHealth {
    return this.state;
  }

  statistics(): CatalogueStatistics {
    const catalogues = [...this.catalogues].map(([customer, { snapshot }]) => ({
      customer,
      version: snapshot.version,
      films: snapshot.films.length,
      packages: snapshot.packages.length,
      changedAt: this.history.get(customer)?.changedAt,
      loads: this.history.get(customer)?.loads ?? 0,
    }));
    return { catalogues, failedRefreshes: this.failedRefreshes };
  }

  published(customer: string): PublishedCatalogue {
    return this.catalogues.get(customer) ?? this.empty;
  }

  /** Loads every customer whose stored version differs from the one served. */
  refresh(): Promise<void> {
    // One refresh at a time; a call during one shares it.
    this.refreshing ??= this.reloadChanged().then(
      () => {
        this.state = { loaded: true, databaseAnswering: true };
      },
      (error: unknown) => {
        this.state = { ...this.state, databaseAnswering: false };
        this.failedRefreshes += 1;
        throw error;
      },
    ).finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  /** Checks the stored versions every `intervalMs` and reloads what changed. */
  watch(intervalMs: number, onError: (error: unknown) => void): void {
    this.timer = setInterval(() => this.refresh().catch(onError), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private async reloadChanged(): Promise<void> {
    const versions = await loadCatalogueVersions(this.db);
    for (const [customer, version] of versions) {
      if (this.catalogues.get(customer)?.snapshot.version === version) continue;
      const [snapshot, changedAt] = await this.db.transaction(
        async (tx) => {
          const loaded = new CatalogueSnapshot(await loadCatalogue(tx, customer), await loadCatalogueVersion(tx, customer));
          return [loaded, await loadCatalogueChangedAt(tx, customer)] as const;
        },
        { readOnly: true },
      );
      const next = new Map(this.catalogues);
      next.set(customer, new PublishedCatalogue(snapshot, this.xml));
      this.catalogues = next;
      this.history.set(customer, { changedAt, loads: (this.history.get(customer)?.loads ?? 0) + 1 });
      this.onReload(customer, snapshot);
    }
  }
}
