/**
 * `npm run bench`: measures Marquee against the ceiling of Node.js on this machine, and against
 * the plain fastify app a user would write instead of Marquee.
 *
 * For generated catalogues of 100 and 5,000 films (`--sizes`) it starts `marquee serve` pinned to
 * core 0 and, once its lists are compressed, one bare node:http server (the ceiling) on the same
 * core that sends, for each scenario, the very same response on a port of its own. For a
 * catalogue of 1,000 films (`--plain-sizes`) it starts, beside Marquee, the plain fastify app
 * (plain-fastify-app.ts) and the same app as the fastify floor (`--floor`: answers serialised once,
 * Marquee's logger) on the same catalogue and core. wrk, pinned to core 1, drives Marquee and
 * the server it is measured against in turn, many short rounds each: the speed of a shared virtual
 * machine drifts by tens of percent from one minute to the next, and taking turns lets the drift
 * fall on both alike. Each figure is the median of its rounds, and the ratio the median of each
 * round's own ratio, the two runs of a round being a second apart; the quartiles of those ratios
 * show how much the rounds disagree. Each ratio is also measured with both servers driven at once
 * on the core they share (`sharedCoreRatios`), which a drifting machine disturbs less. It also
 * times start-up, a reload under load, the programme against the web sessions (programme.ts), and
 * memory (memory.ts). Figures are printed and written to
 * bench/results/DATE-MACHINE.json, which `node dist/bench/report.js FILE` puts into bench/README.md.
 *
 *     npm run bench [-- --duration 1 --rounds 9 --connections 64 --sizes 100,5000 --plain-sizes 1000
 *                      --memory-films 1000,5000,20000 --memory-database postgres://…/scratch]
 *
 * With `--programme` it measures the programme alone (programme.ts); with `--scale`, a server
 * with many customers instead (scale.ts); with `--imports`, a
 * server answering while imports make it read its catalogue again (imports.ts); with `--sync`, one
 * sync process mirroring many cinemas (sync.ts); with `--changes`, what one small change costs a
 * server holding a cinema (changes.ts); with `--webhooks`, a server delivering the webhooks of
 * many cinemas that change once a minute (webhooks.ts); with `--images`, what pictures cost, and
 * a film's answer while 200 are resized (images.ts).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { syntheticFilmId, writeSyntheticCatalogue } from '../scripts/generate-catalogue.js';
import { scriptOptions } from '../scripts/script-options.js';
import type { CapturedResponse } from './ceiling-server.js';
import {
  beginRun,
  capture,
  CEILING_PORT,
  compare,
  MACHINE,
  MARQUEE_PORT,
  requireTool,
  ROOT,
  rssMegabytes,
  runCli,
  sleep,
  startCeiling,
  startLogging,
  startMarquee,
  stop,
  waitUntilAnswering,
  waitUntilSettled,
  writeResults,
  wrk,
  type Baseline,
  type Rounds,
  type Scenario,
} from './harness.js';
import { measureMemory } from './memory.js';
import { benchProgramme } from './programme.js';
import type { BenchResults, ScenarioResult, SizeResult } from './results.js';
import { benchChanges } from './changes.js';
import { benchImages } from './images.js';
import { benchImports } from './imports.js';
import { benchScale } from './scale.js';
import { benchSync } from './sync.js';
import { benchWebhooks } from './webhooks.js';

const PLAIN_APP = join(ROOT, 'dist', 'bench', 'plain-fastify-app.js');

/** A baseline served by plain-fastify-app.ts, started with `args`. */
interface FastifyApp extends Baseline {
  readonly args: readonly string[];
}

const PLAIN: FastifyApp = { name: 'plain fastify', port: 18_180, args: [] };
const FLOOR: FastifyApp = { name: 'fastify floor', port: 18_179, args: ['--floor'] };

const options = scriptOptions(
  {
    duration: { type: 'string', default: '1' },
    rounds: { type: 'string', default: '9' },
    connections: { type: 'string', default: '64' },
    sizes: { type: 'string', default: '100,5000' },
    'plain-sizes': { type: 'string', default: '1000' },
    'memory-films': { type: 'string', default: '1000,5000,20000' },
    'memory-database': { type: 'string' },
    scale: { type: 'boolean', default: false },
    'scale-customers': { type: 'string', default: '5000' },
    'scale-films': { type: 'string', default: '400' },
    'scale-sessions': { type: 'string' },
    'scale-database': { type: 'string' },
    'scale-seconds': { type: 'string', default: '30' },
    'cache-memory': { type: 'string', default: '512MiB' },
    imports: { type: 'boolean', default: false },
    'imports-films': { type: 'string', default: '5000' },
    'imports-seconds': { type: 'string', default: '30' },
    'imports-connections': { type: 'string', default: '256' },
    'imports-postgres': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/marquee_bench_imports' },
    'imports-unpinned': { type: 'boolean', default: false },
    programme: { type: 'boolean', default: false },
    changes: { type: 'boolean', default: false },
    'changes-count': { type: 'string', default: '40' },
    'changes-warm-up': { type: 'string', default: '300' },
    'changes-postgres': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/marquee_bench_changes' },
    'changes-against': { type: 'string' },
    'changes-node-flags': { type: 'string', default: '' },
    'changes-customers': { type: 'string', default: '1' },
    images: { type: 'boolean', default: false },
    'images-seconds': { type: 'string', default: '15' },
    sync: { type: 'boolean', default: false },
    'sync-customers': { type: 'string', default: '1000' },
    'sync-films': { type: 'string', default: '400' },
    'sync-sessions': { type: 'string', default: '300' },
    'sync-database': { type: 'string' },
    'sync-minutes': { type: 'string', default: '5' },
    'sync-concurrency': { type: 'string', default: '8' },
    'sync-per-host': { type: 'string', default: '8' },
    'sync-clients': { type: 'string', default: '4' },
    'sync-node-flags': { type: 'string', default: '' },
    webhooks: { type: 'boolean', default: false },
    'webhooks-cinemas': { type: 'string', default: '1000' },
    'webhooks-minutes': { type: 'string', default: '2' },
    'webhooks-database': { type: 'string' },
    'webhooks-baseline': { type: 'boolean', default: false },
  },
  'usage: npm run bench [-- OPTIONS]; the options and what each scenario measures are in bench/README.md',
);
const ROUNDS: Rounds = { duration: Number(options.duration), rounds: Number(options.rounds), connections: Number(options.connections) };
const sizeList = (text: string): number[] => (text === '' ? [] : text.split(',').map(Number));
/** Catalogue sizes at which Marquee is measured against the ceiling. */
const SIZES = sizeList(options.sizes);
/** Catalogue sizes at which Marquee is measured against the plain fastify app. */
const PLAIN_SIZES = sizeList(options['plain-sizes']);

const AUTHENTICATED = 'one film, token';

/** Starts the plain fastify app or the floor on the catalogue Marquee serves, and checks that it answers each scenario alike. */
async function startFastifyApp(baseline: FastifyApp, catalogue: string, logFile: string, scenarios: readonly Scenario[]): Promise<ChildProcess> {
  const child = await startLogging([PLAIN_APP, String(baseline.port), catalogue, ...baseline.args], logFile);
  await waitUntilAnswering(baseline.port, '/v4/film');
  for (const scenario of scenarios) {
    const [marquee, plain] = await Promise.all([capture(MARQUEE_PORT, scenario), capture(baseline.port, scenario)]);
    const body = (response: CapturedResponse): unknown => JSON.parse(Buffer.from(response.bodyBase64, 'base64').toString('utf8'));
    if (marquee.status !== plain.status || !isDeepStrictEqual(body(marquee), body(plain))) throw new Error(`the ${baseline.name} app answers ${scenario.name} otherwise than Marquee`);
  }
  return child;
}

interface SizeParts {
  /** Marquee against the ceiling, a token and a reload. */
  readonly ceiling: boolean;
  /** Marquee against the plain fastify app. */
  readonly plain: boolean;
}

async function benchSize(films: number, work: string, parts: SizeParts): Promise<SizeResult> {
  const catalogue = join(work, `catalogue-${films}`);
  const database = join(work, `marquee-${films}.db`);
  // The demo cinema's site, screens and attributes, and a session of each film: the session list is as long as the film list.
  await writeSyntheticCatalogue({ films, directory: catalogue, sessions: films });
  runCli(['import', '--database', database, catalogue]);

  const server = await startMarquee(database, join(work, `server-${films}.log`));
  const baselines: ChildProcess[] = [];
  try {
    await waitUntilSettled(MARQUEE_PORT);
    const rssMb = await rssMegabytes(server.process.pid as number);
    const film = `/v4/film/${syntheticFilmId(Math.floor(films / 2))}`;
    const etag = (await capture(MARQUEE_PORT, { name: 'etag', path: film, headers: {} })).headers['etag'] ?? '';
    const oneFilm: Scenario = { name: 'one film JSON', path: film, headers: {} };
    const list: Scenario = { name: 'film list JSON', path: '/v4/film', headers: {} };
    const onePackage: Scenario = { name: 'one package', path: '/v1/filmpackage/1', headers: {} };
    const notFound: Scenario = { name: '404', path: '/v4/film/NO-SUCH-FILM', headers: {} };
    const scenarios: Scenario[] = [
      oneFilm,
      { name: 'one film XML', path: film, headers: { accept: 'application/xml' } },
      list,
      { name: 'film list gzip', path: '/v4/film', headers: { 'accept-encoding': 'gzip' } },
      { name: 'session list JSON', path: '/v1/session', headers: {} },
      onePackage,
      { name: '304 revalidation', path: film, headers: { 'if-none-match': etag } },
      notFound,
    ];
    /**
     * The plain app takes about 15 ms to serialise the list of 1,000 films, and the answers to the
     * connections of a round come out together, in bursts: with 64 connections a round of 1 s held
     * one burst or none (none at all on a shared core). With 16 connections a round of 3 s holds ten.
     */
    const plainScenarios = [oneFilm, { ...list, connections: 16, seconds: 3 * ROUNDS.duration }, onePackage, notFound];
    const responseFiles: string[] = [];
    for (const [index, scenario] of scenarios.entries()) {
      responseFiles.push(join(work, `response-${index}.json`));
      await writeFile(responseFiles[index] as string, JSON.stringify(await capture(MARQUEE_PORT, scenario)));
    }
    // The servers Marquee is measured against start together and live through every scenario.
    const [ceiling, ...fastifyApps] = await Promise.all([
      parts.ceiling ? startCeiling(responseFiles) : undefined,
      ...(parts.plain ? [PLAIN, FLOOR].map((baseline) => startFastifyApp(baseline, catalogue, join(work, `${baseline.name.replace(' ', '-')}-${films}.log`), plainScenarios)) : []),
    ]);
    for (const child of [ceiling, ...fastifyApps]) if (child !== undefined) baselines.push(child);

    const results: ScenarioResult[] = [];
    if (ceiling !== undefined) for (const [index, scenario] of scenarios.entries()) results.push(await compare(films, scenario, { name: 'ceiling', port: CEILING_PORT + index }, ROUNDS));
    if (parts.plain) for (const baseline of [PLAIN, FLOOR]) for (const scenario of plainScenarios) results.push(await compare(films, scenario, baseline, ROUNDS));
    if (ceiling === undefined) return { films, results, readyMs: server.readyMs, rssMb };

    // Last: issuing the first token closes the service, and from then on every request needs one.
    const token = runCli(['token', 'create', '--database', database, '--customer', 'default']).trim();
    const authenticated: Scenario = { name: AUTHENTICATED, path: film, headers: { veeziaccesstoken: token } };
    await waitUntilAnswering(MARQUEE_PORT, film, authenticated.headers);
    // A token changes who may ask, not the answer: the ceiling of the first scenario serves it.
    const answer = await capture(MARQUEE_PORT, authenticated);
    if (JSON.stringify(answer) !== (await readFile(responseFiles[0] as string, 'utf8'))) throw new Error('the answer with a token differs from the one without');
    results.push(await compare(films, authenticated, { name: 'ceiling', port: CEILING_PORT }, ROUNDS));
    for (const child of baselines) await stop(child);

    if (films < 1000) return { films, results, readyMs: server.readyMs, rssMb };
    // A reload of the whole catalogue under load: every film changes.
    const next = join(work, `catalogue-${films}-b`);
    await writeSyntheticCatalogue({ films, directory: next, edition: 2 });
    const load = wrk(MARQUEE_PORT, authenticated, 6, 16);
    await sleep(2000);
    runCli(['import', '--database', database, '--replace', next]);
    const during = await load;
    const loaded = (await server.logged('catalogue published')).at(-1);
    const reload = { reloadMs: Number(loaded?.['durationMs']), maxLatencyMs: during.maxMs, p99Ms: during.p99Ms };
    console.log(`reload of ${films} films: ${reload.reloadMs} ms; under load (16 connections) p99 ${reload.p99Ms.toFixed(2)} ms, slowest request ${reload.maxLatencyMs.toFixed(2)} ms`);
    return { films, results, readyMs: server.readyMs, rssMb, reload };
  } finally {
    for (const child of baselines) await stop(child);
    await stop(server.process);
  }
}

async function main(): Promise<void> {
  requireTool('wrk', 'apt-get install wrk');
  requireTool('taskset', 'apt-get install util-linux');
  const work = await mkdtemp(join(tmpdir(), 'marquee-bench-'));
  console.log(`Marquee benchmark on ${MACHINE}; ${ROUNDS.rounds} rounds of ${ROUNDS.duration} s each, ${ROUNDS.connections} connections, servers on core 0, wrk on core 1`);
  const run = beginRun();
  try {
    const sizes: SizeResult[] = [];
    for (const films of [...new Set([...SIZES, ...PLAIN_SIZES])].sort((a, b) => a - b)) {
      const size = await benchSize(films, work, { ceiling: SIZES.includes(films), plain: PLAIN_SIZES.includes(films) });
      console.log(`${films} films: ready in ${size.readyMs.toFixed(0)} ms after start, RSS ${size.rssMb.toFixed(1)} MB once the catalogue is published`);
      sizes.push(size);
    }
    const [small, large] = [sizes[0], sizes.at(-1)];
    if (small && large && large.films > small.films) {
      const perThousand = ((large.rssMb - small.rssMb) / (large.films - small.films)) * 1000;
      console.log(`memory: ${perThousand.toFixed(1)} MB RSS per 1,000 films (from ${small.films} to ${large.films} films, once published)`);
    }
    const programme = await benchProgramme(work, ROUNDS);
    const memory = await measureMemory(sizeList(options['memory-films']), options['memory-database']);
    console.log(`memory on ${memory.database}: a server on an empty catalogue ${memory.emptyServerRssMiB.toFixed(1)} MiB RSS`);
    for (const row of memory.rows) {
      const perThousand = (mib: number) => ((mib / row.films) * 1000).toFixed(1);
      console.log(
        `${String(row.films).padStart(6)} films: retained ${row.retainedMiB.toFixed(1)} MiB (${perThousand(row.retainedMiB)} per 1,000 films), counted ${row.countedMiB.toFixed(1)} MiB, server RSS ${row.serverRssMiB.toFixed(1)} MiB above an empty server (${perThousand(row.serverRssMiB)} per 1,000 films)`,
      );
    }
    const results: BenchResults = { ...run.header(), duration: ROUNDS.duration, rounds: ROUNDS.rounds, connections: ROUNDS.connections, sizes, programme, memory };
    const file = await writeResults(run.started, results);
    console.log(`results written to ${file}; to put them into bench/README.md: node dist/bench/report.js ${file}`);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

if (options.changes) {
  await benchChanges({
    changes: Number(options['changes-count']),
    warmUp: Number(options['changes-warm-up']),
    postgres: options['changes-postgres'] === '' ? undefined : options['changes-postgres'],
    against: options['changes-against'],
    nodeFlags: options['changes-node-flags'].split(' ').filter((flag) => flag !== ''),
    customers: Number(options['changes-customers']),
  });
} else if (options.webhooks) {
  await benchWebhooks({
    cinemas: Number(options['webhooks-cinemas']),
    minutes: Number(options['webhooks-minutes']),
    database: options['webhooks-database'],
    baseline: options['webhooks-baseline'],
  });
} else if (options.images) {
  await benchImages({ seconds: Number(options['images-seconds']) });
} else if (options.sync) {
  await benchSync({
    customers: Number(options['sync-customers']),
    films: Number(options['sync-films']),
    sessions: Number(options['sync-sessions']),
    database: options['sync-database'],
    minutes: Number(options['sync-minutes']),
    concurrency: Number(options['sync-concurrency']),
    perHost: Number(options['sync-per-host']),
    clients: Number(options['sync-clients']),
    syncNodeFlags: options['sync-node-flags'].split(' ').filter((flag) => flag !== ''),
  });
} else if (options.imports) {
  await benchImports({
    films: Number(options['imports-films']),
    seconds: Number(options['imports-seconds']),
    connections: Number(options['imports-connections']),
    postgres: options['imports-postgres'] === '' ? undefined : options['imports-postgres'],
    unpinned: options['imports-unpinned'],
  });
} else if (options.programme) {
  const work = await mkdtemp(join(tmpdir(), 'marquee-bench-'));
  try {
    await benchProgramme(work, ROUNDS);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
} else if (options.scale) {
  await benchScale(
    {
      customers: Number(options['scale-customers']),
      films: Number(options['scale-films']),
      sessions: options['scale-sessions'] === undefined ? undefined : Number(options['scale-sessions']),
      database: options['scale-database'],
      cacheMemory: options['cache-memory'],
      seconds: Number(options['scale-seconds']),
    },
    ROUNDS,
  );
} else {
  await main();
}
