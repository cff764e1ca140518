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
    private readonly held: HeldBytes,
  ) {}

  static async publish(snapshot: CatalogueSnapshot, xml: XmlWriter): Promise<PublishedCatalogue> {
    const held = new HeldBytes();
    const collections: Partial<Record<CollectionName, PublishedCollection>> = {};
    for (const name of Object.keys(COLLECTIONS) as CollectionName[]) collections[name] = await publish(COLLECTIONS[name] as Collection<unknown>, snapshot, xml, held);
    const site = snapshot.site === null ? null : itemOf((await writeRecords(SITE_SHAPE, [snapshot.site], xml, new ByteSlabs(held)))[0] as WrittenRecord, held);
    const webSessions = await WebSessions.publish(snapshot, xml, held);
    return new PublishedCatalogue(snapshot.version, collections as Record<CollectionName, PublishedCollection>, site, webSessions, held);
  }

  /** The memory its answers hold, compressed forms made since publication included. */
  get bytes(): number {
    return this.held.bytes;
  }

  get filmCount(): number {
    return this.collections.film.items.size;
  }

  get packageCount(): number {
    return this.collections.package.items.size;
  }

  list(name: CollectionName): Representations {
    return this.collections[name].list;
  }

  /** A record by its id as text; integer ids written as .NET would (`7`, not `007`). */
  item(name: CollectionName, id: string): Representations | undefined {
    return this.collections[name].items.get(id);
  }
}
