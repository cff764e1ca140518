/**
 * `npm run bench -- --changes`: what one small change costs a server holding a cinema. The server
 * (pinned to core 0) holds a cinema of 400 films and 300 sessions, the programme's week among
 * them, with every answer published: each list and each record in JSON and XML, the programme in
 * each format and its page. This process (core 1) then commits merge imports of one changed
 * record to the same database, one after the other: sessions (their seats), then films (their
 * title).
 *
 * Two figures each, on SQLite and on PostgreSQL (`--changes-postgres`, a scratch database made
 * afresh; empty to leave it out):
 * - the server's CPU time per change (utime and stime from /proc, over a run of changes): the
 *   change published alone, and then again with one request of each list it touches and of the
 *   week's programme, as a
 *   site or a CDN revalidating would (plain answers: a CDN takes the compressed forms too, but the
 *   large ones are compressed in the thread pool in the background, which this leaves out). What
 *   it spends anyway in as long a time, looking at the database, is given beside it, from its CPU
 *   with nothing to do, measured first over IDLE_SECONDS in percent of a core; and the full
 *   garbage collections the server made meanwhile, most of what a change costs when they come;
 * - the time from each commit to the first answer of the changed record with its change, the
 *   record asked every 2 ms.
 * Each figure is taken after `--changes-warm-up` changes of each kind with their requests,
 * unmeasured: over a server's first few hundred changes, V8 compiles their path.
 *
 * `--changes-node-flags` starts every server measured on a Node.js with those flags (V8's heap
 * sizes, say). With `--changes-against DIR`, the CPU per change with its requests of this build and
 * of the one built in DIR, measured in alternating rounds (see `againstBaseline`), and both
 * servers' CPU with nothing to do over the same seconds.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { syntheticFilmId, writeSyntheticCatalogue } from '../scripts/generate-catalogue.js';
import { importFiles } from '../src/import/import-files.js';
import { openDatabase, parseDatabaseSpec } from '../src/store/database.js';
import type { SqlClient } from '../src/store/sql-client.js';
import { beginRun, cpuSeconds, MACHINE, median, preparePostgres, requireFreePort, requireTool, ROOT, sleep, startLogging, stop, waitUntilAnswering, writeResults } from './harness.js';
import type { AlternatedCost, AlternatedIdle, ChangeCost, ChangesResult, ChangesRunResults } from './results.js';
import { countRoundTrips } from './round-trips.js';

export interface ChangesOptions {
  /** Changes of each kind measured, for the CPU and again for the time to serve. */
  readonly changes: number;
  /**
   * Changes of each kind with their requests made first, unmeasured: V8 compiles the path of a
   * change and of its requests over a server's first few hundred changes, once in its life.
   */
  readonly warmUp: number;
  /** A scratch PostgreSQL database; PostgreSQL is left out when undefined. */
  readonly postgres: string | undefined;
  /** Another build (a checkout, built) whose CPU per change is measured in turn with this one's, on SQLite. */
  readonly against: string | undefined;
  /** Flags of the Node.js that runs every server measured, such as V8's heap sizes. */
  readonly nodeFlags: readonly string[];
  /**
   * The customers of each database measured, the cinema among them: the others hold a film each,
   * held by no server, as the cinemas of a platform a server follows the versions of.
   */
  readonly customers: number;
}

/** A port of its own, beyond those of the other benchmarks (18179 to about 18200) and the sync's, which may run on this machine meanwhile. */
const PORT = 18_260;
/** This build's server and the other's, with `--changes-against` (18261 is `--imports`'s). */
const AGAINST_PORTS = [18_262, 18_263] as const;
const FILMS = 400;
const SESSIONS = 300;
/** The synthetic sessions start on 1 January 2030, an hour apart. */
const SYNTHETIC_START = Date.UTC(2030, 0, 1);
/** The synthetic sessions moved to start today: the programme's week holds the first 168 of them. */
const MOVE_SESSIONS_BY_DAYS = Math.round((Date.parse(new Date().toISOString().slice(0, 10)) - SYNTHETIC_START) / 86_400_000);

async function cpuMs(pid: number): Promise<number> {
  return (await cpuSeconds(pid)) * 1000;
}

/** How long a server is left with nothing to do, to see what it spends anyway. */
const IDLE_SECONDS = 15;

async function get(path: string, port: number): Promise<{ status: number; etag: string | null }> {
  // Plain answers, as described above.
  const response = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { 'accept-encoding': 'identity' } });
  await response.arrayBuffer();
  return { status: response.status, etag: response.headers.get('etag') };
}

/** Each kind of change: the record changed, its path, and the lists and programme a change of it touches. */
interface ChangeKind {
  readonly name: 'session' | 'film';
  readonly file: string;
  readonly paths: readonly string[];
  /** The record at its `index`th change, and the path that answers it. */
  changed(index: number): { readonly record: Record<string, unknown>; readonly path: string };
}

async function kindsOf(catalogue: string): Promise<ChangeKind[]> {
  const sessions = JSON.parse(await readFile(join(catalogue, 'sessions.json'), 'utf8')) as Record<string, unknown>[];
  const films = JSON.parse(await readFile(join(catalogue, 'films.json'), 'utf8')) as Record<string, unknown>[];
  // Sessions of the first days, on sale: in the week's programme and the web sessions.
  const session = (index: number): Record<string, unknown> => sessions[48 + (index % 48)] as Record<string, unknown>;
  return [
    {
      name: 'session',
      file: join(catalogue, 'one-session.json'),
      paths: ['/v1/session', '/v1/websession', '/programme'],
      changed: (index) => ({ record: { ...session(index), SeatsAvailable: 1000 + index }, path: `/v1/session/${String(session(index)['Id'])}` }),
    },
    {
      name: 'film',
      file: join(catalogue, 'one-film.json'),
      paths: ['/v4/film', '/v1/film', '/programme'],
      changed: (index) => {
        // Films of the sessions in the week.
        const film = films[(48 + (index % 48)) % FILMS] as Record<string, unknown>;
        return { record: { ...film, Title: `${String(film['Title'])} (change ${index})` }, path: `/v4/film/${String(film['Id'])}` };
      },
    },
  ];
}

/** Every answer of the cinema, asked once, so that the server has published it all. */
async function publishEverything(port: number): Promise<number> {
  const paths: string[] = [];
  const ids: Record<string, string[]> = {
    '/v4/film': Array.from({ length: FILMS }, (_, index) => syntheticFilmId(index)),
    '/v1/film': Array.from({ length: FILMS }, (_, index) => syntheticFilmId(index)),
    '/v1/filmpackage': Array.from({ length: Math.ceil(FILMS / 50) }, (_, index) => String(index + 1)),
    '/v1/screen': ['1', '2', '3'],
    '/v1/attribute': [],
    '/v1/session': Array.from({ length: SESSIONS }, (_, index) => String(index + 1)),
    '/v1/websession': Array.from({ length: SESSIONS }, (_, index) => String(index + 1)),
    '/v1/site': [],
  };
  for (const [list, records] of Object.entries(ids)) {
    for (const format of ['json', 'xml']) {
      paths.push(`${list}?format=${format}`);
      for (const id of records) paths.push(`${list}/${id}?format=${format}`);
    }
  }
  paths.push('/programme', '/programme.ics', '/programme.jsonld', '/whats-on');
  for (const path of paths) await get(path, port);
  return paths.length;
}

async function commit(db: SqlClient, kind: ChangeKind, record: Record<string, unknown>): Promise<void> {
  await writeFile(kind.file, JSON.stringify([record]));
  const result = await importFiles(db, { customer: 'default', files: [kind.file], replace: false, moveSessionsByDays: MOVE_SESSIONS_BY_DAYS });
  if (!result.written) throw new Error(`the ${kind.name} change was not written`);
}

/** The round trips of one change's transaction on PostgreSQL, counted on the wire; the transaction a sync of that change commits. */
async function roundTripsOf(database: string, change: (db: SqlClient) => Promise<void>): Promise<number> {
  const counter = await countRoundTrips(database);
  const db = await openDatabase(parseDatabaseSpec(counter.url));
  try {
    // The connection is opened before the count starts, as a sync's is by its look at the version.
    await db.query('SELECT 1');
    counter.reset();
    await change(db);
    return counter.count();
  } finally {
    await db.close();
    await counter.close();
  }
}

interface FollowedLog {
  /** What the log gained since the last call. */
  newLines(): Promise<string>;
  close(): Promise<void>;
}

/** Reads the lines a log file gains from now on. */
async function follow(logFile: string): Promise<FollowedLog> {
  const handle = await open(logFile, 'r');
  let offset = (await handle.stat()).size;
  return {
    newLines: async () => {
      const { size } = await handle.stat();
      if (size <= offset) return '';
      const buffer = Buffer.alloc(size - offset);
      await handle.read(buffer, 0, buffer.length, offset);
      offset = size;
      return buffer.toString('utf8');
    },
    close: () => handle.close(),
  };
}

/** A server measured: its database, process, port and log, and how many answers it published at its start. */
interface MeasuredServer {
  readonly db: SqlClient;
  readonly process: ChildProcess;
  readonly pid: number;
  readonly port: number;
  readonly log: FollowedLog;
  readonly answersPublished: number;
}

/** Imports the first film of the cinema in `catalogue` for each of `count` customers beside it, through the import pipeline, as an operator would. */
async function importOtherCustomers(db: SqlClient, count: number, catalogue: string): Promise<void> {
  if (count === 0) return;
  const started = performance.now();
  const [film] = JSON.parse(await readFile(join(catalogue, 'films.json'), 'utf8')) as unknown[];
  const file = join(catalogue, 'another-customer.json');
  await writeFile(file, JSON.stringify([film]));
  for (let index = 0; index < count; index++) await importFiles(db, { customer: `other-${String(index).padStart(5, '0')}`, files: [file], replace: true });
  console.log(`${count} other customers imported in ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

/**
 * A server of the build at `root` (a checkout, built) on `database`, holding the cinema of `files`
 * with every answer published, among `customers` customers (see ChangesOptions).
 */
async function startMeasured(root: string, database: string, files: readonly string[], port: number, logFile: string, nodeFlags: readonly string[], customers: number): Promise<MeasuredServer> {
  const db = await openDatabase(parseDatabaseSpec(database));
  await importFiles(db, { customer: 'default', files, replace: true, moveSessionsByDays: MOVE_SESSIONS_BY_DAYS });
  await importOtherCustomers(db, customers - 1, dirname(files[0] as string));
  await requireFreePort(port);
  const process = await startLogging([join(root, 'bin', 'marquee.js'), 'serve', '--database', database, '--port', String(port)], logFile, nodeFlags);
  const log = await follow(logFile);
  await waitUntilAnswering(port, '/readyz');
  const answersPublished = await publishEverything(port);
  return { db, process, pid: process.pid as number, port, log, answersPublished };
}

/** The CPU each of `servers` spends over the same IDLE_SECONDS with nothing asked of it, in percent of a core. */
async function idleCpuPercent(servers: readonly MeasuredServer[]): Promise<number[]> {
  const from = await Promise.all(servers.map((server) => cpuMs(server.pid)));
  await sleep(IDLE_SECONDS * 1000);
  const to = await Promise.all(servers.map((server) => cpuMs(server.pid)));
  return to.map((ms, index) => ((ms - (from[index] as number)) / (IDLE_SECONDS * 1000)) * 100);
}

async function stopMeasured(server: MeasuredServer): Promise<void> {
  await server.log.close();
  await stop(server.process);
  await server.db.close();
}

/** The full garbage collections the server has made since it started, as its /metrics tells (none before its first). */
async function fullCollections(port: number): Promise<number> {
  const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  if (!metrics.includes('# TYPE nodejs_gc_duration_seconds ')) throw new Error('the server\'s /metrics counts no garbage collections');
  return Number(/^nodejs_gc_duration_seconds_count\{kind="major"\} (\d+)$/m.exec(metrics)?.[1] ?? 0);
}

/** What a run of changes cost the server: its CPU per change, and the full garbage collections it made meanwhile. */
interface RunCost {
  readonly cpuMs: number;
  readonly fullCollections: number;
}

/**
 * Commits `count` changes of `kind`, from its `first`th on, each published (its log line seen)
 * and then, `withRequests`, its lists and the programme asked once.
 */
async function costOfChanges(server: MeasuredServer, kind: ChangeKind, first: number, count: number, withRequests: boolean): Promise<RunCost> {
  const collectionsBefore = await fullCollections(server.port);
  const from = await cpuMs(server.pid);
  for (let change = first; change < first + count; change++) {
    await commit(server.db, kind, kind.changed(change).record);
    let seen = '';
    for (const deadline = performance.now() + 10_000; !seen.includes('"msg":"catalogue published"'); await sleep(5)) {
      if (performance.now() > deadline) throw new Error(`the server did not publish a ${kind.name} change within 10 s`);
      seen += await server.log.newLines();
    }
    if (withRequests) for (const path of kind.paths) await get(path, server.port);
  }
  const cpuPerChange = ((await cpuMs(server.pid)) - from) / count;
  return { cpuMs: cpuPerChange, fullCollections: (await fullCollections(server.port)) - collectionsBefore };
}

/**
 * Makes `count` changes of each kind with their requests, unmeasured, from the `first`th on; answers
 * the index of the next change. Measured, the compiling of a change's path would count in whichever
 * kind came first, and in every figure taken over a server's first few hundred changes: the CPU of
 * a session change with its requests fell from 6.9 to 5.0 ms between a server's 100th and 600th.
 */
async function warmUp(server: MeasuredServer, kinds: readonly ChangeKind[], first: number, count: number): Promise<number> {
  let index = first;
  for (const kind of kinds) {
    await costOfChanges(server, kind, index, count, true);
    index += count;
  }
  return index;
}

async function changesOn(database: string, catalogue: string, files: readonly string[], options: ChangesOptions, work: string): Promise<ChangesResult> {
  const kind = parseDatabaseSpec(database).kind;
  const server = await startMeasured(ROOT, database, files, PORT, join(work, `server-${kind}.log`), options.nodeFlags, options.customers);
  const { db } = server;
  try {
    await sleep(2000);
    const [idlePercent = 0] = await idleCpuPercent([server]);
    console.log(`${kind}: with nothing to do, every answer published, the server spends ${idlePercent.toFixed(2)} % of a core`);
    // What publishing everything logged is no change's.
    await server.log.newLines();
    const kinds = await kindsOf(catalogue);
    let index = await warmUp(server, kinds, 0, options.warmUp);
    const costs: ChangeCost[] = [];
    for (const changeKind of kinds) {
      const started = performance.now();
      const alone = await costOfChanges(server, changeKind, index, options.changes, false);
      const withRequests = await costOfChanges(server, changeKind, index + options.changes, options.changes, true);
      index += 2 * options.changes;
      // What the server spends anyway in the time a change took, at its idle rate.
      const idlePerChangeMs = (idlePercent / 100) * ((performance.now() - started) / (2 * options.changes));

      // Time to serve: each change's record asked every 2 ms from its commit until it is served changed.
      const servedMs: number[] = [];
      for (let change = 0; change < options.changes; change++) {
        const { record, path } = changeKind.changed(index++);
        const before = (await get(path, server.port)).etag;
        await commit(db, changeKind, record);
        const committed = performance.now();
        for (const deadline = committed + 10_000; (await get(path, server.port)).etag === before; await sleep(2)) {
          if (performance.now() > deadline) throw new Error(`the server did not serve a ${changeKind.name} change within 10 s`);
        }
        servedMs.push(performance.now() - committed);
      }
      const roundTrips = kind === 'postgres' ? await roundTripsOf(database, (through) => commit(through, changeKind, changeKind.changed(index++).record)) : undefined;
      const cost: ChangeCost = {
        kind: changeKind.name,
        changes: options.changes,
        cpuAloneMs: alone.cpuMs,
        cpuPerChangeMs: withRequests.cpuMs,
        fullCollections: withRequests.fullCollections,
        idleCpuPerChangeMs: idlePerChangeMs,
        servedP50Ms: median(servedMs),
        servedMaxMs: Math.max(...servedMs),
        roundTrips,
      };
      costs.push(cost);
      console.log(
        `${kind}: a ${cost.kind} change costs the server ${cost.cpuPerChangeMs.toFixed(1)} ms of CPU with its requests (full garbage collections meanwhile: ${cost.fullCollections}), ${cost.cpuAloneMs.toFixed(1)} ms without (${cost.idleCpuPerChangeMs.toFixed(1)} ms of it spent anyway, quiet); ` +
          `served ${cost.servedP50Ms.toFixed(1)} ms after its commit at the median, ${cost.servedMaxMs.toFixed(1)} ms at most` +
          (roundTrips === undefined ? '' : `; its transaction takes ${roundTrips} round trips to the database`),
      );
    }
    return { database: kind, films: FILMS, sessions: SESSIONS, customers: options.customers, warmUp: options.warmUp, answersPublished: server.answersPublished, idleCpuPercent: idlePercent, costs };
  } finally {
    await stopMeasured(server);
  }
}

/**
 * Rounds of changes with their requests that each build's server takes, alternating: a virtual
 * machine's speed drifts by a third from one minute to the next, and rounds taken in turn meet
 * both builds with the same drift.
 */
const ROUNDS_AGAINST = 8;

/**
 * The CPU per change with its requests of this build and of the one built at `baseline`, each a
 * server of its own on a SQLite copy of the cinema, measured in alternating rounds; and first what
 * each spends with nothing to do, over the same seconds.
 */
async function againstBaseline(
  baseline: string,
  catalogue: string,
  files: readonly string[],
  options: ChangesOptions,
  work: string,
): Promise<{ readonly idle: AlternatedIdle; readonly costs: AlternatedCost[] }> {
  const servers: MeasuredServer[] = [];
  try {
    for (const [index, build] of [ROOT, baseline].entries()) {
      servers.push(await startMeasured(build, join(work, `build-${index}.db`), files, AGAINST_PORTS[index] as number, join(work, `build-${index}.log`), options.nodeFlags, options.customers));
    }
    await sleep(2000);
    const [thisBuild = 0, baselineBuild = 0] = await idleCpuPercent(servers);
    const idle = { baseline, idleCpuPercent: thisBuild, baselineIdleCpuPercent: baselineBuild };
    console.log(`against ${baseline}: with nothing to do, this build's server spends ${thisBuild.toFixed(2)} % of a core, the baseline's ${baselineBuild.toFixed(2)} %`);
    const kinds = await kindsOf(catalogue);
    let index = 0;
    for (const server of servers) index = await warmUp(server, kinds, index, options.warmUp);
    const costs: AlternatedCost[] = [];
    for (const kind of kinds) {
      const rounds = servers.map((): number[] => []);
      for (let round = 0; round < ROUNDS_AGAINST; round++) {
        for (const [place, server] of servers.entries()) {
          await server.log.newLines();
          rounds[place]?.push((await costOfChanges(server, kind, index, options.changes, true)).cpuMs);
          index += options.changes;
        }
      }
      const [thisBuild = [], baselineBuild = []] = rounds;
      costs.push({ kind: kind.name, changes: options.changes, rounds: ROUNDS_AGAINST, baseline, cpuPerChangeMs: median(thisBuild), baselineCpuPerChangeMs: median(baselineBuild) });
      console.log(
        `against ${baseline}: a ${kind.name} change with its requests costs this build ${median(thisBuild).toFixed(1)} ms of CPU, the baseline ${median(baselineBuild).toFixed(1)} ms ` +
          `(medians of ${ROUNDS_AGAINST} rounds of ${options.changes} each, in turn: ${thisBuild.map((ms) => ms.toFixed(1)).join(' ')} against ${baselineBuild.map((ms) => ms.toFixed(1)).join(' ')})`,
      );
    }
    return { idle, costs };
  } finally {
    for (const server of servers) await stopMeasured(server);
  }
}

export async function benchChanges(options: ChangesOptions): Promise<void> {
  requireTool('taskset', 'apt-get install util-linux');
  const work = await mkdtemp(join(tmpdir(), 'marquee-changes-'));
  try {
    const among = options.customers > 1 ? ` among ${options.customers} customers` : '';
    console.log(`What a change costs, on ${MACHINE}: a cinema of ${FILMS} films and ${SESSIONS} sessions${among}, every answer published, ${options.changes} one-record merge imports of each kind; server on core 0`);
    const catalogue = join(work, 'catalogue');
    const files = await writeSyntheticCatalogue({ films: FILMS, directory: catalogue, sessions: SESSIONS });
    const databases = [join(work, 'marquee.db')];
    if (options.postgres !== undefined) {
      await preparePostgres(options.postgres, true, '--changes-postgres');
      databases.push(options.postgres);
    }
    const run = beginRun();
    const results: ChangesResult[] = [];
    for (const database of databases) results.push(await changesOn(database, catalogue, files, options, work));
    const against = options.against === undefined ? undefined : await againstBaseline(options.against, catalogue, files, options, work);
    const runResults: ChangesRunResults = { ...run.header(), changes: results, against: against?.costs, idleAgainst: against?.idle };
    console.log(`results written to ${await writeResults(run.started, runResults, 'changes')}`);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
