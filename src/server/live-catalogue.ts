/**
 * The catalogues a server answers from. Each customer's snapshot is loaded in one read
 * transaction, published, and swapped in whole when the stored version moves, so every answer
 * comes wholly from one committed catalogue.
 */
import { CatalogueSnapshot } from '../catalogue/snapshot.js';
import { PublishedCatalogue } from '../formats/published-catalogue.js';
import type { XmlWriter } from '../formats/xml-writer.js';
import type { CatalogueDirectory } from '../http/catalogue-handler.js';
import { loadCatalogue, loadCatalogueVersion, loadCatalogueVersions } from '../store/catalogue-repository.js';
import type { SqlClient } from '../store/sql-client.js';

/** What readiness checks need to know about the catalogues a server answers from. */
export interface CatalogueHealth {
  /** Every stored catalogue has been loaded at least once. */
  readonly loaded: boolean;
  /** The last look at the database succeeded. */
  readonly databaseAnswering: boolean;
}

export interface LiveCatalogueEvents {
  readonly onReload?: (customer: string, snapshot: CatalogueSnapshot, durationMs: number) => void;
  /** A reload or a background step failed; the catalogue in service stays as it was. */
  readonly onError?: (error: unknown) => void;
}

export class LiveCatalogue implements CatalogueDirectory {
  private catalogues = new Map<string, PublishedCatalogue>();
  private state: CatalogueHealth = { loaded: false, databaseAnswering: false };
  private empty: PublishedCatalogue | undefined;
  private timer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> | undefined;

  constructor(
    private readonly db: SqlClient,
    private readonly xml: XmlWriter,
    private readonly events: LiveCatalogueEvents = {},
  ) {}

  health(): CatalogueHealth {
    return this.state;
  }

  /** The customer's catalogue; one never imported is empty (after the first refresh). */
  published(customer: string): PublishedCatalogue {
    const published = this.catalogues.get(customer) ?? this.empty;
    if (published === undefined) throw new Error('the catalogue has not been loaded yet');
    return published;
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
        throw error;
      },
    ).finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  /** Checks the stored versions every `intervalMs` and reloads what changed. */
  watch(intervalMs: number): void {
    this.timer = setInterval(() => this.refresh().catch((error: unknown) => this.events.onError?.(error)), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private async reloadChanged(): Promise<void> {
    this.empty ??= await PublishedCatalogue.publish(CatalogueSnapshot.empty(), this.xml);
    const versions = await loadCatalogueVersions(this.db);
    for (const [customer, version] of versions) {
      if (this.catalogues.get(customer)?.snapshot.version === version) continue;
      const started = performance.now();
      const snapshot = await this.db.transaction(
        async (tx) => new CatalogueSnapshot(await loadCatalogue(tx, customer), await loadCatalogueVersion(tx, customer)),
        { readOnly: true },
      );
      const published = await PublishedCatalogue.publish(snapshot, this.xml);
      const next = new Map(this.catalogues);
      next.set(customer, published);
      this.catalogues = next;
      this.events.onReload?.(customer, snapshot, performance.now() - started);
      // In service already; its lists are sent uncompressed until this is done.
      published.precompressLists().catch((error: unknown) => this.events.onError?.(error));
    }
  }
}
