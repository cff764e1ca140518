/**
 * Writes a large, valid, synthetic catalogue for tests and benchmarks:
 *
 *     npm run gen -- --films 100000 --out /tmp/catalogue [--packages N] [--format json|xml] [--seed N]
 *
 * The same seed gives the same files. Records are streamed through the service's own wire
 * writers, so any size is written in bounded memory and always reads back.
 */
import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { FILM_FORMATS, ROLES, STATUSES, type Film, type FilmPackage, type PackageFilm, type Person } from '../src/catalogue/model.js';
import type { FormatName } from '../src/formats/representation.js';
import { jsonRecord } from '../src/formats/json-writer.js';
import { FILM_SHAPE, PACKAGE_SHAPE, type WireShape } from '../src/formats/wire-shape.js';
import { XmlWriter, arrayEnd, xmlChildren, xmlListItem } from '../src/formats/xml-writer.js';

export interface SyntheticCatalogueOptions {
  readonly films: number;
  readonly packages?: number;
  readonly directory: string;
  readonly format?: FormatName;
  readonly seed?: number;
  /** Changes every title, so that a second catalogue differs from the first in every record. */
  readonly edition?: number;
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

/** Writes films and filmpackages files into the directory; returns their paths. */
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
  return [filmsFile, packagesFile];
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { films: { type: 'string' }, packages: { type: 'string' }, out: { type: 'string' }, format: { type: 'string' }, seed: { type: 'string' } },
  });
  const films = Number(values.films);
  const format = values.format ?? 'json';
  if (!Number.isInteger(films) || films < 0 || !values.out || (format !== 'json' && format !== 'xml')) {
    console.error('usage: npm run gen -- --films N --out DIR [--packages N] [--format json|xml] [--seed N]');
    process.exit(2);
  }
  const started = performance.now();
  const files = await writeSyntheticCatalogue({
    films,
    directory: values.out,
    format,
    ...(values.packages === undefined ? {} : { packages: Number(values.packages) }),
    ...(values.seed === undefined ? {} : { seed: Number(values.seed) }),
  });
  console.log(`Wrote ${films} films to ${files.join(' and ')} in ${((performance.now() - started) / 1000).toFixed(1)} s.`);
}

if (process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'))) await main();
