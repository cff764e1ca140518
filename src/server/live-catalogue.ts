/**
 * The catalogues a server answers from. Each customer's snapshot is loaded in one read
 * transaction, published, and swapped in whole when the stored version moves, so every answer
 * comes wholly from one committed catalogue. While the database is away, the last snapshots
 * go on being served, and looks at the database go on until it answers again.
 */
import { CatalogueSnapshot } from '../catalogue/snapshot.js';
import { PublishedCatalogue } from '../formats/published-catalogue.js';
import type { XmlWriter } from '../formats/xml-writer.js';
import type { CatalogueHealth, CatalogueStatistics, ServedCatalogues } from '../http/served-catalogues.js';
import { followCatalogueChanges, loadCatalogue, loadCatalogueChangedAt, loadCatalogueVersion, loadCatalogueVersions } from '../store/catalogue-repository.js';
import type { SqlClient, Subscription } from '../store/sql-client.js';

interface LoadHistory {
  /** When the import that made the version served committed. */
  readonly changedAt: Date | undefined;
  readonly loads: number;
}

/** The longest delay setTimeout takes; a cut-off further ahead is looked at again then. */
const LONGEST_TIMEOUT_MS = 2 ** 31 - 1;

export interface LiveCatalogueEvents {
  readonly onReload?: (customer: string, snapshot: CatalogueSnapshot, durationMs: number) => void;
  /** A background step failed (compressing lists); the catalogue in service stays as it was. */
  readonly onError?: (error: unknown) => void;
}

export interface WatchOptions {
  /** How often the stored versions are read, whether or not a notification came. */
  readonly intervalMs: number;
  /**
   * The database whose commit notifications prompt a look at once: the primary, also when
   * catalogues are read from a replica.
   */
  readonly notifications: SqlClient;
  /** Called when the database stops answering (once, with the error) and when it answers again. */
  readonly onHealthChange: (health: CatalogueHealth, error?: unknown) => void;
}

export class LiveCatalogue implements ServedCatalogues {
  private catalogues = new Map<string, PublishedCatalogue>();
  private readonly history = new Map<string, LoadHistory>();
  private failedRefreshes = 0;
  private state: CatalogueHealth = { loaded: false, databaseAnswering: false };
  private empty: PublishedCatalogue | undefined;
  private timer: NodeJS.Timeout | undefined;
  private subscription: Subscription | undefined;
  private onHealthChange: WatchOptions['onHealthChange'] = () => {};
  private running: Promise<void> | undefined;
  private queued: Promise<void> | undefined;
  /** Per customer, the timer of the next sales cut-off. */
  private readonly cutOffTimers = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly db: SqlClient,
    private readonly xml: XmlWriter,
    private readonly events: LiveCatalogueEvents = {},
  ) {}

  health(): CatalogueHealth {
    return this.state;
  }

  statistics(): CatalogueStatistics {
    const catalogues = [...this.catalogues].map(([customer, published]) => ({
      customer,
      version: published.version,
      films: published.filmCount,
      packages: published.packageCount,
      changedAt: this.history.get(customer)?.changedAt,
      loads: this.history.get(customer)?.loads ?? 0,
    }));
    return { catalogues, failedRefreshes: this.failedRefreshes };
  }

  published(customer: string): PublishedCatalogue {
    const published = this.catalogues.get(customer) ?? this.empty;
    if (published === undefined) throw new Error('the catalogue has not been loaded yet');
    return published;
  }

  /**
   * Loads every customer whose stored version differs from the one served. Resolves after a
   * look at the database that began after the call: a call during a look queues one more
   * (only one), since the look under way may have read the versions before the change.
   */
  refresh(): Promise<void> {
    if (this.running === undefined) {
      this.running = this.look().finally(() => (this.running = undefined));
      return this.running;
    }
    this.queued ??= this.running
      .catch(() => {})
      .then(() => {
        this.queued = undefined;
        return this.refresh();
      });
    return this.queued;
  }

  /** Follows the database: a look every `intervalMs`, and one at once on each notification. */
  watch(options: WatchOptions): void {
    this.onHealthChange = options.onHealthChange;
    // Failures are reported through onHealthChange, once per outage rather than once per look.
    const look = (): void => void this.refresh().catch(() => {});
    this.timer = setInterval(look, options.intervalMs);
    this.timer.unref();
    this.subscription = followCatalogueChanges(options.notifications, look);
  }

  /** Stops following the database, and resolves once a look under way has ended. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    for (const timer of this.cutOffTimers.values()) clearTimeout(timer);
    this.cutOffTimers.clear();
    await this.subscription?.close();
    // The database is closed next: a reload must not be left reading from it.
    await (this.queued ?? this.running)?.catch(() => {});
  }

  private async look(): Promise<void> {
    try {
      await this.reloadChanged();
    } catch (error) {
      this.failedRefreshes += 1;
      this.setHealth({ ...this.state, databaseAnswering: false }, error);
      throw error;
    }
    this.setHealth({ loaded: true, databaseAnswering: true });
  }

  private setHealth(health: CatalogueHealth, error?: unknown): void {
    const changed = health.databaseAnswering !== this.state.databaseAnswering;
    this.state = health;
    if (changed) this.onHealthChange(health, error);
  }

  private async reloadChanged(): Promise<void> {
    this.empty ??= await PublishedCatalogue.publish(CatalogueSnapshot.empty(), this.xml);
    const versions = await loadCatalogueVersions(this.db);
    for (const [customer, version] of versions) {
      if (this.catalogues.get(customer)?.version === version) continue;
      const started = performance.now();
      const [snapshot, changedAt] = await this.db.transaction(
        async (tx) => [new CatalogueSnapshot(await loadCatalogue(tx, customer), await loadCatalogueVersion(tx, customer)), await loadCatalogueChangedAt(tx, customer)] as const,
        { readOnly: true },
      );
      const published = await PublishedCatalogue.publish(snapshot, this.xml);
      const next = new Map(this.catalogues);
      next.set(customer, published);
      this.catalogues = next;
      this.history.set(customer, { changedAt, loads: (this.history.get(customer)?.loads ?? 0) + 1 });
      this.events.onReload?.(customer, snapshot, performance.now() - started);
      // In service already; its lists are sent uncompressed until this is done.
      published.precompressLists().catch((error: unknown) => this.events.onError?.(error));
      this.followCutOffs(customer, published);
    }
  }

  /**
   * Republishes the customer's web-session list as its next sales cut-off passes, and
   * compresses it then, off the request path. A request that comes between the cut-off and the
   * timer gets the new list all the same: the list follows the clock when it is asked for.
   */
  private followCutOffs(customer: string, published: PublishedCatalogue): void {
    clearTimeout(this.cutOffTimers.get(customer));
    this.cutOffTimers.delete(customer);
    const next = published.webSessions.nextChange(Date.now());
    if (next === Infinity) return;
    const timer = setTimeout(() => {
      this.cutOffTimers.delete(customer);
      // A newer catalogue follows its own cut-offs.
      if (this.catalogues.get(customer) !== published) return;
      published.webSessions.precompress(Date.now()).catch((error: unknown) => this.events.onError?.(error));
      this.followCutOffs(customer, published);
    }, Math.min(Math.max(0, next - Date.now()), LONGEST_TIMEOUT_MS));
    // The cut-offs never keep a process alive on their own.
    timer.unref();
    this.cutOffTimers.set(customer, timer);
  }
}
