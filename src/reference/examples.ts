/**
 * The example answers of the reference, written from sample records by the writers that write
 * the server's answers, so that an example cannot drift from what the server sends. The samples
 * are two films of the demo catalogue and the package that shows them together.
 */
import type { Film, FilmPackage } from '../catalogue/model.js';
import { CatalogueSnapshot } from '../catalogue/snapshot.js';
import { ByteSlabs } from '../formats/byte-slabs.js';
import { jsonArray, jsonRecord } from '../formats/json-writer.js';
import type { FormatName } from '../formats/representation.js';
import { FILM_SHAPE, PACKAGE_SHAPE, arrayRootName, type WireShape } from '../formats/wire-shape.js';
import { XmlWriter, xmlChildren } from '../formats/xml-writer.js';
import { unknownId, type Problem } from '../http/http-error.js';
import { problemBody } from '../http/problem.js';

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

/** The name under which the document's components hold the example of an answer. */
export function exampleName(root: string, format: FormatName): string {
  return `${root}.${format}`;
}

function example(summary: string, format: FormatName, bytes: Buffer): Example {
  const text = bytes.toString('utf8');
  return { summary, value: format === 'json' ? JSON.parse(text) : text };
}

/** A record and a list of `records`, each in JSON and XML, as the server writes them. */
function collectionExamples<T>(shape: WireShape<T>, records: readonly T[], noun: string, xml: XmlWriter, slabs: ByteSlabs): Record<string, Example> {
  const written = records.map((record) => ({ json: slabs.write(jsonRecord(shape, record)), xml: xml.record(shape, xmlChildren(shape, record), slabs) }));
  const [first] = written;
  if (first === undefined) throw new Error(`no sample ${noun}`);
  const list = arrayRootName(shape);
  const listSummary = `A catalogue of ${records.length} ${noun}${records.length === 1 ? '' : 's'}`;
  return {
    [exampleName(shape.name, 'json')]: example(`One ${noun}`, 'json', first.json),
    [exampleName(shape.name, 'xml')]: example(`One ${noun}`, 'xml', first.xml.document),
    [exampleName(list, 'json')]: example(listSummary, 'json', jsonArray(written.map(({ json }) => json))),
    [exampleName(list, 'xml')]: example(listSummary, 'xml', xml.arrayDocument(shape, written.map(({ xml: record }) => record.children))),
  };
}

/**
 * An example of each catalogue answer in each format, named by `exampleName` after the answer's
 * XML root, for the document's components. The XML carries `namespace`, as the server's does.
 */
export function answerExamples(namespace: string): Record<string, Example> {
  // The snapshot puts the records in the order lists answer them.
  const snapshot = new CatalogueSnapshot({ films: [SHERLOCK_JR, SAFETY_LAST], packages: [DOUBLE_BILL] }, 1);
  const xml = new XmlWriter(namespace);
  const slabs = new ByteSlabs();
  return {
    ...collectionExamples(FILM_SHAPE, snapshot.films, 'film', xml, slabs),
    ...collectionExamples(PACKAGE_SHAPE, snapshot.packages, 'film package', xml, slabs),
  };
}

/** A problem answer's body in each problem format, by the writer of the server's problems. */
export function problemExamples(problem: Problem): Readonly<Record<FormatName, unknown>> {
  return { json: JSON.parse(problemBody('json', problem)), xml: problemBody('xml', problem) };
}

/** An id that names no record, as the catalogue routes answer it. */
const NOT_FOUND = new Map<WireShape<never>, Problem>([
  [FILM_SHAPE, unknownId('film', 'HO00009999')],
  [PACKAGE_SHAPE, unknownId('film package', '99')],
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
