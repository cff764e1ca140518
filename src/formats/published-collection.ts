/**
 * A collection's answers: its list in each format, and each of its records by id. A record's
 * bytes are where its list holds them until it is first asked for: its JSON is a view of the
 * list's, and its XML document is the list's item wrapped in the document's root. Objects of its
 * own for each of a catalogue's thousands of records (ten a record) were most of what a server
 * with many catalogues held on its heap, and every garbage collection went through them, though
 * most records are never asked for before their catalogue is published again.
 */
import type { HeldBytes } from './held-bytes.js';
import { Representation, type Representations } from './representation.js';
import type { WireShape } from './wire-shape.js';
import { listOf, type ListSpans, type WrittenRecord } from './written-records.js';
import type { XmlWriter } from './xml-writer.js';

// What the index holds for a record (its id, its place, its spans), and what its answers hold
// once it has been asked for beside its XML document (their objects, the ETag once hashed), as
// measured on Node.js 24 with 20,000 records.
const BYTES_PER_RECORD = 100;
const BYTES_PER_ASKED_RECORD = 550;

export class PublishedCollection {
  /** The records asked for so far, by their place in the list, with their ETags and compressed forms once made. */
  private readonly asked = new Map<number, Representations>();

  private constructor(
    readonly list: Representations,
    /** Each record's place in the list, by its id as text: `HO00000101`, `7`. */
    private readonly places: ReadonlyMap<string, number>,
    /** Where each record's bytes lie in the list's: start and end, in each format. */
    private readonly spans: ListSpans,
    private readonly shape: Pick<WireShape<unknown>, 'name'>,
    private readonly xml: XmlWriter,
    private readonly held: HeldBytes,
  ) {}

  /** The list of `records`, written in the list's order, with `ids` theirs; `held` counts what it holds. */
  static of(shape: Pick<WireShape<unknown>, 'name'>, ids: readonly string[], records: readonly WrittenRecord[], xml: XmlWriter, held: HeldBytes): PublishedCollection {
    const spans = { json: new Uint32Array(records.length * 2), xml: new Uint32Array(records.length * 2) };
    const list = listOf(shape, records, xml, held, spans);
    held.add(records.length * BYTES_PER_RECORD);
    return new PublishedCollection(list, new Map(ids.map((id, place) => [id, place])), spans, shape, xml, held);
  }

  /** The record's answers, made on its first request. */
  item(id: string): Representations | undefined {
    const place = this.places.get(id);
    if (place === undefined) return undefined;
    let item = this.asked.get(place);
    if (item === undefined) {
      const json = this.list.json.body.subarray(this.spans.json[place * 2], this.spans.json[place * 2 + 1]);
      const document = this.xml.document(this.shape, this.list.xml.body.subarray(this.spans.xml[place * 2], this.spans.xml[place * 2 + 1]));
      item = { json: new Representation(json, this.held), xml: new Representation(document, this.held) };
      this.asked.set(place, item);
      this.held.add(document.length + BYTES_PER_ASKED_RECORD);
    }
    return item;
  }
}
