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
import { xmlChildren, type XmlRecord, type XmlWriter } from './xml-writer.js';

/** Records written between two yields to the event loop: a few milliseconds of work. */
const RECORDS_PER_TURN = 100;

/** One record written in each format: its document, and its bytes as an item of a list. */
export interface WrittenRecord {
  readonly json: Buffer;
  readonly xml: XmlRecord;
}

/** Writes each record in both formats, yielding to the event loop now and then. */
export async function writeRecords<T>(shape: WireShape<T>, records: readonly T[], xml: XmlWriter, slabs: ByteSlabs): Promise<WrittenRecord[]> {
  const written: WrittenRecord[] = [];
  for (const [index, record] of records.entries()) {
    if (index > 0 && index % RECORDS_PER_TURN === 0) await nextTurn();
    written.push({ json: slabs.write(jsonRecord(shape, record)), xml: xml.record(shape, xmlChildren(shape, record), slabs) });
  }
  return written;
}

/** A list of records already written, in each format; `held` counts the bytes it joins. */
export function listOf(shape: Pick<WireShape<unknown>, 'name'>, records: readonly WrittenRecord[], xml: XmlWriter, held?: HeldBytes): Representations {
  const json = jsonArray(records.map((record) => record.json));
  const document = xml.arrayDocument(shape, records.map((record) => record.xml.children));
  held?.add(json.length + document.length);
  return { json: new Representation(json, held), xml: new Representation(document, held) };
}

/** A record already written, in each format: views of bytes its slabs already counted. */
export function itemOf(record: WrittenRecord, held?: HeldBytes): Representations {
  return { json: new Representation(record.json, held), xml: new Representation(record.xml.document, held) };
}
