/** Writes records in the API's JSON wire form, property by property as the shape declares. */
import { formatMillionths } from '../catalogue/split-percent.js';
import { joinList, type ListFraming } from './list-bytes.js';
import type { Scalar, ScalarKind, WireShape } from './wire-shape.js';

function jsonScalar(kind: ScalarKind, value: Scalar): string {
  if (value === null) return 'null';
  // A number written with exactly six decimals, which JSON.stringify cannot do.
  if (kind === 'percent') return formatMillionths(value as number);
  return JSON.stringify(value);
}

export function jsonRecord<T>(shape: WireShape<T>, record: T): string {
  const members = shape.fields.map((field) => {
    const value =
      field.kind === 'list'
        ? `[${field.read(record).map((item: unknown) => jsonRecord(field.item, item)).join(',')}]`
        : jsonScalar(field.kind, field.read(record));
    return `"${field.name}":${value}`;
  });
  return `{${members.join(',')}}`;
}

const ARRAY: ListFraming = { start: Buffer.from('['), separator: Buffer.from(','), end: Buffer.from(']') };

/** Joins records already written with `jsonRecord` into a JSON array, copying bytes only. */
export function jsonArray(items: readonly Buffer[]): Buffer {
  return joinList(items, ARRAY);
}
