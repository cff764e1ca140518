/**
 * A collection's answers: its list in each format, and each of its records by id. A record's
 * bytes are where its list holds them until it is first asked for: then its JSON is copied out
 * of the list's, and its XML document is the list's item wrapped in the document's root. Objects
 * of its own for each of a catalogue's thousands of records (ten a record) were most of what a
 * server with many catalogues held on its heap, and every garbage collection went through them,
 * though most records are never asked for before their catalogue is published again.
 *
 * After a change, the list is joined again from the bytes it holds and the touched records
 * written anew (`changed`); the records asked for keep their answers.
 */
import { compareCodePoints } from '../catalogue/code-points.js';
import type { HeldBytes } from './held-bytes.js';
import { Representation, type Representations } from './representation.js';
import type { WireShape } from './wire-shape.js';
import { WrittenList, type WrittenRecord } from './written-records.js';
import type { XmlWriter } from './xml-writer.js';

// What the index holds for a record (its id, its place, its spans, its order), and what its
// answers hold once it has been asked for beside its XML document (their objects, the ETag once
// hashed), as measured on Node.js 24 with 20,000 records.
const BYTES_PER_RECORD = 120;
const BYTES_PER_ASKED_RECORD = 550;

/** Where a record stands in its list: by its rank, then its key (numbers by value, text by code point). */
export interface ListOrder {
  readonly rank: number;
  readonly key: string | number;
}

export function compareOrder(a: ListOrder, b: ListOrder): number {
  if (a.rank !== b.rank) return a.rank - b.rank;
  return typeof a.key === 'number' ? a.key - (b.key as number) : compareCodePoints(a.key, b.key as string);
}

/** A record written, with its place in the list's order. */
export interface OrderedRecord extends ListOrder {
  readonly written: WrittenRecord;
}

export class PublishedCollection {
  /** Each record's place in the list, by its key as text: `HO00000101`, `7`. */
  private readonly places: ReadonlyMap<string, number>;

  /** `places`, when given, is the index of the collection a change moved no record of; otherwise it is made from `keys`. */
  private constructor(
    readonly list: WrittenList,
    /** Each record's rank and key, by place: what places a changed record among the others. */
    private readonly ranks: Float64Array,
    private readonly keys: readonly (string | number)[],
    private readonly shape: Pick<WireShape<unknown>, 'name'>,
    private readonly xml: XmlWriter,
    private readonly held: HeldBytes,
    /**
     * The records asked for so far, by key as text, with their ETags and compressed forms once
     * made. Their bytes are their own, not views of the list's: a list joined again after a
     * change takes them on as they are.
     */
    private readonly asked: Map<string, Representations>,
    places?: ReadonlyMap<string, number>,
  ) {
    this.places = places ?? new Map(keys.map((key, place) => [String(key), place]));
    held.add(keys.length * BYTES_PER_RECORD);
  }

  /** The list of `records`, already in the list's order; `held` counts what it holds. */
  static of(shape: Pick<WireShape<unknown>, 'name'>, records: readonly OrderedRecord[], xml: XmlWriter, held: HeldBytes): PublishedCollection {
    const list = WrittenList.of(shape, records.map((record) => record.written), xml, held);
    return new PublishedCollection(list, Float64Array.from(records, (record) => record.rank), records.map((record) => record.key), shape, xml, held, new Map());
  }

  /** The record's answers, made on its first request. */
  item(id: string): Representations | undefined {
    const place = this.places.get(id);
    if (place === undefined) return undefined;
    let item = this.asked.get(id);
    if (item === undefined) {
      const { json, xml } = this.list.recordAt(place);
      item = { json: new Representation(Buffer.from(json), this.held), xml: new Representation(this.xml.document(this.shape, xml), this.held) };
      this.asked.set(id, item);
      this.held.add(item.json.body.length + item.xml.body.length + BYTES_PER_ASKED_RECORD);
    }
    return item;
  }

  /**
   * The list again, with the records whose keys (as text) are `touched` taken out and `written`
   * (those of them that still exist, written anew) put in their places: every other record is
   * joined from the bytes this list holds, and keeps its answers, ETags and compressed forms.
   * What it holds is counted from now on in `whole`, the catalogue that replaces this one's.
   */
  changed(touched: ReadonlySet<string>, written: readonly OrderedRecord[], whole: HeldBytes): PublishedCollection {
    // The records kept, in their order, merged with those written, in theirs: each place's
    // source (a place in this list, or -1 - the index of a record written) and rank, and its key
    // in a list of their own only once one differs from the key at that place before.
    const incoming = [...written].sort(compareOrder);
    const most = this.keys.length + incoming.length;
    const from = new Int32Array(most);
    const ranks = new Float64Array(most);
    let keys: (string | number)[] | undefined;
    let size = 0;
    const put = (source: number, key: string | number, rank: number): void => {
      if (keys === undefined && key !== this.keys[size]) keys = this.keys.slice(0, size);
      keys?.push(key);
      from[size] = source;
      ranks[size++] = rank;
    };
    let next = 0;
    const putWritten = (): void => {
      const record = incoming[next] as OrderedRecord;
      put(-1 - next++, record.key, record.rank);
    };
    this.keys.forEach((key, place) => {
      if (touched.has(String(key))) return;
      const rank = this.ranks[place] as number;
      while (next < incoming.length && compareOrder(incoming[next] as OrderedRecord, { rank, key }) < 0) putWritten();
      put(place, key, rank);
    });
    while (next < incoming.length) putWritten();
    if (keys === undefined && size < this.keys.length) keys = this.keys.slice(0, size);

    const asked = new Map(this.asked);
    for (const key of touched) {
      const item = asked.get(key);
      if (item === undefined) continue;
      asked.delete(key);
      this.held.add(-(item.json.bytes + item.xml.bytes + BYTES_PER_ASKED_RECORD));
    }
    this.held.moveInto(whole);
    // This list is let go for the one made now.
    this.held.add(-(this.list.bytes + this.keys.length * BYTES_PER_RECORD));
    const list = this.list.rearranged(from.subarray(0, size), incoming.map((record) => record.written), this.held);
    // A change that leaves every record in its place (a session's seats, a film's title) keeps the keys and the index of places.
    return new PublishedCollection(list, ranks.subarray(0, size), keys ?? this.keys, this.shape, this.xml, this.held, asked, keys === undefined ? this.places : undefined);
  }

  /** Counts what the collection holds in `whole` from now on: the catalogue that replaces its own holds it as it is. */
  moveInto(whole: HeldBytes): void {
    this.held.moveInto(whole);
  }
}
