/**
 * What one committed change did to a customer's catalogue, described once: written with the
 * change in its transaction, it tells servers what to publish again, makes the change's event,
 * and names the cache tags to purge (CONTRACT §14).
 */

/** The kinds of record a change names, as the events of CONTRACT §14 name them. */
export const CHANGE_KINDS = ['films', 'packages', 'sessions', 'screens', 'attributes', 'site'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

/** The kinds of record a catalogue lists: every kind but its one site. */
export type ListedKind = Exclude<ChangeKind, 'site'>;
export const LISTED_KINDS: readonly ListedKind[] = CHANGE_KINDS.filter((kind): kind is ListedKind => kind !== 'site');

/** The ids of one kind's records that a change added, changed and removed. The site's id is `site`. */
export interface KindChange<Key = string | number> {
  readonly added: readonly Key[];
  readonly changed: readonly Key[];
  readonly removed: readonly Key[];
}

/** The kinds a change touched, each with its ids; a kind it left alone is absent. */
export type CatalogueChange = { readonly [Kind in ChangeKind]?: KindChange };

/** A change as committed: the catalogue version it made, and when. */
export interface CommittedChange {
  readonly version: number;
  readonly changedAt: Date;
  readonly change: CatalogueChange;
}

export function touchesAnything(change: KindChange): boolean {
  return change.added.length + change.changed.length + change.removed.length > 0;
}

/** The kinds a change touched. */
export function changedKinds(change: CatalogueChange): ChangeKind[] {
  return CHANGE_KINDS.filter((kind) => change[kind] !== undefined);
}
