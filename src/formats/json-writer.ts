/** Writes records in the API's JSON wire form, property by property as the shape declares. */
import { formatMillionths } from '../catalogue/split-percent.js';
import type { ListFraming } from './list-bytes.js';
import type { Scalar, ScalarKind, WireShape } from './wire-shape.js';

/** What JSON.stringify may escape: quotes, backslashes, control characters, and surrogates, of which it escapes the lone ones. */
// eslint-disable-next-line no-control-regex -- control characters are among what JSON escapes
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * `text` as a JSON string, as JSON.stringify writes it. Most texts need no escape, and quoting
 * them is several times faster than a call to JSON.stringify, which a catalogue makes for each of
 * its thousands of texts and an error answer for its detail.
 */
export function jsonString(text: string): string {
  return ESCAPED.test(text) ? JSON.stringify(text) : `"${text}"`;
}

function jsonScalar(kind: ScalarKind, value: Scalar): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return jsonString(value);
    case 'boolean':
      return value ? 'true' : 'false';
    default:
      // A percentage is written with exactly six decimals, which JSON.stringify cannot do.
      return kind === 'percent' ? formatMillionths(value) : String(value);
  }
}

/** Each property's name as it opens a member, after the brace or comma before it; made once per shape. */
const memberOpenings = new WeakMap<object, readonly string[]>();

function openingsOf<T>(shape: WireShape<T>): readonly string[] {
  let openings = memberOpenings.get(shape);
  if (openings === undefined) {
    openings = shape.fields.map((field, index) => `${index === 0 ? '{' : ','}"${field.name}":`);
    memberOpenings.set(shape, openings);
  }
  return openings;
}

/** One record as a JSON object. Built by appending: joining a list of members took about a third longer. */
export function jsonRecord<T>(shape: WireShape<T>, record: T): string {
  const openings = openingsOf(shape);
  let json = '';
  let member = 0;
  for (const field of shape.fields) {
    json += openings[member++];
    if (field.kind === 'list') {
      const itemShape: WireShape<unknown> = field.item;
      const items: readonly unknown[] = field.read(record);
      json += '[';
      for (let index = 0; index < items.length; index++) json += `${index === 0 ? '' : ','}${jsonRecord(itemShape, items[index])}`;
      json += ']';
    } else if (field.kind === 'textList') {
      json += `[${field.read(record).map(jsonString).join(',')}]`;
    } else {
      json += jsonScalar(field.kind, field.read(record));
    }
  }
  return `${json}}`;
}

/** How records already written with `jsonRecord` are joined into a JSON array (see `joinList`). */
export const JSON_ARRAY: ListFraming = { start: Buffer.from('['), separator: Buffer.from(','), end: Buffer.from(']') };
