/** What the integration tests share: databases, the app, the command line, an XML reader. */
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, open, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after } from 'node:test';
import { fileURLToPath } from 'node:url';
import { DOMParser, type Element } from '@xmldom/xmldom';
import pg from 'pg';
import { wallClockTime } from '../src/catalogue/site-time.js';
import { XmlWriter } from '../src/formats/xml-writer.js';
import { ATTRIBUTE_SHAPE, FILM_SHAPE, PACKAGE_SHAPE, SCREEN_SHAPE, SESSION_SHAPE, SITE_SHAPE, type WireShape } from '../src/formats/wire-shape.js';
import type { RatePolicy } from '../src/access/rate-limiter.js';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { DEFAULT_CUSTOMER } from '../src/catalogue/model.js';
import { withDatabase as withCommandDatabase } from '../src/cli/command.js';
import { buildApp } from '../src/http/app.js';
import { Images, type ImageSettings } from '../src/images/images.js';
import { exportFiles } from '../src/import/export-files.js';
import { importFiles } from '../src/import/import-files.js';
import { LiveCatalogue } from '../src/server/live-catalogue.js';
import { LiveTokens } from '../src/server/live-tokens.js';
import { openDatabase, parseDatabaseSpec } from '../src/store/database.js';
import { DatabaseBusyError, DEFAULT_LOCK_TIMEOUT_MS, type SqlClient } from '../src/store/sql-client.js';
import { inXmlOrder } from './wire-properties.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const DEMO = join(ROOT, 'demo');
export const MARQUEE = join(ROOT, 'bin', 'marquee.js');
/** Every file of the demo cinema, films and packages first. */
export const DEMO_FILES = ['films', 'filmpackages', 'screens', 'attributes', 'site', 'sessions'].map((name) => join(DEMO, `${name}.json`));

const cleanups: (() => Promise<unknown>)[] = [];

/** Runs `cleanup` when the test file ends, last registered first. */
export function atEnd(cleanup: () => Promise<unknown>): void {
  cleanups.push(cleanup);
}

// Registered at the file's top level: an `after` inside a hook would run when that hook ends.
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** A fresh directory, removed when the test file ends. */
export async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'marquee-test-'));
  atEnd(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * The database the integration tests run on, chosen by MARQUEE_TEST_DATABASE (`npm test` runs
 * them once for each): `sqlite` (the default) or `postgres`, on MARQUEE_TEST_POSTGRES_URL.
 */
export const TEST_DATABASE = process.env['MARQUEE_TEST_DATABASE'] === 'postgres' ? 'postgres' : 'sqlite';
export const TEST_POSTGRES_URL = process.env['MARQUEE_TEST_POSTGRES_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Runs one administrative statement on the test PostgreSQL server, on a connection of its own. */
export async function administerPostgres(sql: string): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await client.connect();
  try {
    return (await client.query<Record<string, unknown>>(sql)).rows;
  } finally {
    await client.end();
  }
}

let databasesCreated = 0;

export interface FreshDatabaseOptions {
  /** On PostgreSQL, the ICU locale of the database's default collation. */
  readonly postgresIcuLocale?: string;
}

/** Whether some process holds the database's write lock: a write that must not wait finds out. */
export function writerLockHeld(database: string): Promise<boolean> {
  return withDatabase(database, (db) =>
    db.transaction(async () => false, { failIfBusy: true }).catch((error: unknown) => {
      if (error instanceof DatabaseBusyError) return true;
      throw error;
    }),
  );
}

/** A database string for a fresh, empty database of the kind under test, dropped when the test file ends. */
export async function freshDatabase(options: FreshDatabaseOptions = {}): Promise<string> {
  if (TEST_DATABASE === 'sqlite') return join(await tempDir(), 'marquee.db');
  const name = `marquee_test_${process.pid}_${++databasesCreated}_${randomBytes(3).toString('hex')}`;
  const locale = options.postgresIcuLocale === undefined ? '' : ` TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE '${options.postgresIcuLocale}'`;
  await administerPostgres(`CREATE DATABASE ${name}${locale}`);
  // FORCE ends what is still connected, such as a server a failed test left running.
  atEnd(() => administerPostgres(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  const url = new URL(TEST_POSTGRES_URL);
  url.pathname = `/${name}`;
  return url.href;
}

export interface TestApp {
  readonly app: FastifyInstance;
  readonly db: SqlClient;
  readonly live: LiveCatalogue;
  readonly tokens: LiveTokens;
  readonly database: string;
}

export interface TestAppOptions {
  readonly rateLimit?: RatePolicy;
  readonly publicRateLimit?: RatePolicy;
  /** The clock of the app; the system's unless given. */
  readonly now?: () => number;
  readonly corsOrigins?: readonly string[];
  /** Proxies whose X-Forwarded-For names the client. */
  readonly trustedProxies?: readonly string[];
  readonly metricsCustomers?: boolean;
  /** What the published catalogues may hold; a gibibyte unless given. */
  readonly cacheMemoryBytes?: number;
  /** How pictures are read; the serve command's defaults, with the demo's pictures read from demo/images, unless given. */
  readonly images?: Partial<ImageSettings>;
}

/** How test apps read pictures: the serve command's defaults, the demo's pictures read from demo/images. */
export const TEST_IMAGES: ImageSettings = { sources: [], timeoutMs: 10_000, maxBytes: 20 * 2 ** 20, cacheBytes: 2 ** 30, seedPictures: join(DEMO, 'images') };

/** The app over a fresh database holding `files` (the demo catalogue by default). */
export async function startTestApp(
  files: readonly string[] = [join(DEMO, 'films.json'), join(DEMO, 'filmpackages.json')],
  options: TestAppOptions = {},
): Promise<TestApp> {
  const database = await freshDatabase();
  const db = await openDatabase(parseDatabaseSpec(database));
  if (files.length > 0) await importFiles(db, { customer: DEFAULT_CUSTOMER, files, replace: true });
  const { cacheMemoryBytes = 2 ** 30, images: imageSettings, ...appOptions } = options;
  const live = new LiveCatalogue(db, new XmlWriter(), { budgetBytes: cacheMemoryBytes });
  await live.refresh();
  const tokens = new LiveTokens(db);
  await tokens.refresh();
  const images = await Images.open(db, { ...TEST_IMAGES, ...imageSettings });
  const app = buildApp({ catalogues: live, tokens, cacheControl: 'no-cache', images, ...appOptions });
  atEnd(async () => {
    await app.close();
    await images.stop();
    await tokens.stop();
    await db.close();
  });
  return { app, db, live, tokens, database };
}

/** Runs `work` on `database` as a command does, waiting for another writer as long as one would, and closes it. */
export function withDatabase<T>(database: string, work: (db: SqlClient) => Promise<T>): Promise<T> {
  return withCommandDatabase({ database: parseDatabaseSpec(database), lockTimeout: DEFAULT_LOCK_TIMEOUT_MS }, work);
}

/** A fresh database with its schema and nothing in it, as a command that writes leaves one: a command that only reads makes none. */
export async function emptyDatabase(): Promise<string> {
  const database = await freshDatabase();
  await withDatabase(database, async () => undefined);
  return database;
}

/**
 * A fresh database holding the demo catalogue. Imported in this process, as `marquee import`
 * would: the tests of the command line run it themselves, and a process for every test's
 * setup was a tenth of the suite's time.
 */
export async function demoDatabase(): Promise<string> {
  const database = await freshDatabase();
  await withDatabase(database, (db) => importFiles(db, { customer: DEFAULT_CUSTOMER, files: DEMO_FILES, replace: false }));
  return database;
}

/**
 * The catalogue as `marquee export` writes it, the API's own answers, by file name (`films`,
 * `site`, …): written by its export in this process, as `demoDatabase` imports.
 */
export async function exportCatalogue(database: string, format: 'json' | 'xml' = 'json', customer = DEFAULT_CUSTOMER): Promise<Record<string, string> & { films: string }> {
  const out = join(await tempDir(), 'export');
  await withDatabase(database, (db) => exportFiles(db, new XmlWriter(), { customer, directory: out, format }));
  const files: Record<string, string> = {};
  for (const name of (await readdir(out)).sort()) files[name.replace(/\.\w+$/, '')] = await readFile(join(out, name), 'utf8');
  return files as Record<string, string> & { films: string };
}

export interface CliResult {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `marquee ARGS` as a child process, as an operator would, with `input` on its standard input if given. */
export function runCli(args: readonly string[], env: NodeJS.ProcessEnv = {}, input?: string): Promise<CliResult> {
  return runNode([MARQUEE, ...args], env, input);
}

/** Runs `marquee ARGS` with its standard output written to `file`: /dev/full stands for a disk with no room left. */
export async function runCliWritingTo(file: string, args: readonly string[]): Promise<CliResult> {
  const out = await open(file, 'w');
  try {
    const child = spawn(process.execPath, [MARQUEE, ...args], { cwd: ROOT, stdio: ['ignore', out.fd, 'pipe'] });
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    const [code] = (await once(child, 'close')) as [number | null];
    return { status: code ?? 1, stdout: '', stderr };
  } finally {
    await out.close();
  }
}

/** Runs a script of the repository, such as the catalogue generator, as a child process. */
export function runNode(args: readonly string[], env: NodeJS.ProcessEnv = {}, input?: string): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env } }, (error, stdout, stderr) => {
      const status = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ status, stdout, stderr });
    });
    if (input !== undefined) child.stdin?.end(input);
  });
}

export interface ServerProcess {
  readonly child: ChildProcess;
  readonly url: string;
  readonly port: number;
  /** Each line of standard output, parsed: the JSON log. */
  readonly logs: Record<string, unknown>[];
  /** Everything written to standard output and standard error, as written. */
  readonly output: string[];
  /** The exit code, once the process has exited. */
  readonly exited: Promise<number | null>;
}

/** Starts `marquee serve` on a free port and waits for it to say where it listens. */
export async function serve(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<ServerProcess> {
  const child = spawn(process.execPath, [MARQUEE, 'serve', '--port', '0', ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  // Stopped when the test file ends, before its database is dropped.
  atEnd(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  });
  const logs: Record<string, unknown>[] = [];
  const output: string[] = [];
  child.stderr?.setEncoding('utf8').on('data', (text: string) => output.push(text));
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const url = await new Promise<string>((resolve, reject) => {
    void exited.then((code) => reject(new Error(`the server exited with ${code}: ${output.join('')}`)));
    lines.on('line', (line) => {
      output.push(line);
      const entry = JSON.parse(line) as Record<string, unknown>;
      logs.push(entry);
      const match = /listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(String(entry['msg']));
      if (match?.[1]) resolve(match[1]);
    });
  });
  return { child, url, port: Number(new URL(url).port), logs, output, exited };
}

/** The fields an answer's Vary names, in order of name: which step added which does not matter. */
/** A request method by its name: light-my-request's type names seven, and it sends any that Node reads. */
export function method(name: string): NonNullable<InjectOptions['method']> {
  return name as NonNullable<InjectOptions['method']>;
}

export function varyOf(response: { headers: Record<string, unknown> }): string {
  return String(response.headers['vary'] ?? '').split(',').map((field) => field.trim()).filter((field) => field !== '').sort().join(', ');
}

/**
 * `list`, once it is shown to hold something: a check of each item of an empty list checks
 * nothing, and passes.
 */
export function nonEmpty<T>(list: readonly T[], what: string): readonly T[] {
  assert.ok(list.length > 0, `expected at least one ${what}, found none`);
  return list;
}

/** Polls `condition` every 50 ms; fails after `timeoutMs`, saying what `seen` tells of the state then. Resolves with the time it took. */
export async function waitFor(condition: () => Promise<boolean> | boolean, timeoutMs: number, seen?: () => string): Promise<number> {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > timeoutMs) throw new Error(`not within ${timeoutMs} ms${seen === undefined ? '' : `; seen:\n${seen()}`}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return Date.now() - started;
}

const XSI = 'http://www.w3.org/2001/XMLSchema-instance';

function childElements(element: Element): Element[] {
  const children: Element[] = [];
  for (let node = element.firstChild; node !== null; node = node.nextSibling) if (node.nodeType === node.ELEMENT_NODE) children.push(node as Element);
  return children;
}

/**
 * Reads an XML record back into the JSON wire shape with a real XML parser, checking on the way
 * that elements come in the order a DataContract serializer requires.
 */
function xmlRecordToJson(element: Element, shape: WireShape<unknown>): Record<string, unknown> {
  const children = childElements(element);
  const names = children.map((child) => child.localName ?? '');
  const distinct = names.filter((name, index) => names.indexOf(name) === index);
  // The order is checked against the rule (§4: ordinal order of the names), not the code's tables.
  if (distinct.join() !== inXmlOrder(distinct).join()) throw new Error(`<${shape.name}> children out of order: ${distinct.join(', ')}`);
  const json: Record<string, unknown> = {};
  for (const field of shape.fields) {
    const elements = children.filter((child) => child.localName === field.name);
    if (field.kind !== 'list' && field.kind !== 'textList' && elements.length > 1) throw new Error(`<${shape.name}> has ${elements.length} <${field.name}>`);
    if (field.kind === 'list' && field.xml === 'repeated') {
      json[field.name] = elements.map((item) => xmlRecordToJson(item, field.item as WireShape<unknown>));
      continue;
    }
    if (field.kind === 'list' || field.kind === 'textList') {
      // A wrapped list is one element, present (if empty) and never nil, holding an element per item.
      const [wrapper, ...more] = elements;
      if (wrapper === undefined || more.length > 0 || wrapper.hasAttributeNS(XSI, 'nil')) throw new Error(`<${shape.name}> needs one <${field.name}>`);
      const itemElement = field.kind === 'list' ? field.item.name : field.itemElement;
      const itemNamespace = field.kind === 'textList' && field.itemNamespace !== undefined ? field.itemNamespace.uri : element.namespaceURI;
      const items = childElements(wrapper);
      for (const item of items) {
        if (item.localName !== itemElement || item.namespaceURI !== itemNamespace) throw new Error(`<${field.name}> holds <${item.tagName}> in ${item.namespaceURI}`);
      }
      json[field.name] = items.map((item) => (field.kind === 'list' ? xmlRecordToJson(item, field.item as WireShape<unknown>) : (item.textContent ?? '')));
      continue;
    }
    const [child] = elements;
    if (child === undefined) throw new Error(`<${shape.name}> has no <${field.name}>`);
    const text = child.textContent ?? '';
    if (child.getAttributeNS(XSI, 'nil') === 'true') json[field.name] = null;
    else if (field.kind === 'integer' || field.kind === 'percent') json[field.name] = Number(text);
    else if (field.kind === 'boolean') json[field.name] = text === 'true';
    else json[field.name] = text;
  }
  return json;
}

export interface ParsedXml {
  readonly root: string;
  readonly namespace: string | null;
  readonly value: unknown;
}

/**
 * Parses an XML answer of the API into its JSON equivalent; throws if it is not well-formed.
 * The record's shape is told by the root, or given where two shapes share one (`/v1/film`,
 * `/v1/websession`).
 */
export function parseXmlAnswer(xml: string, given?: WireShape<unknown>): ParsedXml {
  const errors: string[] = [];
  const document = new DOMParser({ onError: (level, message) => { if (level !== 'warning') errors.push(message); } }).parseFromString(xml, 'text/xml');
  const root = document.documentElement;
  if (errors.length > 0 || root === null) throw new Error(`not well-formed XML: ${errors.join('; ')}`);
  const shapes: WireShape<unknown>[] = given === undefined ? [FILM_SHAPE, PACKAGE_SHAPE, SCREEN_SHAPE, ATTRIBUTE_SHAPE, SITE_SHAPE, SESSION_SHAPE] as WireShape<unknown>[] : [given];
  const shape = shapes.find((candidate) => root.localName === candidate.name || root.localName === `ArrayOf${candidate.name}`);
  if (shape === undefined) throw new Error(`unexpected root <${root.localName}>`);
  const single = root.localName === shape.name;
  const value = single
    ? xmlRecordToJson(root, shape as WireShape<unknown>)
    : childElements(root).map((item) => xmlRecordToJson(item, shape as WireShape<unknown>));
  return { root: root.localName ?? '', namespace: root.namespaceURI, value };
}

/** The demo cinema's records of one file, as JSON. */
export async function demoRecords(name: string): Promise<Record<string, unknown>[]> {
  const value = JSON.parse(await readFile(join(DEMO, `${name}.json`), 'utf8')) as Record<string, unknown> | Record<string, unknown>[];
  return Array.isArray(value) ? value : [value];
}

/** The demo site's zone, in which session times are written. */
export const DEMO_ZONE = 'Pacific/Auckland';

/**
 * A session of the demo cinema whose sales cut-off is `cutOff` (an instant, cut to the second),
 * with its other times around it, on sale on the web unless `overrides` say otherwise.
 */
export function sessionAt(id: number, cutOff: number, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const at = (minutes: number): string => wallClockTime(DEMO_ZONE, cutOff + minutes * 60_000);
  return {
    Id: id,
    FilmId: 'HO00000101',
    FilmPackageId: null,
    Title: 'Nosferatu',
    ScreenId: 1,
    Seating: 'Allocated',
    AreComplimentariesAllowed: true,
    ShowType: 'Public',
    SalesVia: ['WWW', 'POS'],
    Status: 'Open',
    PreShowStartTime: at(-30),
    SalesCutOffTime: at(0),
    TicketsSoldOut: false,
    FewTicketsLeft: false,
    FeatureStartTime: at(-15),
    FeatureEndTime: at(79),
    CleanupEndTime: at(94),
    SeatsAvailable: 100,
    SeatsHeld: 0,
    SeatsHouse: 6,
    SeatsSold: 114,
    FilmFormat: '2D Digital',
    PriceCardName: null,
    Attributes: ['0000000001'],
    AudioLanguage: null,
    Url: `https://tickets.example/${id}`,
    ...overrides,
  };
}

/** A wall-clock time `minutes` after another (before it when negative). */
export function laterBy(wallClock: string, minutes: number): string {
  return new Date(Date.parse(`${wallClock}Z`) + minutes * 60_000).toISOString().slice(0, 19);
}

/** A public session of Nosferatu starting at `start` (the site's wall clock), on sale on the web until 30 minutes after. */
export function sessionStarting(id: number, start: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    ...sessionAt(id, 0),
    PreShowStartTime: start,
    SalesCutOffTime: laterBy(start, 30),
    FeatureStartTime: laterBy(start, 15),
    FeatureEndTime: laterBy(start, 109),
    CleanupEndTime: laterBy(start, 124),
    SalesVia: ['WWW'],
    Attributes: [],
    ...overrides,
  };
}

export interface SessionsAppOptions extends TestAppOptions {
  /** The site's Windows time zone; the demo's (New Zealand) unless given. */
  readonly windowsZone?: string;
}

/** An app holding the demo's films, packages, screens, attributes and site (in `windowsZone`), and `sessions`. */
export async function appWithSessions(sessions: readonly Record<string, unknown>[], options: SessionsAppOptions = {}): Promise<TestApp> {
  const { windowsZone, ...appOptions } = options;
  const dir = await tempDir();
  const [site = {}] = await demoRecords('site');
  const files = { site: join(dir, 'site.json'), sessions: join(dir, 'sessions.json') };
  await writeFile(files.site, JSON.stringify({ ...site, TimeZoneIdentifier: windowsZone ?? site['TimeZoneIdentifier'] }));
  await writeFile(files.sessions, JSON.stringify(sessions));
  const others = DEMO_FILES.filter((file) => !file.endsWith('site.json') && !file.endsWith('sessions.json'));
  return startTestApp([...others, files.site, files.sessions], appOptions);
}

/**
 * The wall clock of `zone` at `instant`, `yyyy-mm-ddThh:mm:ss`, read straight from the runtime's
 * time zone data (Sweden's locale writes ISO dates): a check of the server's times that does not
 * go through the server's own code.
 */
export function wallClockIn(zone: string, instant: number): string {
  const text = new Intl.DateTimeFormat('sv-SE', { timeZone: zone, dateStyle: 'short', timeStyle: 'medium', hourCycle: 'h23' }).format(instant);
  return text.replace(' ', 'T');
}
