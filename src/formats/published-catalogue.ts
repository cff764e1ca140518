/**
 * Every answer of one catalogue snapshot, prebuilt in JSON and XML: each collection's list and
 * each of its records, and the site. Lists are joined from the bytes of the records already
 * written; building yields to the event loop now and then, so requests answered from the
 * previous snapshot never wait long while a new one is built. The web sessions' list alone
 * follows the clock (see `WebSessions`).
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { CatalogueSnapshot } from '../catalogue/snapshot.js';
import { ByteSlabs } from './byte-slabs.js';
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

async function publish<T>({ shape, records, key }: Collection<T>, snapshot: CatalogueSnapshot, xml: XmlWriter): Promise<PublishedCollection> {
  const all = records(snapshot);
  const written = await writeRecords(shape, all, xml, new ByteSlabs());
  const items = new Map<string, Representations>();
  written.forEach((record, index) => items.set(String(key(all[index] as T)), itemOf(record)));
  await nextTurn();
  return { list: listOf(shape, written, xml), items };
}

/**
 * Keeps the answers only, not the records they were written from: those would double what a
 * catalogue holds in memory, and every garbage collection would go through them.
 */
export class PublishedCatalogue {
  private constructor(
    /** The stored catalogue version the answers were written from. */
    readonly version: number,
    private readonly collections: Readonly<Record<CollectionName, PublishedCollection>>,
    /** Null until a site is imported. */
    readonly site: Representations | null,
    readonly webSessions: WebSessions,
  ) {}

  static async publish(snapshot: CatalogueSnapshot, xml: XmlWriter): Promise<PublishedCatalogue> {
    const collections: Partial<Record<CollectionName, PublishedCollection>> = {};
    for (const name of Object.keys(COLLECTIONS) as CollectionName[]) collections[name] = await publish(COLLECTIONS[name] as Collection<unknown>, snapshot, xml);
    const site = snapshot.site === null ? null : itemOf((await writeRecords(SITE_SHAPE, [snapshot.site], xml, new ByteSlabs()))[0] as WrittenRecord);
    const webSessions = await WebSessions.publish(snapshot, xml);
    return new PublishedCatalogue(snapshot.version, collections as Record<CollectionName, PublishedCollection>, site, webSessions);
  }

  get filmCount(): number {
    return this.collections.film.items.size;
  }

  get packageCount(): number {
    return this.collections.package.items.size;
  }

  /**
   * Compresses the lists, one at a time in the thread pool. Run after the catalogue is in
   * service: until a list's compressed form is ready it is sent uncompressed, and compressing
   * one body at a time leaves the event loop its share of a busy core.
   */
  async precompressLists(): Promise<void> {
    for (const { list } of Object.values(this.collections)) {
      await list.json.precompress();
      await list.xml.precompress();
    }
    await this.webSessions.precompress(Date.now());
  }

  list(name: CollectionName): Representations {
    return this.collections[name].list;
  }

  /** A record by its id as text; integer ids written as .NET would (`7`, not `007`). */
  item(name: CollectionName, id: string): Representations | undefined {
    return this.collections[name].items.get(id);
  }
}
