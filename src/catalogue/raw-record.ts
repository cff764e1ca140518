/**
 * A record as a reader found it in a file or an upstream answer, before validation: property
 * names as on the wire, values untyped. Numbers keep their source text so that a decimal such
 * as SplitPercent is never rounded through a binary float.
 */
export class NumberText {
  constructor(readonly text: string) {}
}

export type RawValue = null | boolean | string | NumberText | readonly RawValue[] | RawRecord;

export interface RawRecord {
  readonly [field: string]: RawValue | undefined;
}

export function isRawRecord(value: RawValue | undefined): value is RawRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof NumberText);
}

/** A short, readable rendering of an offending value for problem reports. */
export function describeValue(value: RawValue | undefined): string {
  if (value === undefined) return '(missing)';
  const text = rawToJson(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** Writes a raw record back as JSON, numbers exactly as they were read. */
export function rawToJson(value: RawValue): string {
  if (value instanceof NumberText) return value.text;
  if (Array.isArray(value)) return `[${(value as readonly RawValue[]).map(rawToJson).join(',')}]`;
  if (isRawRecord(value)) {
    return `{${Object.entries(value)
      .filter((entry): entry is [string, RawValue] => entry[1] !== undefined)
      .map(([name, member]) => `${JSON.stringify(name)}:${rawToJson(member)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}
