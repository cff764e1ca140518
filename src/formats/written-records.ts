/**
 * Records written once in both formats, and the answers made of them: a record's document, and
 * a list joined from the bytes of its records, copying bytes only.
 */
import { hash } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ByteSlabs } from './byte-slabs.js';
import type { HeldBytes } from './held-bytes.js';
import { JSON_ARRAY, jsonRecord } from './json-writer.js';
import { joinList, listLength, type ListFraming, type ListItems } from './list-bytes.js';
import { Representation, SHA1_BYTES, type FormatName, type Representations } from './representation.js';
import type { WireShape } from './wire-shape.js';
import { xmlChildren, type XmlWriter } from './xml-writer.js';

/** Records written between two yields to the event loop: a few milliseconds of work. */
const RECORDS_PER_TURN = 100;

/** One record written in each format: its JSON document, and its XML child elements, which a list holds and its document wraps. */
export interface WrittenRecord {
  readonly json: Buffer;
  readonly xml: Buffer;
}

/** `map` of each record, yielding to the event loop now and then. */
export async function mapInTurns<T, Result>(records: readonly T[], map: (record: T, index: number) => Result): Promise<Result[]> {
  const results: Result[] = [];
  for (const [index, record] of records.entries()) {
    if (index > 0 && index % RECORDS_PER_TURN === 0) await nextTurn();
    results.push(map(record, index));
  }
  return results;
}

/** Writes each record in both formats, yielding to the event loop now and then. */
export function writeRecords<T>(shape: WireShape<T>, records: readonly T[], slabs: ByteSlabs): Promise<WrittenRecord[]> {
  return mapInTurns(records, (record) => ({ json: slabs.write(jsonRecord(shape, record)), xml: slabs.write(xmlChildren(shape, record)) }));
}

/** Writes one record in both formats, in buffers of its own that `held` counts: a record a change wrote anew. */
export function writeRecord<T>(shape: WireShape<T>, record: T, held?: HeldBytes): WrittenRecord {
  const written = { json: Buffer.from(jsonRecord(shape, record)), xml: Buffer.from(xmlChildren(shape, record)) };
  held?.add(written.json.length + written.xml.length);
  return written;
}

/**
 * A list of records already written, in each format, each format joined from its records' bytes
 * on its first request: after a change most lists are asked for in one format, if at all, before
 * the next change, and joining the lists of 400 films in both formats at each change brought V8's
 * full collections every few changes. `held` counts the bytes of each format as joined.
 */
export class WrittenList implements Representations {
  private constructor(private readonly formats: Readonly<Record<FormatName, ListInFormat>>) {}

  static of(shape: Named, records: readonly WrittenRecord[], xml: XmlWriter, held?: HeldBytes): WrittenList {
    const places = Int32Array.from(records, (_, index) => -1 - index);
    return new WrittenList({
      json: new ListInFormat({ base: undefined, places, added: records.map((record) => record.json) }, JSON_ARRAY, held),
      xml: new ListInFormat({ base: undefined, places, added: records.map((record) => record.xml) }, xml.arrayFraming(shape), held),
    });
  }

  get json(): Representation {
    return this.formats.json.joined();
  }

  get xml(): Representation {
    return this.formats.xml.joined();
  }

  /** The bytes of the record at `place`, as the list holds them: its JSON, and its XML children. */
  recordAt(place: number): WrittenRecord {
    return { json: this.formats.json.item(place), xml: this.formats.xml.item(place) };
  }

  /**
   * The list of this one's records and `written` in a new order: `from` holds, for each place
   * of the new list, the record's place in this one, or -1 - its index in `written`. Records
   * kept are copied from where this list holds them when the new list is joined.
   */
  rearranged(from: Int32Array, written: readonly WrittenRecord[], held?: HeldBytes): WrittenList {
    return new WrittenList({
      json: this.formats.json.rearranged(from, written.map((record) => record.json), held),
      xml: this.formats.xml.rearranged(from, written.map((record) => record.xml), held),
    });
  }

  /** What it holds, as `held` counts it: each format joined or its records' bytes, and compressed forms made. */
  get bytes(): number {
    return this.formats.json.bytes + this.formats.xml.bytes;
  }
}

/**
 * A list's bytes, where each record's bytes lie in them (its start, then its end), and each
 * record's digest. The bytes alone, not their answer: a list laid out in another holds its
 * bytes, not its compressed forms.
 */
interface ListBytes {
  readonly body: Buffer;
  readonly spans: Uint32Array;
  /** Each record's SHA-1, one after the other. */
  readonly digests: Buffer;
}

/** The digest of each record of `layout`: copied from the list it lies in, or made for a record added. */
function digestsOf({ base, places, added }: Layout): Buffer {
  const digests = Buffer.allocUnsafe(places.length * SHA1_BYTES);
  places.forEach((place, index) => {
    if (place >= 0) (base as ListBytes).digests.copy(digests, index * SHA1_BYTES, place * SHA1_BYTES, (place + 1) * SHA1_BYTES);
    // As text of one byte a character: a Buffer of its own for each digest cost twice as long.
    else digests.write(hash('sha1', added[-1 - place] as Buffer, 'binary'), index * SHA1_BYTES, 'latin1');
  });
  return digests;
}

/**
 * A list's strong ETag: the SHA-1 of its framing's ends and its records' digests. After a change
 * of one record a list is digested from the others' digests and that record's, kilobytes rather
 * than the whole list (hundreds of kilobytes, a few tenths of a millisecond of SHA-1 each time it
 * was asked after a change); it changes exactly when the list's bytes do.
 */
function listTag(framing: ListFraming, digests: Buffer): string {
  return `"${hash('sha1', Buffer.concat([framing.start, digests, framing.end]), 'base64url')}"`;
}

/** The bytes of the record at `place` of a list, as a view of the list's. */
function bytesIn({ body, spans }: ListBytes, place: number): Buffer {
  return body.subarray(spans[place * 2], spans[place * 2 + 1]);
}

/**
 * Where the records of a list not yet joined lie: each in a list joined before (its place
 * there, 0 or more) or among `added` (-1 - its index there). Typed arrays, not an object for
 * each record: a change of one record lays out a list of hundreds.
 */
interface Layout {
  readonly base: ListBytes | undefined;
  readonly places: Int32Array;
  readonly added: readonly Buffer[];
}

/** The records of `layout`, read where they lie. */
function itemsOf({ base, places, added }: Layout): ListItems {
  const spans = base?.spans ?? new Uint32Array(0);
  const body = base?.body ?? Buffer.alloc(0);
  return {
    count: places.length,
    lengthAt: (index) => {
      const place = places[index] as number;
      return place >= 0 ? (spans[place * 2 + 1] as number) - (spans[place * 2] as number) : (added[-1 - place] as Buffer).length;
    },
    copyAt: (index, target, offset) => {
      const place = places[index] as number;
      if (place >= 0) body.copy(target, offset, spans[place * 2], spans[place * 2 + 1]);
      else target.set(added[-1 - place] as Buffer, offset);
    },
  };
}

/** A list in one format: where its records' bytes lie until its first request, then the list joined from them. */
class ListInFormat {
  private layout: Layout | undefined;
  private list: { readonly representation: Representation; readonly bytes: ListBytes } | undefined;
  /**
   * What `held` counts from the start: the list's length (the records' bytes until it is joined)
   * and its records' digests.
   */
  private readonly length: number;
  private readonly digestBytes: number;

  constructor(
    layout: Layout,
    private readonly framing: ListFraming,
    private readonly held: HeldBytes | undefined,
  ) {
    this.layout = layout;
    this.length = listLength(itemsOf(layout), framing);
    this.digestBytes = layout.places.length * SHA1_BYTES;
    held?.add(this.length + this.digestBytes);
  }

  joined(): Representation {
    if (this.list === undefined) {
      const layout = this.layout as Layout;
      const spans = new Uint32Array(layout.places.length * 2);
      const body = joinList(itemsOf(layout), this.framing, spans);
      const digests = digestsOf(layout);
      this.list = { representation: new Representation(body, this.held, listTag(this.framing, digests)), bytes: { body, spans, digests } };
      // The records' bytes are the list's from now on; those they were copied from can go.
      this.layout = undefined;
    }
    return this.list.representation;
  }

  item(place: number): Buffer {
    if (this.list !== undefined) return bytesIn(this.list.bytes, place);
    const { base, places, added } = this.layout as Layout;
    const at = places[place] as number;
    return at >= 0 ? bytesIn(base as ListBytes, at) : (added[-1 - at] as Buffer);
  }

  /** This list's records and `written` in a new order (see `WrittenList.rearranged`), in this format. */
  rearranged(from: Int32Array, written: readonly Buffer[], held: HeldBytes | undefined): ListInFormat {
    if (this.list !== undefined) return new ListInFormat({ base: this.list.bytes, places: from, added: written }, this.framing, held);
    // Not joined: the new list lies where this one's records lie, and keeps only the added bytes it has.
    const { base, places, added } = this.layout as Layout;
    const kept: Buffer[] = [];
    const placesNow = from.map((source) => {
      const place = source >= 0 ? (places[source] as number) : undefined;
      if (place !== undefined && place >= 0) return place;
      kept.push(place === undefined ? (written[-1 - source] as Buffer) : (added[-1 - place] as Buffer));
      return -kept.length;
    });
    return new ListInFormat({ base, places: placesNow, added: kept }, this.framing, held);
  }

  get bytes(): number {
    return (this.list?.representation.bytes ?? this.length) + this.digestBytes;
  }
}

/** A record already written, in each format: a view of its JSON, which its slabs counted, and its XML document, which `held` counts. */
export function itemOf(shape: Named, record: WrittenRecord, xml: XmlWriter, held?: HeldBytes): Representations {
  const document = xml.document(shape, record.xml);
  held?.add(document.length);
  return { json: new Representation(record.json, held), xml: new Representation(document, held) };
}

type Named = Pick<WireShape<unknown>, 'name'>;
