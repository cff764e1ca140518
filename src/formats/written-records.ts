/**
 * Records written once in both formats, and the answers made of them: a record's document, and
 * a list joined from the bytes of its records, copying bytes only.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ByteSlabs } from './byte-slabs.js';
import type { HeldBytes } from './held-bytes.js';
import { JSON_ARRAY, jsonRecord } from './json-writer.js';
import { joinList, listLength, type ListFraming } from './list-bytes.js';
import { Representation, type FormatName, type Representations } from './representation.js';
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
  private readonly formats: Readonly<Record<FormatName, ListInFormat>>;

  constructor(shape: Named, records: readonly WrittenRecord[], xml: XmlWriter, held?: HeldBytes) {
    this.formats = {
      json: new ListInFormat(
        records.map((record) => record.json),
        JSON_ARRAY,
        held,
      ),
      xml: new ListInFormat(
        records.map((record) => record.xml),
        xml.arrayFraming(shape),
        held,
      ),
    };
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

  /** What it holds, as `held` counts it: each format joined or its records' bytes, and compressed forms made. */
  get bytes(): number {
    return this.formats.json.bytes + this.formats.xml.bytes;
  }
}

/** A list in one format: its records' bytes as they are until its first request, then the list joined from them. */
class ListInFormat {
  private items: readonly Buffer[] | undefined;
  private list: { readonly representation: Representation; readonly spans: Uint32Array } | undefined;
  /** The list's length, which `held` counts from the start: the records' bytes until it is joined. */
  private readonly length: number;

  constructor(
    items: readonly Buffer[],
    private readonly framing: ListFraming,
    private readonly held: HeldBytes | undefined,
  ) {
    this.items = items;
    this.length = listLength(items, framing);
    held?.add(this.length);
  }

  joined(): Representation {
    if (this.list === undefined) {
      const items = this.items as readonly Buffer[];
      const spans = new Uint32Array(items.length * 2);
      const body = joinList(items, this.framing, spans);
      this.list = { representation: new Representation(body, this.held), spans };
      // The records' bytes are the list's from now on; those they were views of can go.
      this.items = undefined;
    }
    return this.list.representation;
  }

  item(place: number): Buffer {
    if (this.list === undefined) return (this.items as readonly Buffer[])[place] as Buffer;
    const { representation, spans } = this.list;
    return representation.body.subarray(spans[place * 2], spans[place * 2 + 1]);
  }

  get bytes(): number {
    return this.list?.representation.bytes ?? this.length;
  }
}

/** A record already written, in each format: a view of its JSON, which its slabs counted, and its XML document, which `held` counts. */
export function itemOf(shape: Named, record: WrittenRecord, xml: XmlWriter, held?: HeldBytes): Representations {
  const document = xml.document(shape, record.xml);
  held?.add(document.length);
  return { json: new Representation(record.json, held), xml: new Representation(document, held) };
}

type Named = Pick<WireShape<unknown>, 'name'>;
