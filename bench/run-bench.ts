/**
 * `npm run bench`: measures Marquee against the ceiling of Node.js on this machine, and against
 * the plain fastify app a user would write instead of Marquee.
 *
 * For generated catalogues of 100 and 5,000 films (`--sizes`) it starts `marquee serve` pinned to
 * core 0 and, once its lists are compressed, one bare node:http server (the ceiling) on the same
 * core that sends, for each scenario, the very same response on a port of its own. For a
 * catalogue of 1,000 films (`--plain-sizes`) it starts, beside Marquee, the plain fastify app
 * (plain-fastify-app.ts) on the same catalogue and core. wrk, pinned to core 1, drives Marquee and
 * the server it is measured against in turn, many short rounds each: the speed of a shared virtual
 * machine drifts by tens of percent from one minute to the next, and taking turns lets the drift
 * fall on both alike. Each figure is the median of its rounds, and the ratio the median of each
 * round's own ratio, the two runs of a round being a second apart; the quartiles of those ratios
 * show how much the rounds disagree. Each ratio is also measured with both servers driven at once
 * on the core they share (`sharedCoreRatios`), which a drifting machine disturbs less. It also
 * times start-up, a reload under load, and memory (memory.ts). Figures are printed and written to
 * bench/results/DATE-MACHINE.json, which `node dist/bench/report.js FILE` puts into bench/README.md.
 *
 *     npm run bench [-- --duration 1 --rounds 9 --connections 64 --sizes 100,5000 --plain-sizes 1000
 *                      --memory-films 1000,5000,20000 --memory-database postgres://…/scratch]
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createReadStream } from 'node:fs';
import { copyFile, mkdir, mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual, parseArgs } from 'node:util';
import { syntheticFilmId, writeSyntheticCatalogue } from '../scripts/generate-catalogue.js';
import type { CapturedResponse } from './ceiling-server.js';
import { measureMemory } from './memory.js';
import type { BaselineName, BenchResults, ScenarioResult, SizeResult, WrkFigures } from './results.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MARQUEE = join(ROOT, 'bin', 'marquee.js');
const CEILING = join(ROOT, 'dist', 'bench', 'ceiling-server.js');
const PLAIN = join(ROOT, 'dist', 'bench', 'plain-fastify-app.js');
const PLAIN_PORT = 18_180;
const MARQUEE_PORT = 18_181;
const CEILING_PORT = 18_182;
/**
 * V8 flags of both servers. Taking turns, each server sits idle every other second, and V8's
 * memory reducer, which shrinks the heap of a process it finds idle, fired in one of the two
 * about 100 s into a run; the process it shrank then answered about a quarter slower until the
 * run ended (the ceiling in some runs, Marquee in others). A server under the steady load the
 * figures stand for is never idle, so both run without it.
 */
const SERVER_FLAGS = ['--no-memory-reducer'];

interface Scenario {
  readonly name: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  /** wrk's connections and seconds per round, when not the run's own. */
  readonly connections?: number;
  readonly seconds?: number;
}

interface Baseline {
  readonly name: BaselineName;
  readonly port: number;
}

const { values: options } = parseArgs({
  options: {
    duration: { type: 'string', default: '1' },
    rounds: { type: 'string', default: '9' },
    connections: { type: 'string', default: '64' },
    sizes: { type: 'string', default: '100,5000' },
    'plain-sizes': { type: 'string', default: '1000' },
    'memory-films': { type: 'string', default: '1000,5000,20000' },
    'memory-database': { type: 'string' },
  },
});
/** Seconds per round. */
const DURATION = Number(options.duration);
const ROUNDS = Number(options.rounds);
const CONNECTIONS = Number(options.connections);
const sizeList = (text: string): number[] => (text === '' ? [] : text.split(',').map(Number));
/** Catalogue sizes at which Marquee is measured against the ceiling. */
const SIZES = sizeList(options.sizes);
/** Catalogue sizes at which Marquee is measured against the plain fastify app. */
const PLAIN_SIZES = sizeList(options['plain-sizes']);

function requireTool(command: string, install: string): void {
  if (spawnSync('sh', ['-c', `command -v ${command}`]).status !== 0) {
    console.error(`bench: ${command} is not installed; install it with: ${install}`);
    process.exit(1);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends one request and keeps the whole response, for the ceiling to replay. */
function capture(port: number, scenario: Scenario): Promise<CapturedResponse> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: scenario.path, headers: scenario.headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(response.headers)) {
          // Node's http server writes these itself.
          if (!['date', 'connection', 'keep-alive', 'transfer-encoding'].includes(name) && typeof value === 'string') headers[name] = value;
        }
        const keepAlive = response.headers['keep-alive'];
        resolve({ status: response.statusCode ?? 0, headers, keepAlive: typeof keepAlive === 'string' ? keepAlive : undefined, bodyBase64: Buffer.concat(chunks).toString('base64') });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

async function waitUntilAnswering(port: number, path: string, headers: Readonly<Record<string, string>> = {}): Promise<void> {
  for (let attempt = 0; attempt < 600; attempt++) {
    const answered = await capture(port, { name: 'probe', path, headers }).then((r) => r.status === 200, () => false);
    if (answered) return;
    await sleep(10);
  }
  throw new Error(`nothing answered on port ${port}`);
}

function pinned(core: number, args: readonly string[], output: 'pipe' | number, onLine?: (line: string) => void): ChildProcess {
  const child = spawn('taskset', ['-c', String(core), ...args], { stdio: ['ignore', output, 'inherit'] });
  child.stdout?.setEncoding('utf8').on('data', (text: string) => text.split('\n').forEach((line) => line && onLine?.(line)));
  return child;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  child.kill('SIGTERM');
  await once(child, 'exit');
}

function parseDuration(text: string): number {
  const match = /^([\d.]+)(us|ms|s|m)$/.exec(text.trim());
  if (!match) return Number.NaN;
  const value = Number(match[1]);
  return { us: value / 1000, ms: value, s: value * 1000, m: value * 60_000 }[match[2] as 'us' | 'ms' | 's' | 'm'];
}

async function wrk(port: number, scenario: Scenario, seconds = scenario.seconds ?? DURATION, connections = scenario.connections ?? CONNECTIONS): Promise<WrkFigures> {
  const headers = Object.entries(scenario.headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`]);
  const child = spawn('taskset', ['-c', '1', 'wrk', '-t1', `-c${connections}`, `-d${seconds}s`, '--latency', ...headers, `http://127.0.0.1:${port}${scenario.path}`], { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => (output += text));
  await once(child, 'exit');
  const find = (pattern: RegExp) => pattern.exec(output)?.[1] ?? '';
  return {
    requestsPerSecond: Number(find(/Requests\/sec:\s+([\d.]+)/)),
    p50Ms: parseDuration(find(/^\s+50%\s+(\S+)/m)),
    p99Ms: parseDuration(find(/^\s+99%\s+(\S+)/m)),
    maxMs: parseDuration(find(/Latency\s+\S+\s+\S+\s+(\S+)/)),
    errors: Number(find(/Socket errors: connect (\d+)/) || 0) + Number(find(/read (\d+), write/) || 0) + Number(find(/timeout (\d+)/) || 0),
  };
}

/** The value below which a share `q` of the others lie: 0.5 for the median. */
function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) * q)] as number;
}

const median = (values: readonly number[]): number => quantile(values, 0.5);

const quartiles = (values: readonly number[]): [number, number] => [quantile(values, 0.25), quantile(values, 0.75)];

/** The median of each figure over the rounds. */
function medianFigures(rounds: readonly WrkFigures[]): WrkFigures {
  const of = (figure: keyof WrkFigures) => median(rounds.map((round) => round[figure]));
  return { requestsPerSecond: of('requestsPerSecond'), p50Ms: of('p50Ms'), p99Ms: of('p99Ms'), maxMs: of('maxMs'), errors: of('errors') };
}

function rssMegabytes(pid: number): number {
  const status = spawnSync('cat', [`/proc/${pid}/status`], { encoding: 'utf8' }).stdout;
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

function runCli(args: readonly string[]): string {
  const result = spawnSync('taskset', ['-c', '1', process.execPath, MARQUEE, ...args], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`marquee ${args.join(' ')} failed: ${result.stderr}`);
  return result.stdout;
}

const AUTHENTICATED = 'one film, token';

interface MarqueeServer {
  readonly process: ChildProcess;
  /** From start until /readyz answers 200: the database read, no catalogue published yet. */
  readonly readyMs: number;
  /** The lines the server logged with this message so far. */
  logged(message: string): Promise<Record<string, unknown>[]>;
}

/**
 * Starts a server (Marquee or the plain fastify app) pinned to core 0. Its log goes to a file, as
 * an operator's would: read through a pipe, it would take the load generator's core.
 */
async function startLogging(args: readonly string[], logFile: string): Promise<ChildProcess> {
  const logHandle = await open(logFile, 'w');
  const child = pinned(0, [process.execPath, ...SERVER_FLAGS, ...args], logHandle.fd);
  await logHandle.close();
  return child;
}

async function startMarquee(database: string, logFile: string): Promise<MarqueeServer> {
  const started = performance.now();
  const child = await startLogging([MARQUEE, 'serve', '--database', database, '--port', String(MARQUEE_PORT)], logFile);
  // /readyz needs no token, so it also tells when a server closed by a token is ready.
  await waitUntilAnswering(MARQUEE_PORT, '/readyz');
  return {
    process: child,
    readyMs: performance.now() - started,
    async logged(message) {
      const lines: Record<string, unknown>[] = [];
      // Line by line: a whole run's request log outgrows the longest string V8 can hold.
      for await (const line of createInterface({ input: createReadStream(logFile), crlfDelay: Infinity })) {
        if (line.includes(`"msg":"${message}"`)) lines.push(JSON.parse(line) as Record<string, unknown>);
      }
      return lines;
    },
  };
}

/**
 * Waits until the film list goes out compressed: the first request publishes the catalogue, and
 * a large list is compressed in the background from its first compressed request.
 */
async function waitUntilSettled(port: number): Promise<void> {
  const list: Scenario = { name: 'settle', path: '/v4/film', headers: { 'accept-encoding': 'gzip' } };
  for (let attempt = 0; attempt < 600; attempt++) {
    if ((await capture(port, list)).headers['content-encoding'] === 'gzip') break;
    await sleep(50);
  }
  // The garbage of the publication collected.
  await sleep(1000);
}

/**
 * The ratio measured a second way: both servers driven at once, each by its own wrk, while they
 * share core 0. The scheduler gives each half of the core, so the ratio of their rates is the
 * ratio of what a request costs each, and a change in the machine's speed falls on both in the
 * same instant rather than a second apart. On a virtual machine whose speed drifts from one
 * second to the next, these rounds agree more closely than rounds taken in turn.
 */
async function sharedCoreRatios(scenario: Scenario, baselinePort: number): Promise<number[]> {
  const ratios: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const [marquee, baseline] = await Promise.all([wrk(MARQUEE_PORT, scenario), wrk(baselinePort, scenario)]);
    ratios.push(marquee.requestsPerSecond / baseline.requestsPerSecond);
  }
  return ratios;
}

/** Marquee and a baseline answering the same request, warmed up, then driven in turn and at once. */
async function compare(films: number, scenario: Scenario, against: Baseline): Promise<ScenarioResult> {
  await wrk(MARQUEE_PORT, scenario, 1);
  await wrk(against.port, scenario, 1);
  const rounds: { marquee: WrkFigures; baseline: WrkFigures }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    // Every other round the baseline goes first, so that a drift within a round favours neither.
    if (round % 2 === 0) rounds.push({ marquee: await wrk(MARQUEE_PORT, scenario), baseline: await wrk(against.port, scenario) });
    else rounds.push({ baseline: await wrk(against.port, scenario), marquee: await wrk(MARQUEE_PORT, scenario) });
  }
  const marquee = medianFigures(rounds.map((round) => round.marquee));
  const baseline = medianFigures(rounds.map((round) => round.baseline));
  // Each round's two runs share the machine's speed of the moment: the ratio is taken per round.
  const roundRatios = rounds.map((round) => round.marquee.requestsPerSecond / round.baseline.requestsPerSecond);
  const sharedRatios = await sharedCoreRatios(scenario, against.port);
  const result: ScenarioResult = {
    films,
    scenario: scenario.name,
    against: against.name,
    connections: scenario.connections ?? CONNECTIONS,
    seconds: scenario.seconds ?? DURATION,
    marquee,
    baseline,
    ratio: median(roundRatios),
    ratioQuartiles: quartiles(roundRatios),
    roundRatios,
    sharedCore: { ratio: median(sharedRatios), quartiles: quartiles(sharedRatios), roundRatios: sharedRatios },
  };
  console.log(formatRow(result));
  return result;
}

/** Starts the ceiling, which serves each captured response on a port of its own from CEILING_PORT on. */
async function startCeiling(responseFiles: readonly string[]): Promise<ChildProcess> {
  let ready: () => void = () => {};
  const listening = new Promise<void>((resolve) => (ready = resolve));
  const child = pinned(0, [process.execPath, ...SERVER_FLAGS, CEILING, String(CEILING_PORT), ...responseFiles], 'pipe', (line) => line === 'ready' && ready());
  await listening;
  return child;
}

/**
 * The demo cinema's site, screens and attributes, and one session of each film, so that the
 * session list is as long as the film list.
 */
async function writeProgramme(directory: string, films: number): Promise<void> {
  for (const name of ['site', 'screens', 'attributes']) await copyFile(join(ROOT, 'demo', `${name}.json`), join(directory, `${name}.json`));
  const at = (ms: number): string => new Date(ms).toISOString().slice(0, 19);
  const sessions = Array.from({ length: films }, (_, index) => {
    const start = Date.UTC(2030, 0, 1) + index * 3_600_000;
    return {
      Id: index + 1,
      FilmId: syntheticFilmId(index),
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
  });
  await writeFile(join(directory, 'sessions.json'), JSON.stringify(sessions));
}

/** Starts the plain fastify app on the catalogue Marquee serves, and checks that it answers each scenario alike. */
async function startPlain(catalogue: string, logFile: string, scenarios: readonly Scenario[]): Promise<ChildProcess> {
  const child = await startLogging([PLAIN, String(PLAIN_PORT), catalogue], logFile);
  for (const scenario of scenarios) {
    await waitUntilAnswering(PLAIN_PORT, scenario.path);
    const [marquee, plain] = await Promise.all([capture(MARQUEE_PORT, scenario), capture(PLAIN_PORT, scenario)]);
    const body = (response: CapturedResponse): unknown => JSON.parse(Buffer.from(response.bodyBase64, 'base64').toString('utf8'));
    if (!isDeepStrictEqual(body(marquee), body(plain))) throw new Error(`the plain fastify app answers ${scenario.name} otherwise than Marquee`);
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
  await writeSyntheticCatalogue({ films, directory: catalogue });
  await writeProgramme(catalogue, films);
  runCli(['import', '--database', database, catalogue]);

  const server = await startMarquee(database, join(work, `server-${films}.log`));
  const baselines: ChildProcess[] = [];
  try {
    await waitUntilSettled(MARQUEE_PORT);
    const rssMb = rssMegabytes(server.process.pid as number);
    const film = `/v4/film/${syntheticFilmId(Math.floor(films / 2))}`;
    const etag = (await capture(MARQUEE_PORT, { name: 'etag', path: film, headers: {} })).headers['etag'] ?? '';
    const oneFilm: Scenario = { name: 'one film JSON', path: film, headers: {} };
    const list: Scenario = { name: 'film list JSON', path: '/v4/film', headers: {} };
    const onePackage: Scenario = { name: 'one package', path: '/v1/filmpackage/1', headers: {} };
    const scenarios: Scenario[] = [
      oneFilm,
      { name: 'one film XML', path: film, headers: { accept: 'application/xml' } },
      list,
      { name: 'film list gzip', path: '/v4/film', headers: { 'accept-encoding': 'gzip' } },
      { name: 'session list JSON', path: '/v1/session', headers: {} },
      onePackage,
      { name: '304 revalidation', path: film, headers: { 'if-none-match': etag } },
      { name: '404', path: '/v4/film/NO-SUCH-FILM', headers: {} },
    ];
    /**
     * The plain app takes about 15 ms to serialise the list of 1,000 films, and the answers to the
     * connections of a round come out together, in bursts: with 64 connections a round of 1 s held
     * one burst or none (none at all on a shared core). With 16 connections a round of 3 s holds ten.
     */
    const plainScenarios = [oneFilm, { ...list, connections: 16, seconds: 3 * DURATION }, onePackage];
    const responseFiles: string[] = [];
    for (const [index, scenario] of scenarios.entries()) {
      responseFiles.push(join(work, `response-${index}.json`));
      await writeFile(responseFiles[index] as string, JSON.stringify(await capture(MARQUEE_PORT, scenario)));
    }
    // The servers Marquee is measured against start together and live through every scenario.
    const [ceiling, plain] = await Promise.all([
      parts.ceiling ? startCeiling(responseFiles) : undefined,
      parts.plain ? startPlain(catalogue, join(work, `plain-${films}.log`), plainScenarios) : undefined,
    ]);
    for (const child of [ceiling, plain]) if (child !== undefined) baselines.push(child);

    const results: ScenarioResult[] = [];
    if (ceiling !== undefined) for (const [index, scenario] of scenarios.entries()) results.push(await compare(films, scenario, { name: 'ceiling', port: CEILING_PORT + index }));
    if (plain !== undefined) for (const scenario of plainScenarios) results.push(await compare(films, scenario, { name: 'plain fastify', port: PLAIN_PORT }));
    if (ceiling === undefined) return { films, results, readyMs: server.readyMs, rssMb };

    // Last: issuing the first token closes the service, and from then on every request needs one.
    const token = runCli(['token', 'create', '--database', database, '--customer', 'default']).trim();
    const authenticated: Scenario = { name: AUTHENTICATED, path: film, headers: { veeziaccesstoken: token } };
    await waitUntilAnswering(MARQUEE_PORT, film, authenticated.headers);
    // A token changes who may ask, not the answer: the ceiling of the first scenario serves it.
    const answer = await capture(MARQUEE_PORT, authenticated);
    if (JSON.stringify(answer) !== (await readFile(responseFiles[0] as string, 'utf8'))) throw new Error('the answer with a token differs from the one without');
    results.push(await compare(films, authenticated, { name: 'ceiling', port: CEILING_PORT }));
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

const formatRatio = (ratio: number, [first, third]: readonly [number, number]): string => `${ratio.toFixed(2)}, quartiles ${first.toFixed(2)}-${third.toFixed(2)}`;

function formatRow(result: ScenarioResult): string {
  const { marquee, baseline } = result;
  return [
    String(result.films).padStart(5),
    result.scenario.padEnd(22),
    `${marquee.requestsPerSecond.toFixed(0).padStart(7)} req/s`,
    `p50 ${marquee.p50Ms.toFixed(2).padStart(6)} ms`,
    `p99 ${marquee.p99Ms.toFixed(2).padStart(6)} ms`,
    `${result.against.padStart(13)} ${baseline.requestsPerSecond.toFixed(0).padStart(7)} req/s`,
    `ratio ${formatRatio(result.ratio, result.ratioQuartiles)}`,
    `shared core ${formatRatio(result.sharedCore.ratio, result.sharedCore.quartiles)}`,
  ].join('  ');
}

const formatLoad = (load: readonly number[]): string => load.map((value) => value.toFixed(2)).join(', ');

async function main(): Promise<void> {
  requireTool('wrk', 'apt-get install wrk');
  requireTool('taskset', 'apt-get install util-linux');
  const work = await mkdtemp(join(tmpdir(), 'marquee-bench-'));
  const started = new Date();
  const startLoad = loadavg();
  const model = cpus()[0]?.model ?? 'unknown CPU';
  const machine = `${model}, ${cpus().length} cores, Node.js ${process.version}`;
  console.log(`Marquee benchmark on ${machine}; ${ROUNDS} rounds of ${DURATION} s each, ${CONNECTIONS} connections, servers on core 0, wrk on core 1`);
  console.log(`load average at start: ${formatLoad(startLoad)}`);
  try {
    const sizes: SizeResult[] = [];
    for (const films of [...new Set([...SIZES, ...PLAIN_SIZES])].sort((a, b) => a - b)) {
      const size = await benchSize(films, work, { ceiling: SIZES.includes(films), plain: PLAIN_SIZES.includes(films) });
      console.log(`${films} films: ready in ${size.readyMs.toFixed(0)} ms after start, RSS ${size.rssMb.toFixed(1)} MB once published`);
      sizes.push(size);
    }
    const [small, large] = [sizes[0], sizes.at(-1)];
    if (small && large && large.films > small.films) {
      const perThousand = ((large.rssMb - small.rssMb) / (large.films - small.films)) * 1000;
      console.log(`memory: ${perThousand.toFixed(1)} MB RSS per 1,000 films (from ${small.films} to ${large.films} films, right after load)`);
    }
    const memory = await measureMemory(sizeList(options['memory-films']), options['memory-database']);
    console.log(`memory on ${memory.database}: a server on an empty catalogue ${memory.emptyServerRssMiB.toFixed(1)} MiB RSS`);
    for (const row of memory.rows) {
      const perThousand = (mib: number) => ((mib / row.films) * 1000).toFixed(1);
      console.log(
        `${String(row.films).padStart(6)} films: retained ${row.retainedMiB.toFixed(1)} MiB (${perThousand(row.retainedMiB)} per 1,000 films), counted ${row.countedMiB.toFixed(1)} MiB, server RSS ${row.serverRssMiB.toFixed(1)} MiB above an empty server (${perThousand(row.serverRssMiB)} per 1,000 films)`,
      );
    }
    const endLoad = loadavg();
    console.log(`load average at end: ${formatLoad(endLoad)}`);
    const results: BenchResults = {
      date: started.toISOString(),
      machine,
      loadAverage: { start: startLoad, end: endLoad },
      duration: DURATION,
      rounds: ROUNDS,
      connections: CONNECTIONS,
      sizes,
      memory,
    };
    const resultsDir = join(ROOT, 'bench', 'results');
    await mkdir(resultsDir, { recursive: true });
    const slug = `${model}-${cpus().length}-cores`.toLowerCase().replace(/[^a-z0-9]+/g, '-');
    const file = join(resultsDir, `${started.toISOString().slice(0, 16).replace(':', '-')}-${slug}.json`);
    await writeFile(file, `${JSON.stringify(results, null, 2)}\n`);
    console.log(`results written to ${file}; to put them into bench/README.md: node dist/bench/report.js ${file}`);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

await main();
