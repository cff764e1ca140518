/**
 * Records written once in both formats, and the answers made of them: a record's document, and
 * a list joined from the bytes of its records, copying bytes only.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ByteSlabs } from './byte-slabs.js';
import type { HeldBytes } from './held-bytes.js';
import { jsonArray, jsonRecord } from './json-writer.js';
import { Representation, type Representations } from './representation.js';
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

/** Where each record's bytes lie in a list's, in each format, as `joinList` fills them. */
export interface ListSpans {
  readonly json: Uint32Array;
  readonly xml: Uint32Array;
}

/** A list of records already written, in each format; `held` counts the bytes it joins, `spans` are filled when given. */
export function listOf(shape: Named, records: readonly WrittenRecord[], xml: XmlWriter, held?: HeldBytes, spans?: ListSpans): Representations {
  const json = jsonArray(records.map((record) => record.json), spans?.json);
  const document = xml.arrayDocument(shape, records.map((record) => record.xml), spans?.xml);
  held?.add(json.length + document.length);
  return { json: new Representation(json, held), xml: new Representation(document, held) };
}

/** A record already written, in each format: a view of its JSON, which its slabs counted, and its XML document, which `held` counts. */
export function itemOf(shape: Named, record: WrittenRecord, xml: XmlWriter, held?: HeldBytes): Representations {
  const document = xml.document(shape, record.xml);
  held?.add(document.length);
  return { json: new Representation(record.json, held), xml: new Representation(document, held) };
}

type Named = Pick<WireShape<unknown>, 'name'>;
