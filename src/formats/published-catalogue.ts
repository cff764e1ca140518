/**
 * Every answer of one catalogue, prebuilt in JSON and XML: each collection's list and each of
 * its records (see `PublishedCollection`), and the site; and the programme of CONTRACT §12 (see
 * `Showtimes`). Lists are joined from the bytes of the records already written; building yields
 * to the event loop now and then, so requests answered meanwhile never wait long. The web
 * sessions' list and the programme follow the clock. What the answers hold in memory is counted,
 * for the server's memory budget.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ListedKind } from '../catalogue/catalogue-change.js';
import type { RecordCounts } from '../catalogue/model.js';
import type { ChangedRecords, RecordsByKey, TouchedKeys } from '../catalogue/changed-records.js';
import type { CatalogueReader, CatalogueSnapshot } from '../catalogue/snapshot.js';
import { ByteSlabs } from './byte-slabs.js';
import { HeldBytes } from './held-bytes.js';
import type { Representations } from './representation.js';
import { sessionOrder, WebSessions } from './web-sessions.js';
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
import { PublishedCollection, type ListOrder } from './published-collection.js';
import { Showtimes } from '../showtimes/showtimes.js';
import { itemOf, writeRecord, writeRecords, type WrittenRecord } from './written-records.js';

interface Collection<T> {
  readonly shape: WireShape<T>;
  readonly kind: ListedKind;
  readonly records: (snapshot: CatalogueSnapshot) => readonly T[];
  /** Where a record stands in the list, as the snapshot orders its records. */
  readonly order: (record: T) => ListOrder;
}

function collection<T>(shape: WireShape<T>, kind: ListedKind, records: (snapshot: CatalogueSnapshot) => readonly T[], order: (record: T) => ListOrder): Collection<T> {
  return { shape, kind, records, order };
}

/** Ordered by key alone. */
const byKey = (key: string | number): ListOrder => ({ rank: 0, key });

/** What a catalogue answers as a list and by id: each collection's shape, kind, records in order, and order. */
const COLLECTIONS = {
  film: collection(FILM_SHAPE, 'films', (snapshot) => snapshot.films, (film) => ({ rank: film.displaySequence, key: film.id })),
  filmV1: collection(FILM_V1_SHAPE, 'films', (snapshot) => snapshot.films, (film) => ({ rank: film.displaySequence, key: film.id })),
  package: collection(PACKAGE_SHAPE, 'packages', (snapshot) => snapshot.packages, (filmPackage) => byKey(filmPackage.id)),
  screen: collection(SCREEN_SHAPE, 'screens', (snapshot) => snapshot.screens, (screen) => byKey(screen.id)),
  attribute: collection(ATTRIBUTE_SHAPE, 'attributes', (snapshot) => snapshot.attributes, (attribute) => byKey(attribute.id)),
  session: collection(SESSION_SHAPE, 'sessions', (snapshot) => snapshot.sessions, sessionOrder),
};

export type CollectionName = keyof typeof COLLECTIONS;
export const COLLECTION_NAMES = Object.keys(COLLECTIONS) as CollectionName[];

async function publish<T>({ shape, records, order }: Collection<T>, snapshot: CatalogueSnapshot, xml: XmlWriter, held: HeldBytes): Promise<PublishedCollection> {
  const all = records(snapshot);
  // The slabs are let go once the list is joined in both formats: the list holds the records' bytes from then on.
  const written = await writeRecords(shape, all, new ByteSlabs());
  await nextTurn();
  return PublishedCollection.of(shape, all.map((record, index) => ({ ...order(record), written: written[index] as WrittenRecord })), xml, held);
}

/** The collection once `records` changed: the touched records of its kind written anew, and joined with the others as they were; counted in `whole`. */
function changedCollection<T>({ shape, kind, order }: Collection<T>, published: PublishedCollection, records: ChangedRecords, whole: HeldBytes): PublishedCollection {
  const touched = records.touched[kind];
  // The records of a kind are of the collection's type; some read for the programme's sake were not touched.
  const current = (records[kind] as readonly T[]).filter((record) => touched.has(String(order(record).key)));
  return published.changed(touched, current.map((record) => ({ ...order(record), written: writeRecord(shape, record) })), whole);
}

/** What a catalogue publishes on first use: each collection, the web sessions, and the programme (null while there is no site). */
interface Parts extends Record<CollectionName, PublishedCollection> {
  readonly webSessions: WebSessions;
  readonly showtimes: Showtimes | null;
}
export type PartName = keyof Parts;

const PARTS: { readonly [Name in PartName]: (snapshot: CatalogueSnapshot, xml: XmlWriter, held: HeldBytes) => Promise<Parts[Name]> } = {
  ...(Object.fromEntries(COLLECTION_NAMES.map((name) => [name, (snapshot, xml, held) => publish(COLLECTIONS[name] as Collection<unknown>, snapshot, xml, held)])) as {
    readonly [Name in CollectionName]: (snapshot: CatalogueSnapshot, xml: XmlWriter, held: HeldBytes) => Promise<PublishedCollection>;
  }),
  webSessions: (snapshot, xml, held) => WebSessions.publish(snapshot, xml, held),
  showtimes: async (snapshot, _xml, held) => Showtimes.prepare(snapshot, held) ?? null,
};

/** The kinds each part is written from, beside the site: what is read to publish it, and what a change must read again for it. */
const PART_KINDS: { readonly [Name in PartName]: readonly ListedKind[] } = {
  ...(Object.fromEntries(COLLECTION_NAMES.map((name) => [name, [COLLECTIONS[name].kind]])) as Record<CollectionName, ListedKind[]>),
  webSessions: ['sessions'],
  showtimes: ['films', 'packages', 'screens', 'attributes', 'sessions'],
};

/** The kinds of record the parts are written from. */
export function kindsOf(parts: Iterable<PartName>): Set<ListedKind> {
  return new Set([...parts].flatMap((name) => PART_KINDS[name]));
}

/** What a server learns of a catalogue it holds. */
export interface PublicationEvents {
  /** A part was published from the records, taking `durationMs`. */
  readonly onPart?: (name: PartName, durationMs: number) => void;
  /** What the catalogue holds grew by `bytes` (see `bytes`). */
  readonly onGrowth?: (bytes: number) => void;
}

/**
 * What changes touched, read by `readChanges` for the parts published as it read them. A part
 * published after the read was made from records the read did not bring: `changed` leaves it out,
 * to be published again on its first use.
 */
export interface ChangesToPublish {
  readonly records: ChangedRecords;
  readonly parts: readonly [PartName, Parts[PartName]][];
}

/** A later version of a catalogue, as committed. */
export interface NextVersion {
  readonly version: number;
  readonly changedAt: Date | undefined;
  /** How many films, packages and sessions it has. */
  readonly counts: RecordCounts;
}

/**
 * Each part (a collection, the web sessions, the programme) is published on its first use, from
 * the records of its kinds alone, so that a customer's first answer reads and writes what the
 * one part it needs is made of. The records are let go once the parts asked for at the start are
 * published, and a part first asked for later is published from its records read again: kept,
 * they would add to what a catalogue holds in memory, and every garbage collection would go
 * through thousands of them. Read again after an import, those records are newer than the rest:
 * each answer is still wholly from one committed catalogue, and the server is then building the
 * newer catalogue to replace this one.
 *
 * A later version is published from this one and the records its changes touched (`changed`):
 * each part of the kinds touched is made again from what it holds and those records, every other
 * part goes on as it is.
 */
export class PublishedCatalogue {
  private readonly parts = new Map<PartName, unknown>();

  private constructor(
    /** The stored catalogue version the answers were written from. */
    readonly version: number,
    readonly counts: RecordCounts,
    /** Null until a site is imported. */
    readonly site: Representations | null,
    /** What the site's answers hold. */
    private readonly siteHeld: HeldBytes,
    private readonly xml: XmlWriter,
    private readonly stored: CatalogueReader,
    private readonly held: HeldBytes,
    private readonly events: PublicationEvents,
  ) {}

  /**
   * Publishes the site and `parts` from `snapshot` now; every other part on its first use, from
   * its records as `stored` reads them then.
   */
  static async publish(snapshot: CatalogueSnapshot, xml: XmlWriter, stored: CatalogueReader, parts: Iterable<PartName> = [], events: PublicationEvents = {}): Promise<PublishedCatalogue> {
    const held = new HeldBytes(events.onGrowth);
    const siteHeld = held.part();
    const site = snapshot.site === null ? null : itemOf(SITE_SHAPE, (await writeRecords(SITE_SHAPE, [snapshot.site], new ByteSlabs(siteHeld)))[0] as WrittenRecord, xml, siteHeld);
    const published = new PublishedCatalogue(snapshot.version, snapshot.counts, site, siteHeld, xml, stored, held, events);
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
    return (this.parts.get(name) as Parts[Name] | Promise<Parts[Name]> | undefined) ?? this.publishPart(name, this.stored.snapshot(kindsOf([name])));
  }

  /**
   * The answers of a collection's record by its key as text; undefined when it has none. From the
   * collection once published; before that, from the record read alone and written for this
   * answer, the collection being published once it is read: a customer's first request for one
   * record reads that record, not its whole collection.
   */
  item(name: CollectionName, key: string): Representations | undefined | Promise<Representations | undefined> {
    const published = this.parts.get(name) as PublishedCollection | Promise<PublishedCollection> | undefined;
    if (published instanceof Promise) return published.then((collection) => collection.item(key));
    if (published !== undefined) return published.item(key);
    const { shape, kind } = COLLECTIONS[name] as Collection<unknown>;
    const alone = this.stored.byKey((read): Promise<readonly unknown[]> => read[kind]([key]));
    // For the requests that follow, once this answer has gone out; a failure is met again by the next use.
    void alone.then(() => nextTurn()).then(() => this.part(name)).catch(() => {});
    return alone.then(([record]) => (record === undefined ? undefined : itemOf(shape, writeRecord(shape, record), this.xml)));
  }

  /**
   * Reads, through `read`, the records `touched` that a part published here is written from, and
   * those the programme needs beside them. Reads only: the caller reads in the transaction of the
   * version the records are published for, and publishes with `changed` after it.
   */
  async readChanges(touched: TouchedKeys, read: RecordsByKey): Promise<ChangesToPublish> {
    const parts = this.publishedNow();
    const wanted = kindsOf(parts.flatMap(([name, part]) => (part === null ? [] : [name])));
    const keys = (kind: ListedKind): string[] => (wanted.has(kind) ? [...touched[kind]] : []);
    let records: ChangedRecords = {
      touched,
      films: await read.films(keys('films')),
      packages: await read.packages(keys('packages')),
      screens: await read.screens(keys('screens')),
      attributes: await read.attributes(keys('attributes')),
      sessions: await read.sessions(keys('sessions')),
    };
    const showtimes = parts.find(([name]) => name === 'showtimes')?.[1];
    if (showtimes instanceof Showtimes) {
      // What changed sessions show that no showing showed yet: packages first, then films, theirs included.
      records = { ...records, packages: [...records.packages, ...(await read.packages(showtimes.lacking(records).packages))] };
      records = { ...records, films: [...records.films, ...(await read.films(showtimes.lacking(records).films))] };
    }
    return { records, parts };
  }

  /**
   * This catalogue at `next`, the version that the changes read by `readChanges` bring it to,
   * when the site is as it was: the parts of the kinds touched made again from what they hold
   * and the records read, the others and the site carried over as they are. A part not published
   * when the records were read is left to be published on its first use.
   */
  changed(next: NextVersion, { records, parts }: ChangesToPublish): PublishedCatalogue {
    const held = new HeldBytes(this.events.onGrowth);
    this.siteHeld.moveInto(held);
    const { touched } = records;
    const published = new PublishedCatalogue(next.version, next.counts, this.site, this.siteHeld, this.xml, this.stored, held, this.events);
    for (const [name, part] of parts) {
      if (part === null) published.parts.set(name, null);
      else if (part instanceof Showtimes) published.parts.set(name, part.changed(records, next.changedAt ?? new Date(0), held.part()));
      else if (!PART_KINDS[name].some((kind) => touched[kind].size > 0)) {
        part.moveInto(held);
        published.parts.set(name, part);
      } else if (part instanceof WebSessions) published.parts.set(name, part.changed(touched.sessions, records.sessions, held));
      else published.parts.set(name, changedCollection(COLLECTIONS[name as CollectionName] as Collection<unknown>, part, records, held));
    }
    return published;
  }

  /** The parts published, those still being published left out. */
  private publishedNow(): [PartName, Parts[PartName]][] {
    return [...this.parts].filter((entry): entry is [PartName, Parts[PartName]] => !(entry[1] instanceof Promise));
  }

  private publishPart<Name extends PartName>(name: Name, records: CatalogueSnapshot | Promise<CatalogueSnapshot>): Promise<Parts[Name]> {
    const started = performance.now();
    const publishing = Promise.resolve(records)
      .then((snapshot) => {
        const unread = PART_KINDS[name].filter((kind) => !snapshot.kinds.has(kind));
        if (unread.length > 0) throw new Error(`the ${name} part cannot be published without its ${unread.join(', ')}`);
        return PARTS[name](snapshot, this.xml, this.held.part());
      })
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
