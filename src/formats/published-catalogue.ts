/**
 * Every answer of one catalogue, prebuilt in JSON and XML: each collection's list and each of
 * its records (see `PublishedCollection`), and the site. Lists are joined from the bytes of the
 * records already written; building yields to the event loop now and then, so requests answered
 * meanwhile never wait long. The web sessions' list alone follows the clock (see `WebSessions`).
 * What the answers hold in memory is counted, for the server's memory budget.
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
import { PublishedCollection } from './published-collection.js';
import { itemOf, writeRecords, type WrittenRecord } from './written-records.js';

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

async function publish<T>({ shape, records, key }: Collection<T>, snapshot: CatalogueSnapshot, xml: XmlWriter, held: HeldBytes): Promise<PublishedCollection> {
  const all = records(snapshot);
  // The slabs are let go once the list is joined: the list holds the records' bytes from then on.
  const written = await writeRecords(shape, all, new ByteSlabs());
  await nextTurn();
  return PublishedCollection.of(shape, all.map((record) => String(key(record))), written, xml, held);
}

/** What a server learns of a catalogue it holds. */
export interface PublicationEvents {
  /** A collection was published from the records, taking `durationMs`. */
  readonly onCollection?: (name: CollectionName, durationMs: number) => void;
  /** What the catalogue holds grew (see `bytes`). */
  readonly onGrowth?: () => void;
}

/** Reads the catalogue's records again, as stored now: for a collection published after the others. */
export type ReadRecords = () => Promise<CatalogueSnapshot>;

/**
 * Each collection is published on its first use, so that a customer's first answer waits for
 * the one collection it needs. The records are let go once the collections asked for at the
 * start are published, and a collection first asked for later is published from the records
 * read again: kept, they would add to what a catalogue holds in memory, and every garbage
 * collection would go through thousands of them. Read again after an import, those records are
 * newer than the rest: each answer is still wholly from one committed catalogue, and the server
 * is then building the newer catalogue to replace this one.
 */
export class PublishedCatalogue {
  private readonly collections = new Map<CollectionName, PublishedCollection | Promise<PublishedCollection>>();

  private constructor(
    /** The stored catalogue version the answers were written from. */
    readonly version: number,
    readonly filmCount: number,
    readonly packageCount: number,
    /** Null until a site is imported. */
    readonly site: Representations | null,
    readonly webSessions: WebSessions,
    private readonly xml: XmlWriter,
    private readonly read: ReadRecords,
    private readonly held: HeldBytes,
    private readonly events: PublicationEvents,
  ) {}

  /**
   * Publishes the site, the web sessions and `collections` from `snapshot` now; every other
   * collection on its first use, from the records `read` returns then.
   */
  static async publish(
    snapshot: CatalogueSnapshot,
    xml: XmlWriter,
    read: ReadRecords,
    collections: Iterable<CollectionName> = [],
    events: PublicationEvents = {},
  ): Promise<PublishedCatalogue> {
    const held = new HeldBytes(events.onGrowth);
    const site = snapshot.site === null ? null : itemOf(SITE_SHAPE, (await writeRecords(SITE_SHAPE, [snapshot.site], new ByteSlabs(held)))[0] as WrittenRecord, xml, held);
    const webSessions = await WebSessions.publish(snapshot, xml, held);
    const published = new PublishedCatalogue(snapshot.version, snapshot.films.length, snapshot.packages.length, site, webSessions, xml, read, held, events);
    for (const name of collections) await published.publishCollection(name, snapshot);
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

  /**
   * The collection's answers: at once once published, else once its records are read again and
   * published. The promise rejects when the database cannot be read; the next use tries again.
   */
  collection(name: CollectionName): PublishedCollection | Promise<PublishedCollection> {
    return this.collections.get(name) ?? this.publishCollection(name, this.read());
  }

  private publishCollection(name: CollectionName, records: CatalogueSnapshot | Promise<CatalogueSnapshot>): Promise<PublishedCollection> {
    const started = performance.now();
    const publishing = Promise.resolve(records)
      .then((snapshot) => publish(COLLECTIONS[name] as Collection<unknown>, snapshot, this.xml, this.held))
      .then(
        (published) => {
          this.collections.set(name, published);
          this.events.onCollection?.(name, performance.now() - started);
          return published;
        },
        (error: unknown) => {
          this.collections.delete(name);
          throw error;
        },
      );
    this.collections.set(name, publishing);
    return publishing;
  }
}
