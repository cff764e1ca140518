/**
 * The wire shapes of the API, declared once: each property's name, its kind and where its value
 * comes from. The JSON writer follows the declared order, the XML writer the ordinal
 * alphabetical order that DataContract serializers use, and the XML reader learns from the
 * kinds which text to read as a number, a boolean or a list.
 */
import type { Film, FilmPackage, PackageFilm, Person } from '../catalogue/model.js';

export type ScalarKind = 'text' | 'integer' | 'boolean' | 'percent';
export type Scalar = string | number | boolean | null;

export interface ScalarField<T> {
  readonly name: string;
  readonly kind: ScalarKind;
  readonly read: (record: T) => Scalar;
}

export interface ListField<T, Item = never> {
  readonly name: string;
  readonly kind: 'list';
  readonly item: WireShape<Item>;
  /**
   * How XML writes the list: `repeated` writes one element named after the property per item
   * (People); `wrapped` writes one element holding an element per item (Films/FilmPackageFilm).
   */
  readonly xml: 'repeated' | 'wrapped';
  readonly read: (record: T) => readonly Item[];
}

// `any` lets one array hold list fields of different item types; each is checked where declared.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type WireField<T> = ScalarField<T> | ListField<T, any>;

export interface WireShape<T> {
  /** The element name of one record in XML. */
  readonly name: string;
  /** Properties in JSON order. */
  readonly fields: readonly WireField<T>[];
  /** The same properties in ordinal alphabetical order, as XML writes them. */
  readonly xmlFields: readonly WireField<T>[];
}

function shape<T>(name: string, fields: readonly WireField<T>[]): WireShape<T> {
  const xmlFields = [...fields].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { name, fields, xmlFields };
}

function list<T, Item>(field: ListField<T, Item>): ListField<T, Item> {
  return field;
}

export const PERSON_SHAPE = shape<Person>('People', [
  { name: 'Id', kind: 'text', read: (p) => p.id },
  { name: 'FirstName', kind: 'text', read: (p) => p.firstName },
  { name: 'LastName', kind: 'text', read: (p) => p.lastName },
  { name: 'Role', kind: 'text', read: (p) => p.role },
]);

export const FILM_SHAPE = shape<Film>('Film', [
  { name: 'Id', kind: 'text', read: (f) => f.id },
  { name: 'Title', kind: 'text', read: (f) => f.title },
  { name: 'ShortName', kind: 'text', read: (f) => f.shortName },
  { name: 'Synopsis', kind: 'text', read: (f) => f.synopsis },
  { name: 'Genre', kind: 'text', read: (f) => f.genre },
  { name: 'SignageText', kind: 'text', read: (f) => f.signageText },
  { name: 'Distributor', kind: 'text', read: (f) => f.distributor },
  { name: 'LastModifiedDate', kind: 'text', read: (f) => f.lastModifiedDate },
  { name: 'OpeningDate', kind: 'text', read: (f) => f.openingDate },
  { name: 'Rating', kind: 'text', read: (f) => f.rating },
  { name: 'Status', kind: 'text', read: (f) => f.status },
  { name: 'Content', kind: 'text', read: (f) => f.content },
  { name: 'Duration', kind: 'integer', read: (f) => f.duration },
  { name: 'DisplaySequence', kind: 'integer', read: (f) => f.displaySequence },
  { name: 'NationalCode', kind: 'text', read: (f) => f.nationalCode },
  { name: 'Format', kind: 'text', read: (f) => f.format },
  { name: 'IsRestricted', kind: 'boolean', read: (f) => f.isRestricted },
  list<Film, Person>({ name: 'People', kind: 'list', item: PERSON_SHAPE, xml: 'repeated', read: (f) => f.people }),
  { name: 'AudioLanguage', kind: 'text', read: (f) => f.audioLanguage },
  { name: 'GovernmentFilmTitle', kind: 'text', read: (f) => f.governmentFilmTitle },
  { name: 'FilmPosterUrl', kind: 'text', read: (f) => f.filmPosterUrl },
  { name: 'FilmPosterThumbnailUrl', kind: 'text', read: (f) => f.filmPosterThumbnailUrl },
  { name: 'BackdropImageUrl', kind: 'text', read: (f) => f.backdropImageUrl },
  { name: 'FilmTrailerUrl', kind: 'text', read: (f) => f.filmTrailerUrl },
]);

export const PACKAGE_FILM_SHAPE = shape<PackageFilm>('FilmPackageFilm', [
  { name: 'FilmId', kind: 'text', read: (f) => f.filmId },
  { name: 'Title', kind: 'text', read: (f) => f.title },
  { name: 'SplitPercent', kind: 'percent', read: (f) => f.splitMillionths },
  { name: 'TrailerDuration', kind: 'integer', read: (f) => f.trailerDuration },
  { name: 'CleanUpDuration', kind: 'integer', read: (f) => f.cleanUpDuration },
  { name: 'Order', kind: 'integer', read: (f) => f.order },
]);

export const PACKAGE_SHAPE = shape<FilmPackage>('FilmPackage', [
  { name: 'Id', kind: 'integer', read: (p) => p.id },
  { name: 'Title', kind: 'text', read: (p) => p.title },
  { name: 'Status', kind: 'text', read: (p) => p.status },
  list<FilmPackage, PackageFilm>({ name: 'Films', kind: 'list', item: PACKAGE_FILM_SHAPE, xml: 'wrapped', read: (p) => p.films }),
]);

/** The XML root of a list of records: `ArrayOfFilm`, `ArrayOfFilmPackage`. */
export function arrayRootName(shape: Pick<WireShape<unknown>, 'name'>): string {
  return `ArrayOf${shape.name}`;
}
