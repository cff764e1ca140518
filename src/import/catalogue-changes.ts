/**
 * What an import does to a catalogue: each incoming record is compared with the stored one by
 * a digest of its wire form, so a whole catalogue is compared while holding one short string
 * per record.
 */
import { createHash } from 'node:crypto';
import type { FilmPackage, Film } from '../catalogue/model.js';
import { jsonRecord } from '../formats/json-writer.js';
import { FILM_SHAPE, PACKAGE_SHAPE, type WireShape } from '../formats/wire-shape.js';
import { loadPackages, readFilmPages } from '../store/catalogue-repository.js';
import type { SqlClient } from '../store/sql-client.js';

export interface ChangeCounts {
  readonly added: number;
  readonly changed: number;
  readonly unchanged: number;
  /** Only `--replace` removes records. */
  readonly removed: number;
}

export type Change = 'added' | 'changed' | 'unchanged';

function digest<T>(shape: WireShape<T>, record: T): string {
  return createHash('sha1').update(jsonRecord(shape, record)).digest('base64url');
}

/** Compares incoming records of one kind with those stored. */
class ChangeTracker<Key, T> {
  private readonly seen = new Set<Key>();
  private added = 0;
  private changed = 0;
  private unchanged = 0;

  constructor(
    private readonly shape: WireShape<T>,
    private readonly stored: ReadonlyMap<Key, string>,
  ) {}

  has(key: Key): boolean {
    return this.stored.has(key);
  }

  classify(key: Key, record: T): Change {
    this.seen.add(key);
    const before = this.stored.get(key);
    const change: Change = before === undefined ? 'added' : before === digest(this.shape, record) ? 'unchanged' : 'changed';
    this[change]++;
    return change;
  }

  counts(replace: boolean): ChangeCounts {
    const removed = replace ? [...this.stored.keys()].filter((key) => !this.seen.has(key)).length : 0;
    return { added: this.added, changed: this.changed, unchanged: this.unchanged, removed };
  }
}

export interface CatalogueChanges {
  readonly films: ChangeTracker<string, Film>;
  readonly packages: ChangeTracker<number, FilmPackage>;
}

/** Digests of the stored catalogue, read page by page. */
export async function trackChanges(db: SqlClient, customer: string): Promise<CatalogueChanges> {
  const films = new Map<string, string>();
  for await (const page of readFilmPages(db, customer)) for (const film of page) films.set(film.id, digest(FILM_SHAPE, film));
  const packages = new Map((await loadPackages(db, customer)).map((p) => [p.id, digest(PACKAGE_SHAPE, p)]));
  return { films: new ChangeTracker(FILM_SHAPE, films), packages: new ChangeTracker(PACKAGE_SHAPE, packages) };
}
