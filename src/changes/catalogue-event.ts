/**
 * The event of one committed change (CONTRACT §14), as webhooks send it and the change feed lists
 * it: made from the change as it was written in its transaction, so every retry and every reader
 * gets the same event, under the same id.
 */
import { CHANGE_KINDS, type CommittedChange } from '../catalogue/catalogue-change.js';
import type { CacheTags } from './cache-tags.js';

export const EVENT_TYPE = 'catalogue.changed';

/** Ids a list of an event names at most; a longer one is cut, and its kind marked truncated. */
export const MOST_IDS = 1000;

export interface EventKindChange {
  readonly added: readonly (string | number)[];
  readonly changed: readonly (string | number)[];
  readonly removed: readonly (string | number)[];
  readonly truncated?: true;
}

export interface CatalogueEvent {
  readonly type: typeof EVENT_TYPE;
  /** When the change committed, RFC 3339. */
  readonly timestamp: string;
  readonly data: {
    readonly customer: string;
    readonly version: number;
    readonly changes: Readonly<Record<string, EventKindChange>>;
    /** The cache tags of the answers the change altered. */
    readonly tags: readonly string[];
  };
}

/** The event's id, the same for every try of every endpoint: the `webhook-id` a receiver de-duplicates by. */
export function eventId(customer: string, version: number): string {
  return `msg_${customer}_${version}`;
}

export function catalogueEvent(customer: string, committed: CommittedChange, tags: CacheTags): CatalogueEvent {
  const changes: Record<string, EventKindChange> = {};
  for (const kind of CHANGE_KINDS) {
    const change = committed.change[kind];
    if (change === undefined) continue;
    const lists = { added: change.added, changed: change.changed, removed: change.removed };
    const truncated = Object.values(lists).some((ids) => ids.length > MOST_IDS);
    changes[kind] = {
      added: lists.added.slice(0, MOST_IDS),
      changed: lists.changed.slice(0, MOST_IDS),
      removed: lists.removed.slice(0, MOST_IDS),
      ...(truncated && { truncated: true as const }),
    };
  }
  return {
    type: EVENT_TYPE,
    timestamp: committed.changedAt.toISOString(),
    data: { customer, version: committed.version, changes, tags: tags.changeTags(customer, committed.change) },
  };
}
