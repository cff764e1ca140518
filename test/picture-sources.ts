/**
 * Hosts of pictures that the image tests start on loopback: good pictures and every kind of bad
 * source (huge, endless, slow, a decompression bomb, SVG, HTML, redirects), each path counted as
 * it is asked for, and a catalogue whose films name them as posters.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import sharp from 'sharp';
export { heavyPosterJpeg } from '../scripts/heavy-poster.js';
import { atEnd, DEMO_FILES, demoRecords, sessionStarting, tempDir } from './helpers.js';

export type Handler = (request: IncomingMessage, response: ServerResponse) => void;

export interface PictureHost {
  /** `http://127.0.0.1:PORT`. */
  readonly origin: string;
  readonly server: Server;
  /** Requests by path. */
  readonly asked: Map<string, number>;
  /** Connections made to it. */
  connections: number;
  /** Stops it, cutting the connections still open. */
  close(): Promise<void>;
}

/** A host answering `routes` by path, and 404 for any other. */
export async function startPictureHost(routes: Readonly<Record<string, Handler>>): Promise<PictureHost> {
  const asked = new Map<string, number>();
  const server = createServer((request, response) => {
    const path = request.url ?? '/';
    asked.set(path, (asked.get(path) ?? 0) + 1);
    const route = routes[path];
    if (route === undefined) response.writeHead(404).end();
    else route(request, response);
  });
  const host = {
    server,
    asked,
    connections: 0,
    origin: '',
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  server.on('connection', () => host.connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  atEnd(async () => {
    if (server.listening) await host.close();
  });
  const address = server.address();
  return Object.assign(host, { origin: `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}` });
}

export function sendBytes(bytes: Buffer, contentType: string): Handler {
  return (_request, response) => response.writeHead(200, { 'content-type': contentType, 'content-length': bytes.length }).end(bytes);
}

export function redirectTo(location: string): Handler {
  return (_request, response) => response.writeHead(302, { location }).end();
}

/** Sends bytes for as long as the client reads them. */
export const endless: Handler = (_request, response) => {
  response.writeHead(200, { 'content-type': 'image/jpeg' });
  const chunk = Buffer.alloc(64 * 1024, 0xff);
  const more = (): void => {
    while (!response.destroyed && response.write(chunk));
    if (!response.destroyed) response.once('drain', more);
  };
  more();
};

/** Sends its head, then nothing, until the client gives up. */
export const silent: Handler = (_request, response) => {
  response.writeHead(200, { 'content-type': 'image/jpeg' });
  response.flushHeaders();
};

/** A poster as Veezi's are: 1340×1920 JPEG. */
export function posterJpeg(): Promise<Buffer> {
  return sharp({ create: { width: 1340, height: 1920, channels: 3, background: '#6b3a2a', noise: { type: 'gaussian', mean: 120, sigma: 20 } } })
    .jpeg({ quality: 85 })
    .toBuffer();
}

/** A picture with transparency: 400×600 PNG. */
export function transparentPng(): Promise<Buffer> {
  return sharp({ create: { width: 400, height: 600, channels: 4, background: { r: 20, g: 80, b: 160, alpha: 0.5 } } })
    .png()
    .toBuffer();
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A decompression bomb: a PNG of a few dozen bytes whose header says 20000×20000 pixels. */
export function bombPng(): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(20_000, 0);
  header.writeUInt32BE(20_000, 4);
  header.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), pngChunk('IHDR', header), pngChunk('IDAT', Buffer.alloc(16)), pngChunk('IEND', Buffer.alloc(0))]);
}

/** The demo's films that a catalogue of pictures names, in order. */
const FILMS = ['HO00000101', 'HO00000102', 'HO00000103', 'HO00000104', 'HO00000105', 'HO00000106', 'HO00000107', 'HO00000108', 'HO00000109', 'HO00000110', 'HO00000111', 'HO00000112', 'HO00000113', 'HO00000114'];
/** The day of the catalogue's sessions, one a film. */
export const PICTURES_DAY = '2026-04-03';

/**
 * The demo cinema's files, its films' posters replaced by `posters` (one a film, in order, the
 * others' removed), with one session of each of those films on PICTURES_DAY; the file paths.
 */
export async function catalogueNaming(posters: readonly string[]): Promise<string[]> {
  if (posters.length > FILMS.length) throw new Error(`at most ${FILMS.length} posters`);
  const dir = await tempDir();
  const films = (await demoRecords('films')).map((film): Record<string, unknown> => {
    const place = FILMS.indexOf(String(film['Id']));
    const poster = place >= 0 && place < posters.length ? posters[place] : null;
    return { ...film, FilmPosterUrl: poster, FilmPosterThumbnailUrl: null, BackdropImageUrl: null };
  });
  const sessions = posters.map((_, place) => {
    const film = films.find((record) => record['Id'] === FILMS[place]) as Record<string, unknown>;
    return sessionStarting(place + 1, `${PICTURES_DAY}T${String(10 + place).padStart(2, '0')}:00:00`, { FilmId: film['Id'], Title: film['Title'] });
  });
  const files = { films: join(dir, 'films.json'), sessions: join(dir, 'sessions.json') };
  await writeFile(files.films, JSON.stringify(films));
  await writeFile(files.sessions, JSON.stringify(sessions));
  return [...DEMO_FILES.filter((file) => !/(films|sessions|filmpackages)\.json$/.test(file)), files.films, files.sessions];
}

/** The programme of the catalogue's day, every session. */
export const PICTURES_PROGRAMME = `/programme?from=${PICTURES_DAY}&days=1&sessions=all`;
