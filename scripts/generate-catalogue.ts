/**
 * Writes a large, valid, synthetic catalogue for tests and benchmarks:
 *
 *     npm run gen -- --films 100000 --out /tmp/catalogue [--packages N] [--sessions N] [--format json|xml] [--seed N]
 *
 * With `--sessions N` (JSON only) it writes a programme too: the demo cinema's site, screens and
 * attributes, and N sessions of the films.
 * With `--customers N` it writes one such catalogue per customer instead, each in a folder named
 * by the customer's key (`DIR/cinema-0001/films.json`…), as `marquee import --customers-from DIR`
 * reads them. The same seed gives the same files. Records are streamed through the service's own
 * wire writers, so any size is written in bounded memory and always reads back.
 */
import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FILM_FORMATS, ROLES, STATUSES, type Film, type FilmPackage, type PackageFilm, type Person } from '../src/catalogue/model.js';
import type { FormatName } from '../src/formats/representation.js';
import { jsonRecord } from '../src/formats/json-writer.js';
import { FILM_SHAPE, PACKAGE_SHAPE, type WireShape } from '../src/formats/wire-shape.js';
import { XmlWriter, arrayEnd, xmlChildren, xmlListItem } from '../src/formats/xml-writer.js';
import { scriptOptions } from './script-options.js';

export interface SyntheticCatalogueOptions {
  readonly films: number;
  readonly packages?: number;
  readonly directory: string;
  readonly format?: FormatName;
  readonly seed?: number;
  /** Changes every title, so that a second catalogue differs from the first in every record. */
  readonly edition?: number;
  /** Sessions of the films, with the demo cinema's site, screens and attributes; none unless given. */
  readonly sessions?: number;
}

/** mulberry32: small, fast and good enough to vary test data reproducibly. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ['Night', 'Harbour', 'Silent', 'Crimson', 'Lantern', 'Orbit', 'Paper', 'Comet', 'Winter', 'Échelle', 'Glass', 'Meridian', 'Little', 'Storm', 'Garden', 'Ferry', 'Über', 'Signal', 'Copper', 'Tide'];
const GENRES = ['Drama', 'Comedy', 'Thriller', 'Documentary', 'Animation', 'Horror', 'Romance', null, ''];
const NAMES = ['Ada', 'Bruno', 'Chiara', 'Dmitri', 'Eun-ji', 'Farid', 'Greta', 'Hiroshi', 'Inès', 'Jonas'];

export function syntheticFilmId(index: number): string {
  return `GEN${String(index).padStart(7, '0')}`;
}

function syntheticFilm(index: number, next: () => number, edition: number): Film {
  const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)] as T;
  const title = `${pick(WORDS)} ${pick(WORDS)} ${index}${edition > 0 ? ` (edition ${edition})` : ''}`;
  const people: Person[] = Array.from({ length: Math.floor(next() * 6) }, (_, position) => ({
    id: `P${index}-${position}`,
    firstName: position === 0 && index % 7 === 0 ? null : pick(NAMES),
    lastName: pick(WORDS),
    role: pick(ROLES),
  }));
  const day = 1 + Math.floor(next() * 28);
  const stamp = `20${10 + Math.floor(next() * 15)}-${String(1 + Math.floor(next() * 12)).padStart(2, '0')}-${String(day).padStart(2, '0')}T${String(Math.floor(next() * 24)).padStart(2, '0')}:30:00`;
  const slug = syntheticFilmId(index).toLowerCase();
  return {
    id: syntheticFilmId(index),
    title,
    shortName: title.slice(0, 10),
    synopsis: index % 11 === 0 ? null : `${title} follows ${pick(NAMES)} across ${pick(WORDS).toLowerCase()} country & back, "one ${pick(WORDS).toLowerCase()} at a time". `.repeat(2 + Math.floor(next() * 3)),
    genre: pick(GENRES),
    signageText: title.slice(0, 20),
    distributor: index % 5 === 0 ? '' : 'Synthetic Pictures',
    lastModifiedDate: stamp,
    openingDate: index % 4 === 0 ? null : stamp,
    rating: pick(['G', 'PG', 'M', 'R18+', null]),
    status: pick(STATUSES),
    content: index % 3 === 0 ? null : 'Mild themes',
    duration: 60 + Math.floor(next() * 120),
    displaySequence: Math.floor(next() * 100),
    nationalCode: null,
    format: pick(FILM_FORMATS),
    isRestricted: next() < 0.1,
    people,
    audioLanguage: pick(['English', 'Français', 'Deutsch', '']),
    governmentFilmTitle: null,
    filmPosterUrl: `https://images.marquee.example/posters/${slug}.jpg`,
    filmPosterThumbnailUrl: `https://images.marquee.example/thumbs/${slug}.jpg`,
    backdropImageUrl: index % 2 === 0 ? '' : null,
    filmTrailerUrl: null,
  };
}

function syntheticPackage(index: number, films: number, next: () => number): FilmPackage {
  const count = 2 + Math.floor(next() * 3);
  const share = Math.floor(100_000_000 / count);
  const members: PackageFilm[] = Array.from({ length: count }, (_, position) => {
    const film = (index * 7 + position * 13) % films;
    return {
      filmId: syntheticFilmId(film),
      title: `Feature ${position + 1}`,
      // The last film takes the remainder, so the shares add up to exactly 100.
      splitMillionths: position === count - 1 ? 100_000_000 - share * (count - 1) : share,
      trailerDuration: Math.floor(next() * 20),
      cleanUpDuration: 5 + Math.floor(next() * 15),
      order: position + 1,
    };
  });
  return { id: index + 1, title: `Package ${index + 1}`, status: index % 9 === 0 ? 'Inactive' : 'Active', films: members };
}

/**
 * The session at `index` of a synthetic programme: of the film at `index` (counting again from the
 * first after the last of `films`), an hour after the one before from 2030, on sale on the web.
 */
export function syntheticSession(index: number, films: number): Record<string, unknown> {
  const at = (ms: number): string => new Date(ms).toISOString().slice(0, 19);
  const start = Date.UTC(2030, 0, 1) + index * 3_600_000;
  return {
    Id: index + 1,
    FilmId: syntheticFilmId(index % films),
    FilmPackageId: null,
    Title: `Session ${index + 1}`,
    ScreenId: 1 + (index % 3),
    Seating: 'Allocated',
    AreComplimentariesAllowed: index % 2 === 0,
    ShowType: 'Public',
    SalesVia: ['WWW', 'POS', 'KIOSK'],
    Status: 'Open',
    PreShowStartTime: at(start),
    SalesCutOffTime: at(start + 1_800_000),
    TicketsSoldOut: false,
    FewTicketsLeft: index % 7 === 0,
    FeatureStartTime: at(start + 900_000),
    FeatureEndTime: at(start + 6_300_000),
    CleanupEndTime: at(start + 7_200_000),
    SeatsAvailable: 100 + (index % 50),
    SeatsHeld: index % 3,
    SeatsHouse: 6,
    SeatsSold: index % 90,
    FilmFormat: '2D Digital',
    PriceCardName: index % 2 === 0 ? 'Evening' : 'Matinee',
    Attributes: index % 4 === 0 ? ['0000000001'] : [],
    AudioLanguage: 'English',
    Url: `https://tickets.marquee.example/sessions/${index + 1}`,
  };
}

const DEMO = new URL('../../demo/', import.meta.url);

/** The demo cinema's site, screens and attributes, and `sessions` sessions of the films; returns the paths. */
async function writeSyntheticProgramme(directory: string, films: number, sessions: number): Promise<string[]> {
  const files = ['site', 'screens', 'attributes', 'sessions'].map((name) => join(directory, `${name}.json`));
  for (const [index, name] of ['site', 'screens', 'attributes'].entries()) await copyFile(new URL(`${name}.json`, DEMO), files[index] as string);
  await writeFile(files[3] as string, JSON.stringify(Array.from({ length: sessions }, (_, index) => syntheticSession(index, films))));
  return files;
}

async function write(stream: WriteStream, text: string): Promise<void> {
  if (!stream.write(text)) await once(stream, 'drain');
}

async function writeList<T>(file: string, shape: WireShape<T>, format: FormatName, count: number, make: (index: number) => T): Promise<void> {
  const stream = createWriteStream(file);
  await write(stream, format === 'json' ? '[' : new XmlWriter().arrayStart(shape));
  for (let index = 0; index < count; index++) {
    const record = make(index);
    await write(stream, format === 'json' ? `${index > 0 ? ',' : ''}${jsonRecord(shape, record)}` : xmlListItem(shape, xmlChildren(shape, record)));
  }
  stream.end(format === 'json' ? ']' : arrayEnd(shape));
  await once(stream, 'finish');
}

/** Writes films and filmpackages files into the directory, and the programme's if asked; returns their paths. */
export async function writeSyntheticCatalogue(options: SyntheticCatalogueOptions): Promise<string[]> {
  const format = options.format ?? 'json';
  const packages = options.packages ?? Math.ceil(options.films / 50);
  const seed = options.seed ?? 1;
  await mkdir(options.directory, { recursive: true });
  const filmsFile = join(options.directory, `films.${format}`);
  const packagesFile = join(options.directory, `filmpackages.${format}`);
  const filmRandom = seededRandom(seed);
  await writeList(filmsFile, FILM_SHAPE, format, options.films, (index) => syntheticFilm(index, filmRandom, options.edition ?? 0));
  const packageRandom = seededRandom(seed + 1);
  await writeList(packagesFile, PACKAGE_SHAPE, format, options.films > 0 ? packages : 0, (index) => syntheticPackage(index, options.films, packageRandom));
  const programme = options.sessions === undefined || options.films === 0 ? [] : await writeSyntheticProgramme(options.directory, options.films, options.sessions);
  return [filmsFile, packagesFile, ...programme];
}

/** The key of the customer at `index` (from 0): `cinema-0001`, with as many digits as the last one needs. */
function syntheticCustomerKey(index: number, customers: number): string {
  return `cinema-${String(index + 1).padStart(Math.max(4, String(customers).length), '0')}`;
}

/**
 * The seed of the customer at `index`, far from its neighbours' (each catalogue takes two seeds
 * in a row), so that no two customers' catalogues are alike.
 */
function customerSeed(seed: number, index: number): number {
  return (seed + Math.imul(index + 1, 0x9e3779b9)) >>> 0;
}

/** How often a many-customer run says how far it got. */
const PROGRESS_INTERVAL_MS = 2000;

/** Writes a catalogue per customer into a folder of `directory` named by its key; returns the keys. */
async function writeSyntheticCustomers(customers: number, options: SyntheticCatalogueOptions): Promise<string[]> {
  const keys: string[] = [];
  const started = performance.now();
  let lastShown = started;
  for (let index = 0; index < customers; index++) {
    const key = syntheticCustomerKey(index, customers);
    await writeSyntheticCatalogue({ ...options, directory: join(options.directory, key), seed: customerSeed(options.seed ?? 1, index) });
    keys.push(key);
    if (performance.now() - lastShown >= PROGRESS_INTERVAL_MS) {
      lastShown = performance.now();
      console.error(`progress: ${index + 1}/${customers} customers, ${((lastShown - started) / 1000).toFixed(1)} s`);
    }
  }
  return keys;
}

const USAGE = 'usage: npm run gen -- --films N --out DIR [--customers N] [--packages N] [--sessions N] [--format json|xml] [--seed N]';

async function main(): Promise<void> {
  const values = scriptOptions(
    {
      films: { type: 'string' },
      packages: { type: 'string' },
      out: { type: 'string' },
      format: { type: 'string' },
      seed: { type: 'string' },
      customers: { type: 'string' },
      sessions: { type: 'string' },
      help: { type: 'boolean' },
    },
    USAGE,
  );
  if (values.help === true) {
    console.log(USAGE);
    return;
  }
  const films = Number(values.films);
  const customers = values.customers === undefined ? undefined : Number(values.customers);
  const format = values.format ?? 'json';
  const sessions = values.sessions === undefined ? undefined : Number(values.sessions);
  /** Whether `text`, when given, is a whole number of at least `least`. */
  const atLeast = (text: string | undefined, least: number): boolean => text === undefined || (Number.isInteger(Number(text)) && Number(text) >= least);
  const valid =
    values.films !== undefined &&
    atLeast(values.films, 0) &&
    (format === 'json' || format === 'xml') &&
    atLeast(values.customers, 1) &&
    // Sessions are written in JSON only.
    atLeast(values.sessions, 0) &&
    (sessions === undefined || format === 'json') &&
    atLeast(values.packages, 0) &&
    atLeast(values.seed, 0);
  if (!valid || !values.out) {
    console.error(USAGE);
    process.exit(2);
  }
  const started = performance.now();
  const options: SyntheticCatalogueOptions = {
    films,
    directory: values.out,
    format,
    ...(values.packages === undefined ? {} : { packages: Number(values.packages) }),
    ...(values.seed === undefined ? {} : { seed: Number(values.seed) }),
    ...(sessions === undefined ? {} : { sessions }),
  };
  const seconds = (): string => ((performance.now() - started) / 1000).toFixed(1);
  if (customers === undefined) {
    const files = await writeSyntheticCatalogue(options);
    console.log(`Wrote ${films} films to ${files.join(' and ')} in ${seconds()} s.`);
    return;
  }
  const keys = await writeSyntheticCustomers(customers, options);
  console.log(`Wrote ${films} films for each of ${customers} customers (${keys[0]} to ${keys.at(-1)}) under ${values.out} in ${seconds()} s.`);
}

if (process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'))) await main();
