/**
 * Every answer of one catalogue, prebuilt in JSON and XML: each collection's list and each of
 * its records (see `PublishedCollection`), and the site; and the programme of CONTRACT §12 (see
 * `Showtimes`). Lists are joined from the bytes of the records already written; building yields
 * to the event loop now and then, so requests answered meanwhile never wait long. The web
 * sessions' list and the programme follow the clock. What the answers hold in memory is counted,
 * for the server's memory budget.
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
import { Showtimes } from '../showtimes/showtimes.js';
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

/** What a catalogue publishes on first use: each collection, and the programme (null while there is no site). */
interface Parts extends Record<CollectionName, PublishedCollection> {
  readonly showtimes: Showtimes | null;
}
export type PartName = keyof Parts;

const PARTS: { readonly [Name in PartName]: (snapshot: CatalogueSnapshot, xml: XmlWriter, held: HeldBytes) => Promise<Parts[Name]> } = {
  ...(Object.fromEntries(COLLECTION_NAMES.map((name) => [name, (snapshot, xml, held) => publish(COLLECTIONS[name] as Collection<unknown>, snapshot, xml, held)])) as {
    readonly [Name in CollectionName]: (snapshot: CatalogueSnapshot, xml: XmlWriter, held: HeldBytes) => Promise<PublishedCollection>;
  }),
  showtimes: async (snapshot, _xml, held) => Showtimes.prepare(snapshot, held) ?? null,
};

/** What a server learns of a catalogue it holds. */
export interface PublicationEvents {
  /** A part was published from the records, taking `durationMs`. */
  readonly onPart?: (name: PartName, durationMs: number) => void;
  /** What the catalogue holds grew (see `bytes`). */
  readonly onGrowth?: () => void;
}

/** Reads the catalogue's records again, as stored now: for a collection published after the others. */
export type ReadRecords = () => Promise<CatalogueSnapshot>;

/**
 * Each part (a collection, the programme) is published on its first use, so that a customer's
 * first answer waits for the one part it needs. The records are let go once the parts asked for
 * at the start are published, and a part first asked for later is published from the records
 * read again: kept, they would add to what a catalogue holds in memory, and every garbage
 * collection would go through thousands of them. Read again after an import, those records are
 * newer than the rest: each answer is still wholly from one committed catalogue, and the server
 * is then building the newer catalogue to replace this one.
 */
export class PublishedCatalogue {
  private readonly parts = new Map<PartName, unknown>();

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
   * Publishes the site, the web sessions and `parts` from `snapshot` now; every other part on
   * its first use, from the records `read` returns then.
   */
  static async publish(snapshot: CatalogueSnapshot, xml: XmlWriter, read: ReadRecords, parts: Iterable<PartName> = [], events: PublicationEvents = {}): Promise<PublishedCatalogue> {
    const held = new HeldBytes(events.onGrowth);
    const site = snapshot.site === null ? null : itemOf(SITE_SHAPE, (await writeRecords(SITE_SHAPE, [snapshot.site], new ByteSlabs(held)))[0] as WrittenRecord, xml, held);
    const webSessions = await WebSessions.publish(snapshot, xml, held);
    const published = new PublishedCatalogue(snapshot.version, snapshot.films.length, snapshot.packages.length, site, webSessions, xml, read, held, events);
    for (const name of parts) await published.publishPart(name, snapshot);
    return published;
  }

  /** The memory its answers hold, compressed forms made since publication included. */
  get bytes(): number {
    return this.held.bytes;
  }

  /** The parts published so far, or being published: what a newer version publishes before it is served. */
  get publishedParts(): PartName[] {
    return [...this.parts.keys()];
  }

  /**
   * The part's answers: at once once published, else once its records are read again and
   * published. The promise rejects when the database cannot be read; the next use tries again.
   */
  part<Name extends PartName>(name: Name): Parts[Name] | Promise<Parts[Name]> {
    // Each name holds its own part, or the promise of it, as publishPart put it there.
    return (this.parts.get(name) as Parts[Name] | Promise<Parts[Name]> | undefined) ?? this.publishPart(name, this.read());
  }

  private publishPart<Name extends PartName>(name: Name, records: CatalogueSnapshot | Promise<CatalogueSnapshot>): Promise<Parts[Name]> {
    const started = performance.now();
    const publishing = Promise.resolve(records)
      .then((snapshot) => PARTS[name](snapshot, this.xml, this.held))
      .then(
        (published) => {
          this.parts.set(name, published);
          this.events.onPart?.(name, performance.now() - started);
          return published;
        },
        (error: unknown) => {
          this.parts.delete(name);
          throw error;
        },
      );
    this.parts.set(name, publishing);
    return publishing;
  }
}
