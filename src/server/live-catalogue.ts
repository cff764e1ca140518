/**
 * The catalogues a server answers from, published on demand. A customer's answers are built the
 * first time they are asked for, each part from the records it is written from (see
 * `PublishedCatalogue`), and held while the memory budget allows: the least recently used customer is let go when another would exceed it, and built
 * again on its next request. A held catalogue whose stored version moves is published again in
 * the background and swapped in whole, so every answer comes wholly from one committed catalogue:
 * from the changes committed since the version held, which name the records to read again and
 * the answers to write again, or, when they cannot say (too many, pruned, or the site changed),
 * from all its published parts read again. So is one whose access corrections (`marquee access
 * set`) move.
 * While the database is away, the held catalogues go on being served, and looks at the database
 * go on until it answers again.
 */
import { touchedCount, touchedKeys } from '../catalogue/changed-records.js';
import { CatalogueSnapshot, NOTHING_STORED } from '../catalogue/snapshot.js';
import { kindsOf, PublishedCatalogue, type ChangesToPublish, type NextVersion, type PartName } from '../formats/published-catalogue.js';
import type { XmlWriter } from '../formats/xml-writer.js';
import type { CatalogueHealth, CatalogueStatistics, ServedCatalogues } from '../http/served-catalogues.js';
import { followCatalogueChanges, loadCatalogueMoves, loadStoredVersions, NOTHING_SEEN, type VersionsSeen } from '../store/catalogue-repository.js';
import { recordsByKey, storedCatalogue } from '../store/catalogue-reader.js';
import type { SqlClient, Subscription } from '../store/sql-client.js';

/**
 * The most changes, and records they touch, a held catalogue is brought forward by; beyond them
 * reading the whole catalogue again costs little more than reading what they touched.
 */
const MOST_CHANGES = 100;
const MOST_TOUCHED_RECORDS = 500;
/**
 * A look reads every version again at least this often, rather than only those that moved: a
 * writer of an earlier release (an import or a sync not yet upgraded) moves a version without
 * giving it its place in the order of commits. At 5,000 customers, a few milliseconds a minute.
 */
const WHOLE_LOOK_MS = 60_000;
/**
 * A look that failed is tried again after this long (or the poll interval, if shorter): with a
 * long --poll-interval and the listening connection up, nothing else would look until the next
 * commit, and the server would stay behind and not ready while the database answers.
 */
const FAILED_LOOK_RETRY_MS = 1000;

interface Held {
  readonly published: PublishedCatalogue;
  /** The version of the customer's access corrections it was published with. */
  readonly correctionVersion: number;
  /** When the import that made the version held committed. */
  readonly changedAt: Date | undefined;
}

export interface LiveCatalogueEvents {
  /**
   * A customer's catalogue was published, on its first request or because it changed while held:
   * `from` says whether from the whole catalogue or from the changes since the version held.
   */
  readonly onBuild?: (customer: string, published: PublishedCatalogue, durationMs: number, from: 'catalogue' | 'changes') => void;
  /** A customer's catalogue was let go to keep within the budget. */
  readonly onEvict?: (customer: string, bytes: number) => void;
}

export interface LiveCatalogueOptions {
  /** What the held catalogues may hold in all; the least recently used is let go beyond it. */
  readonly budgetBytes: number;
  readonly events?: LiveCatalogueEvents;
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
  /** In the order of their last use, least recent first: a use takes a customer out and puts it back. */
  private readonly held = new Map<string, Held>();
  /**
   * What the catalogues held hold, as last summed, plus each growth told since: never less than
   * their sum, since what is let go is not told, and what a catalogue no longer held grows is.
   */
  private heldBytesAtMost = 0;
  private readonly building = new Map<string, Promise<PublishedCatalogue>>();
  /** The stored version of every customer ever imported, as last looked at. */
  private versions = new Map<string, number>();
  /** The version of the access corrections of every customer ever corrected, as last looked at. */
  private correctionVersions = new Map<string, number>();
  /** How far the looks have read the versions: the next reads only those that moved since. */
  private seen: VersionsSeen = NOTHING_SEEN;
  /** When the last look that read every version began (performance.now()). */
  private wholeLookAt = -Infinity;
  /** Answered to the customers never imported: nothing to build for them. */
  private empty: PublishedCatalogue | undefined;
  private counts = { builds: 0, buildSeconds: 0, evictions: 0, failedRefreshes: 0 };
  private state: CatalogueHealth = { started: false, databaseAnswering: false };
  private timer: NodeJS.Timeout | undefined;
  private retry: NodeJS.Timeout | undefined;
  private subscription: Subscription | undefined;
  private onHealthChange: WatchOptions['onHealthChange'] = () => {};
  private running: Promise<void> | undefined;
  private queued: Promise<void> | undefined;

  constructor(
    private readonly db: SqlClient,
    private readonly xml: XmlWriter,
    private readonly options: LiveCatalogueOptions,
  ) {}

  health(): CatalogueHealth {
    return this.state;
  }

  statistics(): CatalogueStatistics {
    const held = [...this.held].map(([customer, { published, changedAt }]) => ({
      customer,
      version: published.version,
      films: published.counts.films,
      packages: published.counts.packages,
      changedAt,
      bytes: published.bytes,
    }));
    return { held, budgetBytes: this.options.budgetBytes, ...this.counts };
  }

  published(customer: string, wanted?: PartName): PublishedCatalogue | Promise<PublishedCatalogue> {
    const held = this.held.get(customer);
    if (held !== undefined) {
      this.held.delete(customer);
      this.held.set(customer, held);
      return held.published;
    }
    if (this.empty === undefined) throw new Error('the catalogues have not been looked at yet');
    if (!this.versions.has(customer)) return this.empty;
    return this.building.get(customer) ?? this.build(customer, wanted);
  }

  /**
   * Reads the stored versions and builds again every held catalogue whose version moved. Resolves
   * after a look at the database that began after the call: a call during a look queues one more
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
    const look = (): void =>
      void this.refresh().catch(() => {
        this.retry ??= setTimeout(() => {
          this.retry = undefined;
          look();
        }, Math.min(FAILED_LOOK_RETRY_MS, options.intervalMs)).unref();
      });
    this.timer = setInterval(look, options.intervalMs);
    this.timer.unref();
    this.subscription = followCatalogueChanges(options.notifications, look);
  }

  /** Stops following the database, and resolves once the looks and builds under way have ended. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    clearTimeout(this.retry);
    await this.subscription?.close();
    // The database is closed next: nothing must be left reading from it.
    await (this.queued ?? this.running)?.catch(() => {});
    await Promise.allSettled(this.building.values());
  }

  private async look(): Promise<void> {
    try {
      if (this.empty === undefined) {
        this.empty = await PublishedCatalogue.publish(CatalogueSnapshot.empty(), this.xml, NOTHING_STORED);
      }
      const started = performance.now();
      const looked = await loadStoredVersions(this.db, started - this.wholeLookAt >= WHOLE_LOOK_MS ? NOTHING_SEEN : this.seen);
      if (looked.whole) [this.versions, this.correctionVersions] = [looked.catalogues, looked.corrections];
      else {
        for (const [customer, version] of looked.catalogues) this.versions.set(customer, version);
        for (const [customer, version] of looked.corrections) this.correctionVersions.set(customer, version);
      }
      await this.rebuildChanged(looked.whole ? this.held.keys() : new Set([...looked.catalogues.keys(), ...looked.corrections.keys()]));
      // Only once what moved is published: a build that failed is tried again at the next look.
      this.seen = looked.seen;
      if (looked.whole) this.wholeLookAt = started;
    } catch (error) {
      this.counts.failedRefreshes += 1;
      this.setHealth({ ...this.state, databaseAnswering: false }, error);
      throw error;
    }
    this.setHealth({ started: true, databaseAnswering: true });
  }

  private setHealth(health: CatalogueHealth, error?: unknown): void {
    const changed = health.databaseAnswering !== this.state.databaseAnswering;
    this.state = health;
    if (changed) this.onHealthChange(health, error);
  }

  /**
   * Builds again, one after the other, those of `customers` held whose stored version moved; the
   * old one is served meanwhile. A customer not held was let go or never asked for: its next
   * request builds it.
   */
  private async rebuildChanged(customers: Iterable<string>): Promise<void> {
    // A build under way may have read the version before this look did: it is looked at once ended.
    // A look follows every commit: it waits for no turn of the event loop for each of the thousands held.
    await Promise.allSettled(this.building.values());
    for (const customer of [...customers]) {
      const held = this.held.get(customer);
      if (held === undefined) continue;
      // A correction of how attributes read changes the programme, as a new catalogue would.
      if (held.published.version === this.versions.get(customer) && held.correctionVersion === (this.correctionVersions.get(customer) ?? 0)) continue;
      await (this.building.get(customer) ?? this.build(customer));
    }
  }

  /** Builds the customer's catalogue once, however many requests wait for it, with the `wanted` part published. */
  private build(customer: string, wanted?: PartName): Promise<PublishedCatalogue> {
    const building = this.publish(customer, wanted).finally(() => this.building.delete(customer));
    this.building.set(customer, building);
    return building;
  }

  /**
   * Publishes the customer's catalogue: from the changes since the version held, when one is
   * held and they say what changed; else from the records of the parts in use read again.
   */
  private async publish(customer: string, wanted: PartName | undefined): Promise<PublishedCatalogue> {
    const started = performance.now();
    const before = this.held.get(customer);
    const changed = before === undefined ? undefined : await this.publishChanges(customer, before);
    if (before === undefined || changed === undefined) return this.publishWhole(customer, wanted, started);
    // Nothing moved since: the look that asked read the version before a first build that read after it.
    if (changed === before) return before.published;
    this.counts.builds += 1;
    this.counts.buildSeconds += (performance.now() - started) / 1000;
    this.hold(customer, changed);
    this.options.events?.onBuild?.(customer, changed.published, performance.now() - started, 'changes');
    return changed.published;
  }

  /**
   * The catalogue `held` brought to the stored version: the records its changes touched read in one read
   * transaction with the version, then published; `held` itself when neither the version nor the
   * access corrections moved. Undefined when the changes cannot say what changed: more of them
   * than `MOST_CHANGES` or some pruned, more than `MOST_TOUCHED_RECORDS` records touched, the site
   * changed (its zone places every session), or the access corrections moved (they read every
   * attribute anew).
   */
  private async publishChanges(customer: string, held: Held): Promise<Held | undefined> {
    const read = await this.db.transaction(
      async (tx): Promise<{ next: NextVersion; changes: ChangesToPublish } | 'unmoved' | undefined> => {
        const before = held.published;
        const { version, changedAt, correctionVersion, counts, changes } = await loadCatalogueMoves(tx, customer, before.version, MOST_CHANGES);
        if (correctionVersion !== held.correctionVersion) return undefined;
        if (version === before.version) return 'unmoved';
        if (changes.length === 0 || changes.length !== version - before.version) return undefined;
        const touched = touchedKeys(changes.map(({ change }) => change));
        if (touched.site.size > 0 || touchedCount(touched) > MOST_TOUCHED_RECORDS) return undefined;
        return { next: { version, changedAt, counts }, changes: await before.readChanges(touched, recordsByKey(tx, customer)) };
      },
      { readOnly: true },
    );
    if (read === 'unmoved') return held;
    return read === undefined ? undefined : { published: held.published.changed(read.next, read.changes), changedAt: read.next.changedAt, correctionVersion: held.correctionVersion };
  }

  /** Reads what the parts in use are written from and publishes them; each part counts in the build time as it is published. */
  private async publishWhole(customer: string, wanted: PartName | undefined, started: number): Promise<PublishedCatalogue> {
    // A catalogue built again publishes at once what the one it replaces had published: those are
    // the parts in use. The others are published on their first request, and their records read then.
    const inUse = new Set(this.held.get(customer)?.published.publishedParts);
    if (wanted !== undefined) inUse.add(wanted);
    const stored = storedCatalogue(this.db, customer);
    const snapshot = await stored.snapshot(kindsOf(inUse));
    this.counts.builds += 1;
    this.counts.buildSeconds += (performance.now() - started) / 1000;
    const published = await PublishedCatalogue.publish(snapshot, this.xml, stored, inUse, {
      onPart: (_name, durationMs) => (this.counts.buildSeconds += durationMs / 1000),
      onGrowth: (bytes) => this.grown(customer, bytes),
    });
    this.hold(customer, { published, changedAt: snapshot.changedAt, correctionVersion: snapshot.correctionVersion });
    this.options.events?.onBuild?.(customer, published, performance.now() - started, 'catalogue');
    return published;
  }

  /** Holds the customer's catalogue as the most recently used, within the budget. */
  private hold(customer: string, held: Held): void {
    this.held.delete(customer);
    this.held.set(customer, held);
    this.keepWithinBudget(customer);
  }

  /**
   * Lets the least recently used catalogues go, but the customer's, while all held exceed the
   * budget: on each build, and as a held catalogue grows. One catalogue larger than the budget
   * is held alone: a customer is always answered. A catalogue let go may still grow (a part it
   * publishes after answering a record read alone): it holds no memory of the budget's, and lets
   * nothing go.
   */
  private keepWithinBudget(customer: string): void {
    if (!this.held.has(customer)) return;
    let bytes = 0;
    for (const { published } of this.held.values()) bytes += published.bytes;
    for (const [other, { published }] of this.held) {
      if (bytes <= this.options.budgetBytes) break;
      if (other === customer) continue;
      this.held.delete(other);
      bytes -= published.bytes;
      this.counts.evictions += 1;
      this.options.events?.onEvict?.(other, published.bytes);
    }
    this.heldBytesAtMost = bytes;
  }

  /**
   * A catalogue of the customer's grew by `bytes`: a body compressed, a part published. Those
   * held are summed again only when they may pass the budget: each request may grow one, and
   * summing thousands each time was a tenth of what a server holding them spent.
   */
  private grown(customer: string, bytes: number): void {
    this.heldBytesAtMost += bytes;
    if (this.heldBytesAtMost > this.options.budgetBytes) this.keepWithinBudget(customer);
  }
}
