/**
 * The kinds of record an import reads, each in the shape of the API that answers it: how an XML
 * root names its kind, and how a JSON record's properties tell it.
 */
import type { ChangeKind } from '../catalogue/catalogue-change.js';
import { NumberText, isRawRecord, type RawValue } from '../catalogue/raw-record.js';
import { ATTRIBUTE_SHAPE, FILM_SHAPE, PACKAGE_SHAPE, SCREEN_SHAPE, SITE_SHAPE, WEB_SESSION_SHAPE, type WireShape } from './wire-shape.js';

/** Sessions are read with their Url, which imports may carry and exports write. */
export const RECORD_KINDS = [
  { kind: 'film', noun: 'film', shape: FILM_SHAPE },
  { kind: 'package', noun: 'film package', shape: PACKAGE_SHAPE },
  { kind: 'screen', noun: 'screen', shape: SCREEN_SHAPE },
  { kind: 'attribute', noun: 'attribute', shape: ATTRIBUTE_SHAPE },
  { kind: 'site', noun: 'site', shape: SITE_SHAPE },
  { kind: 'session', noun: 'session', shape: WEB_SESSION_SHAPE },
] as const satisfies readonly { readonly kind: string; readonly noun: string; readonly shape: WireShape<never> }[];

export type RecordKind = (typeof RECORD_KINDS)[number]['kind'];

/** How a change names the records of each kind (CONTRACT §14), in the order summaries name them. */
export const CHANGE_KIND_OF = {
  film: 'films',
  package: 'packages',
  screen: 'screens',
  attribute: 'attributes',
  site: 'site',
  session: 'sessions',
} as const satisfies Readonly<Record<RecordKind, ChangeKind>>;

export const KIND_NOUNS = Object.fromEntries(RECORD_KINDS.map(({ kind, noun }) => [kind, noun])) as Readonly<Record<RecordKind, string>>;

/** The kinds that have each property: `Films` tells a package, `ScreenNumber` a screen, `Title` any of three. */
const KINDS_OF_PROPERTY = new Map<string, RecordKind[]>();
for (const { kind, shape } of RECORD_KINDS) {
  for (const field of shape.fields) KINDS_OF_PROPERTY.set(field.name, [...(KINDS_OF_PROPERTY.get(field.name) ?? []), kind]);
}
const PROPERTIES_OF_KIND = Object.fromEntries(RECORD_KINDS.map(({ kind, shape }) => [kind, new Set(shape.fields.map((field) => field.name))])) as Readonly<Record<RecordKind, Set<string>>>;

/** The record has properties of some kind, and only of `kind`'s. */
function hasOnlyPropertiesOf(value: Readonly<Record<string, unknown>>, kind: RecordKind): boolean {
  const own = PROPERTIES_OF_KIND[kind];
  let known = false;
  for (const name of Object.keys(value)) {
    if (!KINDS_OF_PROPERTY.has(name)) continue;
    if (!own.has(name)) return false;
    known = true;
  }
  return known;
}

function withArticle(kind: RecordKind): string {
  return `${/^[aeiou]/.test(KIND_NOUNS[kind]) ? 'an' : 'a'} ${KIND_NOUNS[kind]}`;
}

function listNames(names: readonly string[]): string {
  return names.length > 3 ? `${names.slice(0, 3).join(', ')}, …` : names.join(', ');
}

/**
 * What a JSON record is, told by its property names: those that one kind alone has tell it, and
 * a record with those of two kinds, or with none of any, fits no resource. A record with only
 * properties that kinds share (Id, Title, Status) is of its file's kind (an answer lists one
 * resource) when it may be; for a file's first record, its Id decides between a film's text and
 * a package's number. `fileKind` is the kind of the file's records so far, when known.
 */
export function recogniseJsonRecord(value: RawValue, fileKind: RecordKind | undefined): { readonly kind: RecordKind } | { readonly reason: string } {
  if (!isRawRecord(value)) return { reason: 'must be an object' };
  // What the rest would answer, found at a glance: every record of a list of one kind (a sync's) asks.
  if (fileKind !== undefined && hasOnlyPropertiesOf(value, fileKind)) return { kind: fileKind };
  const names = Object.keys(value).filter((name) => KINDS_OF_PROPERTY.has(name));
  if (names.length === 0) return { reason: 'fits no resource: it has none of the properties of a film, a film package, a screen, an attribute, a site or a session' };
  const telling = new Map<RecordKind, string[]>();
  for (const name of names) {
    const [only, ...others] = KINDS_OF_PROPERTY.get(name) ?? [];
    if (only !== undefined && others.length === 0) telling.set(only, [...(telling.get(only) ?? []), name]);
  }
  if (telling.size > 1) {
    const [first, second] = [...telling].map(([kind, properties]) => `${withArticle(kind)} (${listNames(properties)})`);
    return { reason: `fits no resource: it has properties of ${first} and of ${second}` };
  }
  const fitting = RECORD_KINDS.map(({ kind }) => kind).filter((kind) => names.every((name) => KINDS_OF_PROPERTY.get(name)?.includes(kind)));
  const [told] = telling.keys();
  const candidates = told === undefined ? fitting : [told];
  if (fileKind !== undefined) {
    if (candidates.includes(fileKind)) return { kind: fileKind };
    if (candidates.length > 0) return { reason: `is ${candidates.map(withArticle).join(' or ')} in a list of ${KIND_NOUNS[fileKind]}s` };
  }
  // A file's first record with none of a kind's own properties: a film, or a package by its numeric Id.
  const numericId = value['Id'] instanceof NumberText;
  const kind = candidates.find((candidate) => candidate === (numericId ? 'package' : 'film')) ?? candidates.find((candidate) => candidate === 'film') ?? candidates[0];
  return kind === undefined ? { reason: 'fits no resource: no resource has all of its properties' } : { kind };
}
