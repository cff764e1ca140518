/**
 * What a server reads to publish a catalogue again after committed changes: the keys each kind's
 * changes touched, and those records as stored now (a touched key with no record was removed).
 * Changes are folded by key, not replayed: whatever a record went through, its answers follow
 * what is stored now.
 */
import { CHANGE_KINDS, type CatalogueChange, type ChangeKind, type ListedKind } from './catalogue-change.js';
import type { Attribute, Film, FilmPackage, Screen, Session } from './model.js';

/** The keys, as text, of the records of each kind that changes touched. */
export type TouchedKeys = { readonly [Kind in ChangeKind]: ReadonlySet<string> };

export function touchedKeys(changes: readonly CatalogueChange[]): TouchedKeys {
  const touched = Object.fromEntries(CHANGE_KINDS.map((kind) => [kind, new Set<string>()])) as Record<ChangeKind, Set<string>>;
  for (const change of changes) {
    for (const kind of CHANGE_KINDS) {
      const { added = [], changed = [], removed = [] } = change[kind] ?? {};
      for (const key of [...added, ...changed, ...removed]) touched[kind].add(String(key));
    }
  }
  return touched;
}

/** The number of keys touched, all kinds together. */
export function touchedCount(touched: TouchedKeys): number {
  return CHANGE_KINDS.reduce((sum, kind) => sum + touched[kind].size, 0);
}

/**
 * Records as stored now: those touched that still exist, and the films and packages the
 * programme must know beside them (what a changed session shows).
 */
export interface ChangedRecords {
  readonly touched: TouchedKeys;
  readonly films: readonly Film[];
  readonly packages: readonly FilmPackage[];
  readonly screens: readonly Screen[];
  readonly attributes: readonly Attribute[];
  readonly sessions: readonly Session[];
}

/**
 * Reads each kind's records by their keys as text, as changes name them, as stored now, in the
 * transaction of the catalogue version they are published for.
 */
export type RecordsByKey = { readonly [Kind in ListedKind]: (keys: readonly string[]) => Promise<ChangedRecords[Kind]> };
