/**
 * The wire shapes of the API, declared once: each property's name, its kind, whether it may be
 * null, what it means and where its value comes from. The JSON writer follows the declared order,
 * the XML writer the ordinal alphabetical order that DataContract serializers use, the XML reader
 * learns from the kinds which text to read as a number, a boolean or a list, and the API's
 * schemas (and so its OpenAPI document) are derived from the same declarations.
 */
import { FILM_FORMATS, MAX_INT32, MIN_INT32, ROLES, STATUSES, type Film, type FilmPackage, type PackageFilm, type Person } from '../catalogue/model.js';

export type ScalarKind = 'text' | 'integer' | 'boolean' | 'percent';
export type Scalar = string | number | boolean | null;

/**
 * What a property may hold beyond its kind: the rules imports enforce (CONTRACT §6), stated here
 * so that the API's reference documents them.
 */
export interface WireValues {
  readonly oneOf?: readonly string[];
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly pattern?: string;
}

interface ScalarFieldBase {
  readonly name: string;
  readonly kind: ScalarKind;
  /** What the property means, for the API's reference. */
  readonly description: string;
  readonly values?: WireValues;
}

/** A property that is never null; its `read` is typed so that it cannot return null. */
interface RequiredScalarField<T> extends ScalarFieldBase {
  readonly nullable?: false;
  readonly read: (record: T) => Exclude<Scalar, null>;
}

/** A property that may be null: JSON `null`, XML `i:nil="true"`. */
interface NullableScalarField<T> extends ScalarFieldBase {
  readonly nullable: true;
  readonly read: (record: T) => Scalar;
}

export type ScalarField<T> = RequiredScalarField<T> | NullableScalarField<T>;

export interface ListField<T, Item = never> {
  readonly name: string;
  readonly kind: 'list';
  readonly description: string;
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

const ID = { minLength: 1, maxLength: 64 } as const;
const NON_EMPTY = { minLength: 1 } as const;
const DATE_TIME = { pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}$' } as const;
const NOT_NEGATIVE = { minimum: 0, maximum: MAX_INT32 } as const;
const URL_TEXT = 'Empty, or an absolute http(s) URL.';

export const PERSON_SHAPE = shape<Person>('People', [
  { name: 'Id', kind: 'text', values: NON_EMPTY, description: 'Identifier of the person.', read: (p) => p.id },
  { name: 'FirstName', kind: 'text', nullable: true, description: 'First name.', read: (p) => p.firstName },
  { name: 'LastName', kind: 'text', nullable: true, description: 'Last name.', read: (p) => p.lastName },
  { name: 'Role', kind: 'text', values: { oneOf: ROLES }, description: 'What the person did for the film.', read: (p) => p.role },
]);

export const FILM_SHAPE = shape<Film>('Film', [
  { name: 'Id', kind: 'text', values: ID, description: 'Unique identifier of the film.', read: (f) => f.id },
  { name: 'Title', kind: 'text', values: NON_EMPTY, description: 'Full title.', read: (f) => f.title },
  { name: 'ShortName', kind: 'text', nullable: true, values: { maxLength: 10 }, description: 'Name displayed where space is limited.', read: (f) => f.shortName },
  { name: 'Synopsis', kind: 'text', nullable: true, description: 'Plot synopsis.', read: (f) => f.synopsis },
  { name: 'Genre', kind: 'text', nullable: true, description: 'Genre.', read: (f) => f.genre },
  { name: 'SignageText', kind: 'text', nullable: true, values: { maxLength: 20 }, description: 'Title displayed at the point of sale.', read: (f) => f.signageText },
  { name: 'Distributor', kind: 'text', nullable: true, description: 'Name of the distributor.', read: (f) => f.distributor },
  { name: 'LastModifiedDate', kind: 'text', values: DATE_TIME, description: 'When the film record was last modified: `yyyy-mm-ddThh:mm:ss`, no zone.', read: (f) => f.lastModifiedDate },
  { name: 'OpeningDate', kind: 'text', nullable: true, values: DATE_TIME, description: 'When the film first showed in the country: `yyyy-mm-ddThh:mm:ss`, no zone.', read: (f) => f.openingDate },
  { name: 'Rating', kind: 'text', nullable: true, description: 'Censor rating; values vary by country.', read: (f) => f.rating },
  { name: 'Status', kind: 'text', values: { oneOf: STATUSES }, description: 'Lists answer films of every status.', read: (f) => f.status },
  { name: 'Content', kind: 'text', nullable: true, description: 'Content advisory text.', read: (f) => f.content },
  { name: 'Duration', kind: 'integer', values: NOT_NEGATIVE, description: 'Length of the film in minutes.', read: (f) => f.duration },
  { name: 'DisplaySequence', kind: 'integer', values: { minimum: MIN_INT32, maximum: MAX_INT32 }, description: 'Order of listing at the point of sale; lower comes first. Present in lists too.', read: (f) => f.displaySequence },
  { name: 'NationalCode', kind: 'text', nullable: true, description: 'Report code, where the government requires film data to be reported.', read: (f) => f.nationalCode },
  { name: 'Format', kind: 'text', values: { oneOf: FILM_FORMATS }, description: '`Not a Film` is a show that is not a film, such as a play or a concert.', read: (f) => f.format },
  { name: 'IsRestricted', kind: 'boolean', description: 'True when the film is restricted to adults.', read: (f) => f.isRestricted },
  list<Film, Person>({ name: 'People', kind: 'list', item: PERSON_SHAPE, xml: 'repeated', description: 'People involved with the film; `[]` for nobody. In XML one `People` element per person, and none for nobody.', read: (f) => f.people }),
  { name: 'AudioLanguage', kind: 'text', nullable: true, description: 'Original audio language.', read: (f) => f.audioLanguage },
  { name: 'GovernmentFilmTitle', kind: 'text', nullable: true, description: 'Reporting title, where the government requires film data to be reported.', read: (f) => f.governmentFilmTitle },
  { name: 'FilmPosterUrl', kind: 'text', nullable: true, description: `Link to a large poster image. ${URL_TEXT}`, read: (f) => f.filmPosterUrl },
  { name: 'FilmPosterThumbnailUrl', kind: 'text', nullable: true, description: `Link to a thumbnail of the poster. ${URL_TEXT}`, read: (f) => f.filmPosterThumbnailUrl },
  { name: 'BackdropImageUrl', kind: 'text', nullable: true, description: `Link to a backdrop image. ${URL_TEXT}`, read: (f) => f.backdropImageUrl },
  { name: 'FilmTrailerUrl', kind: 'text', nullable: true, description: `Link to a trailer video. ${URL_TEXT}`, read: (f) => f.filmTrailerUrl },
]);

export const PACKAGE_FILM_SHAPE = shape<PackageFilm>('FilmPackageFilm', [
  { name: 'FilmId', kind: 'text', values: ID, description: 'Id of the film; `/v4/film/{id}` answers its details.', read: (f) => f.filmId },
  { name: 'Title', kind: 'text', values: NON_EMPTY, description: 'Title of the film.', read: (f) => f.title },
  { name: 'SplitPercent', kind: 'percent', values: { minimum: 0, maximum: 100 }, description: 'Share of box-office revenue, written with exactly six decimals (`33.333334`).', read: (f) => f.splitMillionths },
  { name: 'TrailerDuration', kind: 'integer', values: NOT_NEGATIVE, description: 'How long the trailers for this film last.', read: (f) => f.trailerDuration },
  { name: 'CleanUpDuration', kind: 'integer', values: NOT_NEGATIVE, description: 'Time allowed for clean-up after this film.', read: (f) => f.cleanUpDuration },
  { name: 'Order', kind: 'integer', values: { minimum: 1, maximum: MAX_INT32 }, description: 'Position of the film in the package; 1 shows first.', read: (f) => f.order },
]);

export const PACKAGE_SHAPE = shape<FilmPackage>('FilmPackage', [
  { name: 'Id', kind: 'integer', values: { minimum: 1, maximum: MAX_INT32 }, description: 'Unique identifier of the film package.', read: (p) => p.id },
  { name: 'Title', kind: 'text', values: NON_EMPTY, description: 'Title of the package.', read: (p) => p.title },
  { name: 'Status', kind: 'text', values: { oneOf: STATUSES }, description: 'Lists answer packages of every status.', read: (p) => p.status },
  list<FilmPackage, PackageFilm>({ name: 'Films', kind: 'list', item: PACKAGE_FILM_SHAPE, xml: 'wrapped', description: 'The films of the package by Order; `[]` when empty. In XML a `Films` element holding one `FilmPackageFilm` per film.', read: (p) => p.films }),
]);

/** The XML root of a list of records: `ArrayOfFilm`, `ArrayOfFilmPackage`. */
export function arrayRootName(shape: Pick<WireShape<unknown>, 'name'>): string {
  return `ArrayOf${shape.name}`;
}
