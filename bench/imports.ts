/**
 * `npm run bench -- --imports`: answers while the server reads catalogues. A server holding a
 * catalogue of 5,000 films, a session each, answers one film to wrk with 256 connections for
 * 30 s, while two imports replace every film one after the other; each import makes the server
 * read the whole catalogue again and publish it. The figures are wrk's latency over the whole
 * load, its p99 above all, and the server's own longest event-loop delay (prom-client's
 * `nodejs_eventloop_lag_max_seconds`, read before and after the load). Once on SQLite, once on
 * PostgreSQL (`--imports-postgres`, a scratch database made afresh; empty to leave it out).
 * The server is pinned to core 0, wrk and the imports to core 1; with `--imports-unpinned` all of
 * them share both cores, as on a small VM.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { syntheticFilmId, writeSyntheticCatalogue } from '../scripts/generate-catalogue.js';
import { parseDatabaseSpec } from '../src/store/database.js';
import {
  beginRun,
  capture,
  MACHINE,
  MARQUEE,
  preparePostgres,
  requireFreePort,
  requireTool,
  runCli,
  sleep,
  startMarquee,
  stop,
  waitUntilSettled,
  writeResults,
  wrk,
  type Cores,
  type MarqueeServer,
} from './harness.js';
import type { ImportsResult, ImportsRunResults } from './results.js';

export interface ImportsOptions {
  readonly films: number;
  readonly seconds: number;
  readonly connections: number;
  /** A scratch PostgreSQL database; PostgreSQL is left out when undefined. */
  readonly postgres: string | undefined;
  /** The server, wrk and the imports on both cores, rather than the server alone on core 0. */
  readonly unpinned: boolean;
}

/** A port of its own, beyond those of the other benchmarks (18179 to about 18200), which may run on this machine meanwhile. */
const PORT = 18_261;

/** When each import starts, in seconds from the start of the load. */
const IMPORTS_AT = [5, 15];

/** The server's longest event-loop delay since the last scrape, in milliseconds. */
async function eventLoopDelayMaxMs(): Promise<number> {
  const metrics = await capture(PORT, { name: 'metrics', path: '/metrics', headers: {} });
  const text = Buffer.from(metrics.bodyBase64, 'base64').toString('utf8');
  return Number(/^nodejs_eventloop_lag_max_seconds (\S+)$/m.exec(text)?.[1]) * 1000;
}

/**
 * The server's time to publish each catalogue after the first `seen`, once the last import is in
 * service (its version is `version`). Imports that commit while the server publishes the one
 * before are published together.
 */
async function publishedSince(server: MarqueeServer, seen: number, version: number): Promise<number[]> {
  for (const deadline = performance.now() + 60_000; performance.now() < deadline; await sleep(100)) {
    const lines = (await server.logged('catalogue published')).slice(seen);
    if (lines.some((line) => line['version'] === version)) return lines.map((line) => Number(line['durationMs']));
  }
  throw new Error(`the server did not publish version ${version} of the catalogue within a minute`);
}

/** Runs `marquee import --replace` on `cores`, as an operator would while the server answers. */
async function importAt(seconds: number, database: string, directory: string, cores: Cores): Promise<number> {
  await sleep(seconds * 1000);
  const started = performance.now();
  const child = spawn('taskset', ['-c', cores, process.execPath, MARQUEE, 'import', '--database', database, '--replace', directory], { stdio: ['ignore', 'ignore', 'inherit'] });
  const [status] = (await once(child, 'exit')) as [number | null];
  if (status !== 0) throw new Error(`the import of ${directory} failed with exit status ${status}`);
  return performance.now() - started;
}

async function importsOn(database: string, editions: readonly string[], options: ImportsOptions, work: string): Promise<ImportsResult> {
  const kind = parseDatabaseSpec(database).kind;
  runCli(['import', '--database', database, '--replace', editions[0] as string]);
  const logFile = join(work, `server-${kind}.log`);
  await requireFreePort(PORT);
  const server: MarqueeServer = await startMarquee(database, logFile, [], [], PORT, options.unpinned ? '0,1' : '0');
  const others: Cores = options.unpinned ? '0,1' : '1';
  try {
    // The film list in use, compressed, as a site's pages would have it.
    await waitUntilSettled(PORT);
    const film = { name: 'one film', path: `/v4/film/${syntheticFilmId(Math.floor(options.films / 2))}`, headers: {} };
    await capture(PORT, film);
    await eventLoopDelayMaxMs();
    const before = await server.logged('catalogue published');
    const lastVersion = Number(before.at(-1)?.['version']) + IMPORTS_AT.length;
    const [load, ...importMs] = await Promise.all([
      wrk(PORT, film, options.seconds, options.connections, others),
      ...IMPORTS_AT.map((at, index) => importAt(at, database, editions[index + 1] as string, others)),
    ]);
    const delayMaxMs = await eventLoopDelayMaxMs();
    const loadEndedAt = performance.now();
    const publishedMs = await publishedSince(server, before.length, lastVersion);
    if (performance.now() - loadEndedAt > 1000) throw new Error('the imports were not in service before the load ended: the machine is too busy for this measurement');
    const result = { database: kind, unpinned: options.unpinned, films: options.films, connections: options.connections, seconds: options.seconds, load, importMs, publishedMs, eventLoopDelayMaxMs: delayMaxMs };
    console.log(
      `${kind}: ${load.requestsPerSecond.toFixed(0)} answers/s, p50 ${load.p50Ms.toFixed(2)} ms, p99 ${load.p99Ms.toFixed(2)} ms, slowest ${load.maxMs.toFixed(2)} ms, ${load.errors} errors; ` +
        `imports of ${importMs.map((ms) => ms.toFixed(0)).join(' and ')} ms, published in ${publishedMs.join(' and ')} ms; the server's event loop held up ${delayMaxMs.toFixed(1)} ms at most`,
    );
    return result;
  } finally {
    await stop(server.process);
  }
}

export async function benchImports(options: ImportsOptions): Promise<void> {
  requireTool('wrk', 'apt-get install wrk');
  requireTool('taskset', 'apt-get install util-linux');
  const work = await mkdtemp(join(tmpdir(), 'marquee-imports-'));
  try {
    console.log(
      `Marquee answering while it reads catalogues, on ${MACHINE}: ${options.films} films and a session each, one film asked by wrk with ${options.connections} connections for ${options.seconds} s, ` +
        `imports replacing every film ${IMPORTS_AT.map((at) => `at ${at} s`).join(' and ')}; ${options.unpinned ? 'server, wrk and imports sharing both cores' : 'server on core 0, wrk and imports on core 1'}`,
    );
    // Each edition changes every film's title, so that each import changes every film.
    const editions = [0, 1, 2].map((edition) => join(work, `catalogue-${edition}`));
    for (const [edition, directory] of editions.entries()) {
      await writeSyntheticCatalogue({ films: options.films, directory, edition, sessions: options.films });
    }
    const databases = [join(work, 'marquee.db')];
    if (options.postgres !== undefined) {
      await preparePostgres(options.postgres, true, '--imports-postgres');
      databases.push(options.postgres);
    }
    const run = beginRun();
    const results: ImportsResult[] = [];
    for (const database of databases) results.push(await importsOn(database, editions, options, work));
    const runResults: ImportsRunResults = { ...run.header(), imports: results };
    console.log(`results written to ${await writeResults(run.started, runResults, 'imports')}`);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
