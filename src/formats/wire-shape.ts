/**
 * The wire shapes of the API, declared once: each property's name, its kind, whether it may be
 * null, what it means and where its value comes from. The JSON writer follows the declared order,
 * the XML writer the ordinal alphabetical order that DataContract serializers use, the XML reader
 * learns from the kinds which text to read as a number, a boolean or a list, and the API's
 * schemas (and so its OpenAPI document) are derived from the same declarations.
 */
import {
  FILM_FORMATS,
  MAX_INT32,
  MIN_INT32,
  ROLES,
  SALES_CHANNELS,
  SEATINGS,
  SESSION_STATUSES,
  SHOW_TYPES,
  STATUSES,
  type Attribute,
  type Film,
  type FilmPackage,
  type PackageFilm,
  type Person,
  type Screen,
  type Session,
  type Site,
} from '../catalogue/model.js';

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

/** A namespace that XML declares on a list's element and writes its items in, with a prefix. */
export interface XmlPrefixedNamespace {
  readonly prefix: string;
  readonly uri: string;
}

/**
 * A list of strings: a JSON array; in XML one element holding an element per item, as .NET
 * writes a list of enumeration values (`<SalesVia><SalesChannel>WWW</SalesChannel></SalesVia>`)
 * or of strings (`<Attributes xmlns:d2p1="…Arrays"><d2p1:string>…</d2p1:string></Attributes>`).
 */
export interface TextListField<T> {
  readonly name: string;
  readonly kind: 'textList';
  readonly description: string;
  /** What each item may hold. */
  readonly values?: WireValues;
  readonly itemElement: string;
  /** The namespace of the items, where it is not the record's. */
  readonly itemNamespace?: XmlPrefixedNamespace;
  readonly read: (record: T) => readonly string[];
}

// `any` lets one array hold list fields of different item types; each is checked where declared.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type WireField<T> = ScalarField<T> | ListField<T, any> | TextListField<T>;

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

/** The namespace in which .NET writes the items of a list of strings. */
export const SERIALIZATION_ARRAYS: XmlPrefixedNamespace = { prefix: 'd2p1', uri: 'http://schemas.microsoft.com/2003/10/Serialization/Arrays' };

const ID = { minLength: 1, maxLength: 64 } as const;
const NON_EMPTY = { minLength: 1 } as const;
const DATE_TIME = { pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}$' } as const;
const NOT_NEGATIVE = { minimum: 0, maximum: MAX_INT32 } as const;
const URL_TEXT = 'Empty, or an absolute http(s) URL.';
const INT_ID = { minimum: 1, maximum: MAX_INT32 } as const;

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
  { name: 'Id', kind: 'integer', values: INT_ID, description: 'Unique identifier of the film package.', read: (p) => p.id },
  { name: 'Title', kind: 'text', values: NON_EMPTY, description: 'Title of the package.', read: (p) => p.title },
  { name: 'Status', kind: 'text', values: { oneOf: STATUSES }, description: 'Lists answer packages of every status.', read: (p) => p.status },
  list<FilmPackage, PackageFilm>({ name: 'Films', kind: 'list', item: PACKAGE_FILM_SHAPE, xml: 'wrapped', description: 'The films of the package by Order; `[]` when empty. In XML a `Films` element holding one `FilmPackageFilm` per film.', read: (p) => p.films }),
]);

/** A person as the v1 film wraps them: `<People><Person>…</Person></People>`. */
export const PERSON_V1_SHAPE = shape<Person>('Person', PERSON_SHAPE.fields);

/** The properties `/v1/film` leaves out of the v4 film. */
const NOT_IN_V1_FILM = new Set(['LastModifiedDate', 'FilmPosterUrl', 'FilmPosterThumbnailUrl', 'BackdropImageUrl', 'FilmTrailerUrl']);

/** The older film of `/v1/film`: the v4 film less five properties, its people wrapped in XML. */
export const FILM_V1_SHAPE = shape<Film>(
  'Film',
  FILM_SHAPE.fields
    .filter((field) => !NOT_IN_V1_FILM.has(field.name))
    .map((field) =>
      field.name !== 'People'
        ? field
        : list<Film, Person>({ name: 'People', kind: 'list', item: PERSON_V1_SHAPE, xml: 'wrapped', description: 'People involved with the film; `[]` for nobody. In XML a `People` element holding one `Person` per person, `<People/>` for nobody.', read: (f) => f.people }),
    ),
);

export const SCREEN_SHAPE = shape<Screen>('Screen', [
  { name: 'Id', kind: 'integer', values: INT_ID, description: 'Unique identifier of the screen.', read: (s) => s.id },
  { name: 'Name', kind: 'text', values: NON_EMPTY, description: 'Name of the screen.', read: (s) => s.name },
  { name: 'ScreenNumber', kind: 'text', values: NON_EMPTY, description: 'Number of the screen at the site, as text (`"1"`).', read: (s) => s.screenNumber },
  { name: 'HasCustomLayout', kind: 'boolean', description: 'True when the seats are laid out in a plan of their own.', read: (s) => s.hasCustomLayout },
  { name: 'TotalSeats', kind: 'integer', values: NOT_NEGATIVE, description: 'Seats in the screen.', read: (s) => s.totalSeats },
  { name: 'HouseSeats', kind: 'integer', values: NOT_NEGATIVE, description: 'Seats kept back by the house.', read: (s) => s.houseSeats },
  { name: 'WheelChairSeats', kind: 'integer', values: NOT_NEGATIVE, description: 'Wheelchair places.', read: (s) => s.wheelChairSeats },
]);

const COLOUR = { pattern: '^#[0-9A-Fa-f]{6}$' } as const;

export const ATTRIBUTE_SHAPE = shape<Attribute>('Attribute', [
  { name: 'Id', kind: 'text', values: ID, description: 'Unique identifier of the attribute.', read: (a) => a.id },
  { name: 'Description', kind: 'text', description: 'What the attribute says about a session, such as `Subtitled`.', read: (a) => a.description },
  { name: 'ShortName', kind: 'text', description: 'Name displayed where space is limited.', read: (a) => a.shortName },
  { name: 'FontColor', kind: 'text', values: COLOUR, description: 'Colour of the text: `#` and six hex digits, in the case imported.', read: (a) => a.fontColor },
  { name: 'BackgroundColor', kind: 'text', values: COLOUR, description: 'Colour behind the text: `#` and six hex digits, in the case imported.', read: (a) => a.backgroundColor },
  { name: 'ShowOnSessionsWithNoComps', kind: 'boolean', description: 'True when the attribute is shown on sessions that allow no complimentary tickets.', read: (a) => a.showOnSessionsWithNoComps },
]);

/** One of a site's screens, as the site lists them: by Id only. */
export const SITE_SCREEN_SHAPE = shape<number>('Screen', [
  { name: 'Id', kind: 'integer', values: INT_ID, description: 'Id of the screen; `/v1/screen/{id}` answers its details.', read: (id) => id },
]);

/** The site's optional texts, each null or a string, in JSON order. */
const SITE_TEXTS = [
  ['NationalCode', 'nationalCode', 'Code of the site where the government requires cinemas to report.'],
  ['Address1', 'address1', 'First line of the address.'],
  ['Address2', 'address2', 'Second line of the address.'],
  ['Address3', 'address3', 'Third line of the address.'],
  ['PostCode', 'postCode', 'Postal code.'],
  ['Phone1', 'phone1', 'Main phone number.'],
  ['Phone2', 'phone2', 'Other phone number.'],
  ['Fax', 'fax', 'Fax number.'],
  ['SalesTaxRegistration', 'salesTaxRegistration', 'Sales tax registration number.'],
  ['TicketMessage1', 'ticketMessage1', 'First message printed on tickets.'],
  ['TicketMessage2', 'ticketMessage2', 'Second message printed on tickets.'],
  ['ReceiptMessage1', 'receiptMessage1', 'Message 1 printed on receipts.'],
  ['ReceiptMessage2', 'receiptMessage2', 'Message 2 printed on receipts.'],
  ['ReceiptMessage3', 'receiptMessage3', 'Message 3 printed on receipts.'],
  ['ReceiptMessage4', 'receiptMessage4', 'Message 4 printed on receipts.'],
  ['ReceiptMessage5', 'receiptMessage5', 'Message 5 printed on receipts.'],
  ['ReceiptMessage6', 'receiptMessage6', 'Message 6 printed on receipts.'],
] as const satisfies readonly (readonly [string, keyof Site, string])[];

export const SITE_SHAPE = shape<Site>('Site', [
  { name: 'Name', kind: 'text', values: NON_EMPTY, description: 'Name of the cinema.', read: (s) => s.name },
  { name: 'ShortName', kind: 'text', values: { minLength: 1, maxLength: 12 }, description: 'Name displayed where space is limited.', read: (s) => s.shortName },
  { name: 'LegalName', kind: 'text', values: NON_EMPTY, description: 'Legal name of the business.', read: (s) => s.legalName },
  ...SITE_TEXTS.map(([name, property, description]): ScalarField<Site> => ({ name, kind: 'text', nullable: true, description, read: (s) => s[property] })),
  { name: 'TimeZoneIdentifier', kind: 'text', values: NON_EMPTY, description: 'Windows time zone of the site, such as `New Zealand Standard Time`; session times are wall-clock times there.', read: (s) => s.timeZoneIdentifier },
  { name: 'Country', kind: 'text', values: NON_EMPTY, description: 'Country of the site.', read: (s) => s.country },
  list<Site, number>({ name: 'Screens', kind: 'list', item: SITE_SCREEN_SHAPE, xml: 'wrapped', description: 'The screens of the site by Id; `[]` when none. In XML a `Screens` element holding one `Screen` per screen.', read: (s) => s.screens }),
]);

const TIME = (what: string): string => `${what}: the site's wall-clock time, \`yyyy-mm-ddThh:mm:ss\`, no zone.`;

export const SESSION_SHAPE = shape<Session>('Session', [
  { name: 'Id', kind: 'integer', values: INT_ID, description: 'Unique identifier of the session.', read: (s) => s.id },
  { name: 'FilmId', kind: 'text', nullable: true, values: ID, description: 'The film shown; `/v4/film/{id}` answers its details. Null only for a package session.', read: (s) => s.filmId },
  { name: 'FilmPackageId', kind: 'integer', nullable: true, values: INT_ID, description: 'The film package shown, or null for a single film.', read: (s) => s.filmPackageId },
  { name: 'Title', kind: 'text', values: NON_EMPTY, description: 'Title of what is shown.', read: (s) => s.title },
  { name: 'ScreenId', kind: 'integer', values: INT_ID, description: 'The screen; `/v1/screen/{id}` answers its details.', read: (s) => s.screenId },
  { name: 'Seating', kind: 'text', values: { oneOf: SEATINGS }, description: 'How seats are given.', read: (s) => s.seating },
  { name: 'AreComplimentariesAllowed', kind: 'boolean', description: 'True when complimentary tickets are accepted.', read: (s) => s.areComplimentariesAllowed },
  { name: 'ShowType', kind: 'text', values: { oneOf: SHOW_TYPES }, description: 'Whether the public may buy tickets.', read: (s) => s.showType },
  { name: 'SalesVia', kind: 'textList', values: { oneOf: SALES_CHANNELS }, itemElement: 'SalesChannel', description: 'Where tickets are sold, in the order imported, no repeats; may be empty. In XML one `SalesChannel` element per channel.', read: (s) => s.salesVia },
  { name: 'Status', kind: 'text', values: { oneOf: SESSION_STATUSES }, description: 'Whether the session is open for sale.', read: (s) => s.status },
  { name: 'PreShowStartTime', kind: 'text', values: DATE_TIME, description: TIME('When the session starts, trailers included'), read: (s) => s.preShowStartTime },
  { name: 'SalesCutOffTime', kind: 'text', values: DATE_TIME, description: TIME('When sales end'), read: (s) => s.salesCutOffTime },
  { name: 'TicketsSoldOut', kind: 'boolean', description: 'True when every ticket is sold; as last imported.', read: (s) => s.ticketsSoldOut },
  { name: 'FewTicketsLeft', kind: 'boolean', description: 'True when few tickets are left; as last imported.', read: (s) => s.fewTicketsLeft },
  { name: 'FeatureStartTime', kind: 'text', values: DATE_TIME, description: TIME('When the feature starts'), read: (s) => s.featureStartTime },
  { name: 'FeatureEndTime', kind: 'text', values: DATE_TIME, description: TIME('When the feature ends'), read: (s) => s.featureEndTime },
  { name: 'CleanupEndTime', kind: 'text', values: DATE_TIME, description: TIME('When the screen is ready again'), read: (s) => s.cleanupEndTime },
  { name: 'SeatsAvailable', kind: 'integer', values: NOT_NEGATIVE, description: 'Seats still for sale; as last imported.', read: (s) => s.seatsAvailable },
  { name: 'SeatsHeld', kind: 'integer', values: NOT_NEGATIVE, description: 'Seats held; as last imported.', read: (s) => s.seatsHeld },
  { name: 'SeatsHouse', kind: 'integer', values: NOT_NEGATIVE, description: 'Seats kept back by the house; as last imported.', read: (s) => s.seatsHouse },
  { name: 'SeatsSold', kind: 'integer', values: NOT_NEGATIVE, description: 'Seats sold; as last imported.', read: (s) => s.seatsSold },
  { name: 'FilmFormat', kind: 'text', values: { oneOf: FILM_FORMATS }, description: 'Format of the showing.', read: (s) => s.filmFormat },
  { name: 'PriceCardName', kind: 'text', nullable: true, description: 'Name of the prices that apply.', read: (s) => s.priceCardName },
  { name: 'Attributes', kind: 'textList', values: ID, itemElement: 'string', itemNamespace: SERIALIZATION_ARRAYS, description: 'Ids of the attributes of the session, in the order imported; `/v1/attribute/{id}` answers each. In XML one `d2p1:string` element per id.', read: (s) => s.attributes },
  { name: 'AudioLanguage', kind: 'text', nullable: true, description: 'Audio language of the showing.', read: (s) => s.audioLanguage },
]);

/**
 * A session on sale on the web: the session with its `Url` first in JSON, and in its
 * alphabetical place (last) in XML. Imports and exports read and write sessions in this shape,
 * where Url is null for a session the web does not sell.
 */
export const WEB_SESSION_SHAPE = shape<Session>('Session', [
  { name: 'Url', kind: 'text', nullable: true, description: 'Where the web sells tickets for the session; never null in `/v1/websession`, null in an import or export for a session the web does not sell.', read: (s) => s.url },
  ...SESSION_SHAPE.fields,
]);

/** The XML root of a list of records: `ArrayOfFilm`, `ArrayOfFilmPackage`. */
export function arrayRootName(shape: Pick<WireShape<unknown>, 'name'>): string {
  return `ArrayOf${shape.name}`;
}
