/**
 * The change feed (`GET /changes`, CONTRACT §14): a customer's events after a version, oldest
 * first, for a reader that polls rather than receives webhooks. Changes are kept for
 * --change-retention; a reader that asks from before what is kept has missed some, and is told so.
 */
import { loadCatalogueChanges, loadCatalogueVersion } from '../store/catalogue-repository.js';
import type { SqlClient } from '../store/sql-client.js';
import { oldestKeptChange } from '../store/webhook-repository.js';
import type { CacheTags } from './cache-tags.js';
import { catalogueEvent, type CatalogueEvent } from './catalogue-event.js';

export const DEFAULT_FEED_LIMIT = 100;
export const MOST_FEED_LIMIT = 1000;

export interface FeedPage {
  readonly events: readonly CatalogueEvent[];
  /** The version to ask from next: the last event's, or `since` when there was none. */
  readonly next: number;
}

/** The changes after `since` are no longer all kept; the catalogue is at `version` now. */
export interface FeedGone {
  readonly gone: true;
  readonly version: number;
}

export interface ChangeFeed {
  page(customer: string, since: number, limit: number): Promise<FeedPage | FeedGone>;
}

export class StoredChangeFeed implements ChangeFeed {
  constructor(
    private readonly db: SqlClient,
    private readonly tags: CacheTags,
  ) {}

  async page(customer: string, since: number, limit: number): Promise<FeedPage | FeedGone> {
    const changes = await loadCatalogueChanges(this.db, customer, since, limit);
    const [first] = changes;
    // The next change after `since` is kept exactly when the first one found follows it.
    if (first === undefined || first.version !== since + 1) {
      const version = await loadCatalogueVersion(this.db, customer);
      const oldest = (await oldestKeptChange(this.db, customer)) ?? version + 1;
      if (since < Math.min(oldest - 1, version)) return { gone: true, version };
    }
    return { events: changes.map((change) => catalogueEvent(customer, change, this.tags)), next: changes.at(-1)?.version ?? since };
  }
}
