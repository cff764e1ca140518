/**
 * The example answers of the reference, written from sample records by the writers that write
 * the server's answers, so that an example cannot drift from what the server sends. The samples
 * come from the demo cinema: two films, the package that shows them together, its screens, two
 * attributes, the site, and a session of a film and one of the package.
 */
import type { Attribute, Film, FilmPackage, Screen, Session, Site } from '../catalogue/model.js';
import { CatalogueSnapshot } from '../catalogue/snapshot.js';
import { ByteSlabs } from '../formats/byte-slabs.js';
import { jsonRecord } from '../formats/json-writer.js';
import type { FormatName, Representations } from '../formats/representation.js';
import {
  ATTRIBUTE_SHAPE,
  FILM_SHAPE,
  FILM_V1_SHAPE,
  PACKAGE_SHAPE,
  SCREEN_SHAPE,
  SESSION_SHAPE,
  SITE_SHAPE,
  WEB_SESSION_SHAPE,
  arrayRootName,
  type WireShape,
} from '../formats/wire-shape.js';
import { XmlWriter, xmlChildren } from '../formats/xml-writer.js';
import { itemOf, WrittenList } from '../formats/written-records.js';
import { NO_SITE, unknownId, type Problem } from '../http/http-error.js';
import { problemBody } from '../http/problem.js';
import { describePicture, type PictureDirectory } from '../images/picture-directory.js';
import { PictureSigner } from '../images/picture-signer.js';
import { HeldBytes } from '../formats/held-bytes.js';
import { parseShowtimesQuery, type ShowtimesQuery } from '../showtimes/showtimes-query.js';
import { SHOWTIMES_FORMATS, Showtimes, type ShowtimesFormat } from '../showtimes/showtimes.js';

/** An OpenAPI Example Object: JSON as its value, XML as its text. */
export interface Example {
  readonly summary: string;
  readonly value: unknown;
}

const SHERLOCK_JR: Film = {
  id: 'HO00000106',
  title: 'Sherlock Jr.',
  shortName: 'SherlockJr',
  synopsis:
    'A cinema projectionist who dreams of being a detective is framed for stealing a pocket watch. ' +
    'Dozing off in the booth, he walks right into the movie on screen and solves the case in style.',
  genre: 'Comedy',
  signageText: 'SHERLOCK JR.',
  distributor: 'Marquee Classics',
  lastModifiedDate: '2024-05-17T14:22:09',
  openingDate: '2024-06-07T00:00:00',
  rating: 'G',
  status: 'Active',
  content: null,
  duration: 45,
  displaySequence: 20,
  nationalCode: 'US-1924-0311',
  format: '2D Digital',
  isRestricted: false,
  people: [
    { id: 'PE0003', firstName: 'Buster', lastName: 'Keaton', role: 'Director' },
    { id: 'PE0003', firstName: 'Buster', lastName: 'Keaton', role: 'Actor' },
    { id: 'PE0031', firstName: 'Kathryn', lastName: 'McGuire', role: 'Actor' },
    { id: 'PE0032', firstName: 'Joe', lastName: 'Keaton', role: 'Actor' },
    { id: 'PE0004', firstName: 'Joseph M.', lastName: 'Schenck', role: 'Producer' },
  ],
  audioLanguage: 'Silent (English intertitles)',
  governmentFilmTitle: 'Sherlock Jr.',
  filmPosterUrl: 'https://images.marquee.example/posters/sherlock-jr-1924.jpg',
  filmPosterThumbnailUrl: 'https://images.marquee.example/posters/thumbs/sherlock-jr-1924.jpg',
  backdropImageUrl: 'https://images.marquee.example/backdrops/sherlock-jr-1924.jpg',
  filmTrailerUrl: 'https://media.marquee.example/trailers/sherlock-jr-1924.mp4',
};

const SAFETY_LAST: Film = {
  id: 'HO00000107',
  title: 'Safety Last!',
  shortName: 'SafetyLast',
  synopsis:
    'A small-town boy bluffs to his sweetheart that he runs a big city department store, and ends up climbing ' +
    "its twelve-storey facade for a publicity stunt. The clock-hanging finale remains one of cinema's great gasps.",
  genre: 'Comedy',
  signageText: 'SAFETY LAST! HFR 3D',
  distributor: 'Marquee Classics',
  lastModifiedDate: '2024-05-17T14:22:10',
  openingDate: '2024-06-07T00:00:00',
  rating: 'G',
  status: 'Active',
  content: 'Dangerous stunts',
  duration: 73,
  displaySequence: 20,
  nationalCode: 'US-1923-0207',
  format: '3D HFR',
  isRestricted: false,
  people: [
    { id: 'PE0033', firstName: 'Fred C.', lastName: 'Newmeyer', role: 'Director' },
    { id: 'PE0034', firstName: 'Sam', lastName: 'Taylor', role: 'Director' },
    { id: 'PE0035', firstName: 'Harold', lastName: 'Lloyd', role: 'Actor' },
    { id: 'PE0036', firstName: 'Mildred', lastName: 'Davis', role: 'Actor' },
    { id: 'PE0037', firstName: 'Hal', lastName: 'Roach', role: 'Producer' },
  ],
  audioLanguage: 'Silent (English intertitles)',
  governmentFilmTitle: '',
  filmPosterUrl: 'https://images.marquee.example/posters/safety-last-1923.jpg',
  filmPosterThumbnailUrl: 'https://images.marquee.example/posters/thumbs/safety-last-1923.jpg',
  backdropImageUrl: 'https://images.marquee.example/backdrops/safety-last-1923.jpg',
  filmTrailerUrl: 'https://media.marquee.example/trailers/safety-last-1923.mp4',
};

const DOUBLE_BILL: FilmPackage = {
  id: 1,
  title: 'Silent Comedy Double: Sherlock Jr. & Safety Last!',
  status: 'Active',
  films: [
    { filmId: SHERLOCK_JR.id, title: SHERLOCK_JR.title, splitMillionths: 50_000_000, trailerDuration: 10, cleanUpDuration: 10, order: 1 },
    { filmId: SAFETY_LAST.id, title: SAFETY_LAST.title, splitMillionths: 50_000_000, trailerDuration: 5, cleanUpDuration: 15, order: 2 },
  ],
};

const SCREENS: readonly Screen[] = [
  { id: 1, name: 'The Grand', screenNumber: '1', hasCustomLayout: false, totalSeats: 220, houseSeats: 6, wheelChairSeats: 4 },
  { id: 2, name: 'Studio', screenNumber: '2', hasCustomLayout: false, totalSeats: 96, houseSeats: 2, wheelChairSeats: 2 },
  { id: 3, name: 'The Salon', screenNumber: '3', hasCustomLayout: true, totalSeats: 48, houseSeats: 0, wheelChairSeats: 1 },
];

const ATTRIBUTES: readonly Attribute[] = [
  { id: '0000000001', description: 'English subtitles', shortName: 'SUBS', fontColor: '#FFFFFF', backgroundColor: '#1F4E79', showOnSessionsWithNoComps: true },
  { id: '0000000002', description: 'Live piano accompaniment', shortName: 'PIANO', fontColor: '#000000', backgroundColor: '#f2c14e', showOnSessionsWithNoComps: true },
];

const SITE: Site = {
  name: 'Marquee Picture House',
  shortName: 'Marquee',
  legalName: 'Marquee Picture House Limited',
  nationalCode: 'NZ-WGN-0042',
  address1: '12 Cuba Street',
  address2: 'Te Aro',
  address3: 'Wellington',
  postCode: '6011',
  phone1: '+64 4 555 0100',
  phone2: null,
  fax: null,
  salesTaxRegistration: '123-456-789',
  ticketMessage1: 'Please keep your ticket until the end of the session.',
  ticketMessage2: '',
  receiptMessage1: 'Thank you for visiting Marquee Picture House.',
  receiptMessage2: 'Silent films with live music every Sunday.',
  receiptMessage3: null,
  receiptMessage4: null,
  receiptMessage5: null,
  receiptMessage6: null,
  timeZoneIdentifier: 'New Zealand Standard Time',
  country: 'New Zealand',
  screens: [1, 2, 3],
};

const SHERLOCK_SESSION: Session = {
  id: 1003,
  filmId: SHERLOCK_JR.id,
  filmPackageId: null,
  title: SHERLOCK_JR.title,
  screenId: 1,
  seating: 'Allocated',
  areComplimentariesAllowed: false,
  showType: 'Public',
  salesVia: ['WWW', 'POS', 'KIOSK'],
  status: 'Open',
  preShowStartTime: '2025-01-06T20:30:00',
  salesCutOffTime: '2025-01-06T21:00:00',
  ticketsSoldOut: false,
  fewTicketsLeft: false,
  featureStartTime: '2025-01-06T20:45:00',
  featureEndTime: '2025-01-06T21:30:00',
  cleanupEndTime: '2025-01-06T21:45:00',
  seatsAvailable: 188,
  seatsHeld: 1,
  seatsHouse: 6,
  seatsSold: 25,
  filmFormat: SHERLOCK_JR.format,
  priceCardName: 'Evening',
  attributes: ['0000000002'],
  audioLanguage: SHERLOCK_JR.audioLanguage,
  url: 'https://tickets.marquee.example/sessions/1003',
};

const DOUBLE_BILL_SESSION: Session = {
  ...SHERLOCK_SESSION,
  id: 1002,
  filmId: null,
  filmPackageId: DOUBLE_BILL.id,
  title: DOUBLE_BILL.title,
  areComplimentariesAllowed: true,
  preShowStartTime: '2025-01-06T17:30:00',
  salesCutOffTime: '2025-01-06T18:00:00',
  featureStartTime: '2025-01-06T17:45:00',
  featureEndTime: '2025-01-06T20:23:00',
  cleanupEndTime: '2025-01-06T20:38:00',
  seatsAvailable: 40,
  seatsHeld: 0,
  seatsSold: 174,
  attributes: [],
  audioLanguage: null,
  url: 'https://tickets.marquee.example/sessions/1002',
};

/** The name under which the document's components hold the example of an answer. */
export function exampleName(answer: string, format: FormatName): string {
  return `${answer}.${format}`;
}

function example(summary: string, format: FormatName, bytes: Buffer): Example {
  const text = bytes.toString('utf8');
  return { summary, value: format === 'json' ? JSON.parse(text) : text };
}

/**
 * A record and, unless `single`, a list of `records`, each in JSON and XML, as the server writes
 * them, named after `answer`, the record's schema.
 */
function collectionExamples<T>(answer: string, shape: WireShape<T>, records: readonly T[], noun: string, xml: XmlWriter, slabs: ByteSlabs, single = false): Record<string, Example> {
  const written = records.map((record) => ({ json: slabs.write(jsonRecord(shape, record)), xml: slabs.write(xmlChildren(shape, record)) }));
  const [first] = written;
  if (first === undefined) throw new Error(`no sample ${noun}`);
  const inBothFormats = (name: string, summary: string, answers: Representations): Record<string, Example> => ({
    [exampleName(name, 'json')]: example(summary, 'json', answers.json.body),
    [exampleName(name, 'xml')]: example(summary, 'xml', answers.xml.body),
  });
  const one = inBothFormats(answer, `One ${noun}`, itemOf(shape, first, xml));
  if (single) return one;
  const listSummary = `A catalogue of ${records.length} ${noun}${records.length === 1 ? '' : 's'}`;
  return { ...one, ...inBothFormats(arrayRootName({ name: answer }), listSummary, WrittenList.of(shape, written, xml)) };
}

/** The samples, in the order lists answer them. */
const SAMPLES = new CatalogueSnapshot(
  { films: [SHERLOCK_JR, SAFETY_LAST], packages: [DOUBLE_BILL], screens: SCREENS, attributes: ATTRIBUTES, site: SITE, sessions: [SHERLOCK_SESSION, DOUBLE_BILL_SESSION] },
  { customer: 'default', version: 1, changedAt: new Date('2025-01-05T21:00:00Z') },
);

/** The name under which the document's components hold the example of the programme in `format`. */
export function programmeExampleName(format: ShowtimesFormat): string {
  return `Programme.${format}`;
}

/** The samples' pictures as a server signs them once each source has been read: a poster of 1340×1920. */
const SAMPLE_PICTURES: PictureDirectory = {
  generation: 0,
  describe: (url) => describePicture(new PictureSigner('example'), url, () => ({ width: 1340, height: 1920, transparent: false })),
};

/**
 * The programme of the samples' evening in each of its formats, as the server answers it at 5 pm
 * that day, the double bill and the later session both on sale.
 */
function programmeExamples(): Record<string, Example> {
  const showtimes = Showtimes.prepare(SAMPLES, new HeldBytes());
  if (showtimes === undefined) throw new Error('the samples have no site');
  const query = parseShowtimesQuery({ from: '2025-01-06', days: '1' }) as ShowtimesQuery;
  const fivePm = Date.parse('2025-01-06T04:00:00Z');
  const summaries: Readonly<Record<ShowtimesFormat, string>> = {
    json: 'An evening of the programme',
    calendar: 'An evening of the programme as a calendar',
    linkedData: 'An evening of the programme as schema.org JSON-LD',
  };
  return Object.fromEntries(
    SHOWTIMES_FORMATS.map((format) => {
      const text = showtimes.answer(query, format, fivePm, SAMPLE_PICTURES).body.toString('utf8');
      return [programmeExampleName(format), { summary: summaries[format], value: format === 'calendar' ? text : JSON.parse(text) }];
    }),
  );
}

/**
 * An example of each catalogue answer in each format, named by `exampleName` after the answer's
 * record schema, and of the programme in each of its formats, for the document's components.
 * The XML carries `namespace`, as the server's does.
 */
export function answerExamples(namespace: string): Record<string, Example> {
  const snapshot = SAMPLES;
  const xml = new XmlWriter(namespace);
  const slabs = new ByteSlabs();
  return {
    ...collectionExamples('Film', FILM_SHAPE, snapshot.films, 'film', xml, slabs),
    ...collectionExamples('FilmV1', FILM_V1_SHAPE, snapshot.films, 'film', xml, slabs),
    ...collectionExamples('FilmPackage', PACKAGE_SHAPE, snapshot.packages, 'film package', xml, slabs),
    ...collectionExamples('Screen', SCREEN_SHAPE, snapshot.screens, 'screen', xml, slabs),
    ...collectionExamples('Attribute', ATTRIBUTE_SHAPE, snapshot.attributes, 'attribute', xml, slabs),
    ...collectionExamples('Site', SITE_SHAPE, [SITE], 'site', xml, slabs, true),
    ...collectionExamples('Session', SESSION_SHAPE, snapshot.sessions, 'session', xml, slabs),
    ...collectionExamples('WebSession', WEB_SESSION_SHAPE, snapshot.sessions, 'session on sale', xml, slabs),
    ...programmeExamples(),
  };
}

/** A problem answer's body in each problem format, by the writer of the server's problems. */
export function problemExamples(problem: Problem): Readonly<Record<FormatName, unknown>> {
  return { json: JSON.parse(problemBody('json', problem)), xml: problemBody('xml', problem) };
}

/** An id that names no record, as the catalogue routes answer it. */
const NOT_FOUND = new Map<WireShape<never>, Problem>([
  [FILM_SHAPE, unknownId('film', 'HO00009999')],
  [FILM_V1_SHAPE, unknownId('film', 'HO00009999')],
  [PACKAGE_SHAPE, unknownId('film package', '99')],
  [SCREEN_SHAPE, unknownId('screen', '99')],
  [ATTRIBUTE_SHAPE, unknownId('attribute', '0000009999')],
  [SITE_SHAPE, NO_SITE],
  [SESSION_SHAPE, unknownId('session', '99')],
  [WEB_SESSION_SHAPE, unknownId('session on sale', '99')],
]);

/** What the server answers when an id names no record of `shape`. */
export function notFoundProblem(shape: WireShape<never>): Problem {
  const problem = NOT_FOUND.get(shape);
  if (problem === undefined) throw new Error(`the wire shape ${shape.name} has no not-found example`);
  return problem;
}

/** What the server answers a request without a token once a token exists, in the authentication step's wording. */
export const MISSING_TOKEN: Problem = {
  status: 401,
  title: 'Unauthorized',
  detail: 'This API needs an access token: send it as VeeziAccessToken: TOKEN or Authorization: Bearer TOKEN.',
  headers: {},
};
