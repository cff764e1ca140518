/**
 * Every answer of one catalogue snapshot, prebuilt in JSON and XML: each collection's list and
 * each of its records, and the site. Lists are joined from the bytes of the records already
 * written; building yields to the event loop now and then, so requests answered meanwhile never
 * wait long. The web sessions' list alone follows the clock (see `WebSessions`). What the
 * answers hold in memory is counted, for the server's memory budget.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { CatalogueSnapshot } from '../catalogue/snapshot.js';
import { ByteSlabs } from './byte-slabs.js';
import { HeldBytes } from './held-bytes.js';
import type { Representations } from './representation.js';
import { WebSessions } from './web-sessions.js';
import {
  ATTRIBUTE_SHAPE,
  FILM_SHAPE,
  FILM_V1_SHAPE,
  PACKAGE_SHAPE,
  SCREEN_SHAPE,
  SESSION_SHAPE,
  SITE_SHAPE,
  type WireShape,
} from './wire-shape.js';
import type { XmlWriter } from './xml-writer.js';
import { itemOf, listOf, writeRecords, type WrittenRecord } from './written-records.js';

export interface PublishedCollection {
  readonly list: Representations;
  /** By the record's id, as text: `HO00000101`, `7`. */
  readonly items: ReadonlyMap<string, Representations>;
}

interface Collection<T> {
  readonly shape: WireShape<T>;
  readonly records: (snapshot: CatalogueSnapshot) => readonly T[];
  readonly key: (record: T) => string | number;
}

function collection<T>(shape: WireShape<T>, records: (snapshot: CatalogueSnapshot) => readonly T[], key: (record: T) => string | number): Collection<T> {
  return { shape, records, key };
}

/** What a catalogue answers as a list and by id: each collection's shape, records in order, and key. */
const COLLECTIONS = {
  film: collection(FILM_SHAPE, (snapshot) => snapshot.films, (film) => film.id),
  filmV1: collection(FILM_V1_SHAPE, (snapshot) => snapshot.films, (film) => film.id),
  package: collection(PACKAGE_SHAPE, (snapshot) => snapshot.packages, (filmPackage) => filmPackage.id),
  screen: collection(SCREEN_SHAPE, (snapshot) => snapshot.screens, (screen) => screen.id),
  attribute: collection(ATTRIBUTE_SHAPE, (snapshot) => snapshot.attributes, (attribute) => attribute.id),
  session: collection(SESSION_SHAPE, (snapshot) => snapshot.sessions, (session) => session.id),
};

export type CollectionName = keyof typeof COLLECTIONS;
export const COLLECTION_NAMES = Object.keys(COLLECTIONS) as CollectionName[];

/**
 * What a record's answers hold beside their bytes: the objects, the map entry and the ETags once
 * hashed, about 500 bytes a record as measured on Node.js 24 (`bench/memory.ts`).
 */
const BYTES_PER_RECORD = 500;

async function publish<T>({ shape, records, key }: Collection<T>, snapshot: CatalogueSnapshot, xml: XmlWriter, held: HeldBytes): Promise<PublishedCollection> {
  const all = records(snapshot);
  const written = await writeRecords(shape, all, xml, new ByteSlabs(held));
  const items = new Map<string, Representations>();
  written.forEach((record, index) => items.set(String(key(all[index] as T)), itemOf(record, held)));
  held.add(all.length * BYTES_PER_RECORD);
  await nextTurn();
  return { list: listOf(shape, written, xml, held), items };
}

/** A record of a snapshot kept in memory until its collections are published, as measured on Node.js 24. */
const SNAPSHOT_BYTES_PER_RECORD = 2048;

/** What a server learns of a catalogue it holds. */
export interface PublicationEvents {
  /** A collection was published from the records, taking `durationMs`. */
  readonly onCollection?: (name: CollectionName, durationMs: number) => void;
  /** What the catalogue holds grew (see `bytes`). */
  readonly onGrowth?: () => void;
}

/**
 * Each collection is published on its first use, so that a customer's first answer waits for
 * the one collection it needs: the records are kept until every collection is published, then
 * let go, since keeping them would add to what a catalogue holds in memory, and every garbage
 * collection would go through them.
 */
export class PublishedCatalogue {
  private readonly collections = new Map<CollectionName, PublishedCollection | Promise<PublishedCollection>>();
  /** The records, until every collection has been published from them. */
  private snapshot: CatalogueSnapshot | undefined;
  /** The stored catalogue version the answers were written from. */
  readonly version: number;
  readonly filmCount: number;
  readonly packageCount: number;

  private constructor(
    snapshot: CatalogueSnapshot,
    private readonly xml: XmlWriter,
    /** Null until a site is imported. */
    readonly site: Representations | null,
    readonly webSessions: WebSessions,
    private readonly held: HeldBytes,
    private readonly events: PublicationEvents,
  ) {
    this.snapshot = snapshot;
    this.version = snapshot.version;
    this.filmCount = snapshot.films.length;
    this.packageCount = snapshot.packages.length;
    held.add(recordCount(snapshot) * SNAPSHOT_BYTES_PER_RECORD);
  }

  /** Publishes the site, the web sessions and `collections` now; every other collection on its first use. */
  static async publish(snapshot: CatalogueSnapshot, xml: XmlWriter, collections: Iterable<CollectionName> = [], events: PublicationEvents = {}): Promise<PublishedCatalogue> {
    const held = new HeldBytes(events.onGrowth);
    const site = snapshot.site === null ? null : itemOf((await writeRecords(SITE_SHAPE, [snapshot.site], xml, new ByteSlabs(held)))[0] as WrittenRecord, held);
    const webSessions = await WebSessions.publish(snapshot, xml, held);
    const published = new PublishedCatalogue(snapshot, xml, site, webSessions, held, events);
    for (const name of collections) await published.collection(name);
    return published;
  }

  /** The memory its answers hold, compressed forms made since publication included. */
  get bytes(): number {
    return this.held.bytes;
  }

  /** The collections published so far, or being published: what a newer version publishes before it is served. */
  get publishedCollections(): CollectionName[] {
    return [...this.collections.keys()];
  }

  /** The collection's answers: at once once published, else once published from the records. */
  collection(name: CollectionName): PublishedCollection | Promise<PublishedCollection> {
    const found = this.collections.get(name);
    if (found !== undefined) return found;
    const snapshot = this.snapshot as CatalogueSnapshot;
    const started = performance.now();
    const publishing = publish(COLLECTIONS[name] as Collection<unknown>, snapshot, this.xml, this.held).then((published) => {
      this.collections.set(name, published);
      this.events.onCollection?.(name, performance.now() - started);
      if (this.collections.size === COLLECTION_NAMES.length && [...this.collections.values()].every((value) => !(value instanceof Promise))) {
        this.snapshot = undefined;
        this.held.add(-recordCount(snapshot) * SNAPSHOT_BYTES_PER_RECORD);
      }
      return published;
    });
    this.collections.set(name, publishing);
    return publishing;
  }
}

function recordCount(snapshot: CatalogueSnapshot): number {
  return snapshot.films.length + snapshot.packages.length + snapshot.screens.length + snapshot.attributes.length + snapshot.sessions.length;
}
