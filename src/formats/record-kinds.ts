/**
 * The kinds of record an import reads, each in the shape of the API that answers it: how an XML
 * root names its kind, and how a JSON record's properties tell it.
 */
import { NumberText, isRawRecord, type RawValue } from '../catalogue/raw-record.js';
import { ATTRIBUTE_SHAPE, FILM_SHAPE, PACKAGE_SHAPE, SCREEN_SHAPE, SITE_SHAPE, WEB_SESSION_SHAPE, type WireShape } from './wire-shape.js';

/** Sessions are read with their Url, which imports may carry and exports write. */
export const RECORD_KINDS = [
  { kind: 'film', shape: FILM_SHAPE },
  { kind: 'package', shape: PACKAGE_SHAPE },
  { kind: 'screen', shape: SCREEN_SHAPE },
  { kind: 'attribute', shape: ATTRIBUTE_SHAPE },
  { kind: 'site', shape: SITE_SHAPE },
  { kind: 'session', shape: WEB_SESSION_SHAPE },
] as const satisfies readonly { readonly kind: string; readonly shape: WireShape<never> }[];

export type RecordKind = (typeof RECORD_KINDS)[number]['kind'];

/** Each property that one kind alone has, and that kind: `Films` tells a package, `ScreenNumber` a screen. */
const TELLING_PROPERTIES = new Map<string, RecordKind>(
  RECORD_KINDS.flatMap(({ kind, shape }) =>
    shape.fields
      .filter((field) => RECORD_KINDS.every((other) => other.kind === kind || !other.shape.fields.some((candidate) => candidate.name === field.name)))
      .map((field): [string, RecordKind] => [field.name, kind]),
  ),
);

/**
 * The kind whose own properties a JSON record has most of. A record with none of them (one with
 * just Id, Title and Status) is a package when its Id is a number, and a film otherwise.
 */
export function jsonRecordKind(raw: RawValue): RecordKind {
  if (!isRawRecord(raw)) return 'film';
  const counts = new Map<RecordKind, number>();
  for (const property of Object.keys(raw)) {
    const kind = TELLING_PROPERTIES.get(property);
    if (kind !== undefined) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  let best: RecordKind | undefined;
  for (const [kind, count] of counts) if (best === undefined || count > (counts.get(best) ?? 0)) best = kind;
  return best ?? (raw['Id'] instanceof NumberText ? 'package' : 'film');
}
