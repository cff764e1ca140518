/**
 * What every benchmark run shares: servers pinned to core 0 and wrk to core 1, Marquee measured
 * against the ceiling in turn and on a shared core, and the results file. run-bench.ts explains
 * the method; scale.ts applies it to a server with many customers, imports.ts to a server reading
 * catalogues while it answers.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createReadStream } from 'node:fs';
import { mkdir, open, readFile, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { CapturedResponse } from './ceiling-server.js';
import type { BaselineName, RunHeader, ScenarioResult, WrkFigures } from './results.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const MARQUEE = join(ROOT, 'bin', 'marquee.js');
const CEILING = join(ROOT, 'dist', 'bench', 'ceiling-server.js');
export const MARQUEE_PORT = 18_181;
export const CEILING_PORT = 18_182;
/**
 * V8 flags of both servers. Taking turns, each server sits idle every other second, and V8's
 * memory reducer, which shrinks the heap of a process it finds idle, fired in one of the two
 * about 100 s into a run; the process it shrank then answered about a quarter slower until the
 * run ended (the ceiling in some runs, Marquee in others). A server under the steady load the
 * figures stand for is never idle, so both run without it.
 */
const SERVER_FLAGS = ['--no-memory-reducer'];

export interface Scenario {
  readonly name: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  /** wrk's connections and seconds per round, when not the run's own. */
  readonly connections?: number;
  readonly seconds?: number;
}

export interface Baseline {
  readonly name: BaselineName;
  readonly port: number;
}

/** How a comparison drives the servers: seconds per round, rounds, and wrk's connections. */
export interface Rounds {
  readonly duration: number;
  readonly rounds: number;
  readonly connections: number;
}

export function requireTool(command: string, install: string): void {
  if (spawnSync('sh', ['-c', `command -v ${command}`]).status !== 0) {
    console.error(`bench: ${command} is not installed; install it with: ${install}`);
    process.exit(1);
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends one request and keeps the whole response, for the ceiling to replay. */
export function capture(port: number, scenario: Scenario): Promise<CapturedResponse> {
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

export async function waitUntilAnswering(port: number, path: string, headers: Readonly<Record<string, string>> = {}): Promise<void> {
  for (let attempt = 0; attempt < 600; attempt++) {
    const answered = await capture(port, { name: 'probe', path, headers }).then((r) => r.status === 200, () => false);
    if (answered) return;
    await sleep(10);
  }
  throw new Error(`nothing answered on port ${port}`);
}

/** Cores as taskset takes them: `0`, `1`, or `0,1` for a process the system places, as on a small VM. */
export type Cores = '0' | '1' | '0,1';

function pinned(cores: Cores, args: readonly string[], output: 'pipe' | number, onLine?: (line: string) => void): ChildProcess {
  const child = spawn('taskset', ['-c', cores, ...args], { stdio: ['ignore', output, 'inherit'] });
  child.stdout?.setEncoding('utf8').on('data', (text: string) => text.split('\n').forEach((line) => line && onLine?.(line)));
  return child;
}

export async function stop(child: ChildProcess): Promise<void> {
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

export async function wrk(port: number, scenario: Scenario, seconds: number, connections: number, cores: Cores = '1'): Promise<WrkFigures> {
  const headers = Object.entries(scenario.headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`]);
  const child = spawn('taskset', ['-c', cores, 'wrk', '-t1', `-c${connections}`, `-d${seconds}s`, '--latency', ...headers, `http://127.0.0.1:${port}${scenario.path}`], { stdio: ['ignore', 'pipe', 'inherit'] });
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
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) * q)] as number;
}

export const median = (values: readonly number[]): number => quantile(values, 0.5);

const quartiles = (values: readonly number[]): [number, number] => [quantile(values, 0.25), quantile(values, 0.75)];

/** The median of each figure over the rounds. */
function medianFigures(rounds: readonly WrkFigures[]): WrkFigures {
  const of = (figure: keyof WrkFigures) => median(rounds.map((round) => round[figure]));
  return { requestsPerSecond: of('requestsPerSecond'), p50Ms: of('p50Ms'), p99Ms: of('p99Ms'), maxMs: of('maxMs'), errors: of('errors') };
}

/** Clock ticks a second, in which /proc counts a process's CPU time. */
const CLK_TCK = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/** The CPU time a process has used so far, user and system, in seconds. */
export async function cpuSeconds(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]?.split(' ') ?? [];
  // utime and stime, the 14th and 15th fields, the 12th and 13th after the command.
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
}

/** Fails when something answers on `port`: another benchmark's server would be measured in place of this one's, and share its cores. */
export async function requireFreePort(port: number): Promise<void> {
  const taken = await fetch(`http://127.0.0.1:${port}/readyz`).then(() => true, () => false);
  if (taken) throw new Error(`something answers on port ${port}: another benchmark is running; run this one alone`);
}

export async function rssMegabytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

export function runCli(args: readonly string[]): string {
  const result = spawnSync('taskset', ['-c', '1', process.execPath, MARQUEE, ...args], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`marquee ${args.join(' ')} failed: ${result.stderr}`);
  return result.stdout;
}

export interface MarqueeServer {
  readonly process: ChildProcess;
  /** From start until /readyz answers 200: the database read, no catalogue published yet. */
  readonly readyMs: number;
  /** The lines the server logged with this message so far. */
  logged(message: string): Promise<Record<string, unknown>[]>;
}

/**
 * Starts a server (Marquee or the plain fastify app) pinned to core 0 unless `cores` says otherwise. Its log goes to a file, as
 * an operator's would: read through a pipe, it would take the load generator's core.
 */
export async function startLogging(args: readonly string[], logFile: string, nodeFlags: readonly string[] = [], cores: Cores = '0'): Promise<ChildProcess> {
  const logHandle = await open(logFile, 'w');
  const child = pinned(cores, [process.execPath, ...SERVER_FLAGS, ...nodeFlags, ...args], logHandle.fd);
  await logHandle.close();
  return child;
}

/** Starts `marquee serve` with `settings`, on a Node.js started with `nodeFlags`, listening on `port`, on `cores`. */
export async function startMarquee(database: string, logFile: string, settings: readonly string[] = [], nodeFlags: readonly string[] = [], port = MARQUEE_PORT, cores: Cores = '0'): Promise<MarqueeServer> {
  const started = performance.now();
  const child = await startLogging([MARQUEE, 'serve', '--database', database, '--port', String(port), ...settings], logFile, nodeFlags, cores);
  // /readyz needs no token, so it also tells when a server closed by a token is ready.
  await waitUntilAnswering(port, '/readyz');
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
export async function waitUntilSettled(port: number, headers: Readonly<Record<string, string>> = {}): Promise<void> {
  const list: Scenario = { name: 'settle', path: '/v4/film', headers: { ...headers, 'accept-encoding': 'gzip' } };
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
async function sharedCoreRatios(scenario: Scenario, baselinePort: number, rounds: Rounds): Promise<number[]> {
  const seconds = scenario.seconds ?? rounds.duration;
  const connections = scenario.connections ?? rounds.connections;
  const ratios: number[] = [];
  for (let round = 0; round < rounds.rounds; round++) {
    const [marquee, baseline] = await Promise.all([wrk(MARQUEE_PORT, scenario, seconds, connections), wrk(baselinePort, scenario, seconds, connections)]);
    ratios.push(marquee.requestsPerSecond / baseline.requestsPerSecond);
  }
  return ratios;
}

/** Marquee and a baseline answering the same request, warmed up, then driven in turn and at once. */
export async function compare(films: number, scenario: Scenario, against: Baseline, settings: Rounds): Promise<ScenarioResult> {
  const seconds = scenario.seconds ?? settings.duration;
  const connections = scenario.connections ?? settings.connections;
  await wrk(MARQUEE_PORT, scenario, 1, connections);
  await wrk(against.port, scenario, 1, connections);
  const run = (port: number) => wrk(port, scenario, seconds, connections);
  const rounds: { marquee: WrkFigures; baseline: WrkFigures }[] = [];
  for (let round = 0; round < settings.rounds; round++) {
    // Every other round the baseline goes first, so that a drift within a round favours neither.
    if (round % 2 === 0) rounds.push({ marquee: await run(MARQUEE_PORT), baseline: await run(against.port) });
    else rounds.push({ baseline: await run(against.port), marquee: await run(MARQUEE_PORT) });
  }
  const marquee = medianFigures(rounds.map((round) => round.marquee));
  const baseline = medianFigures(rounds.map((round) => round.baseline));
  // Each round's two runs share the machine's speed of the moment: the ratio is taken per round.
  const roundRatios = rounds.map((round) => round.marquee.requestsPerSecond / round.baseline.requestsPerSecond);
  const sharedRatios = await sharedCoreRatios(scenario, against.port, settings);
  const result: ScenarioResult = {
    films,
    scenario: scenario.name,
    against: against.name,
    connections,
    seconds,
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
export async function startCeiling(responseFiles: readonly string[]): Promise<ChildProcess> {
  let ready: () => void = () => {};
  const listening = new Promise<void>((resolve) => (ready = resolve));
  const child = pinned('0', [process.execPath, ...SERVER_FLAGS, CEILING, String(CEILING_PORT), ...responseFiles], 'pipe', (line) => line === 'ready' && ready());
  await listening;
  return child;
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

const model = cpus()[0]?.model ?? 'unknown CPU';
export const MACHINE = `${model}, ${cpus().length} cores, Node.js ${process.version}`;

/** Notes how busy the machine is as a run starts; `header()` as it ends, for the results file. */
export function beginRun(): { readonly started: Date; header(): RunHeader } {
  const started = new Date();
  const startLoad = loadavg();
  console.log(`load average at start: ${formatLoad(startLoad)}`);
  return {
    started,
    header() {
      const endLoad = loadavg();
      console.log(`load average at end: ${formatLoad(endLoad)}`);
      return { date: started.toISOString(), machine: MACHINE, loadAverage: { start: startLoad, end: endLoad } };
    },
  };
}

/** Writes bench/results/DATE-MACHINE[-KIND].json; returns its path. */
export async function writeResults(started: Date, results: RunHeader, kind?: string): Promise<string> {
  const resultsDir = join(ROOT, 'bench', 'results');
  await mkdir(resultsDir, { recursive: true });
  const slug = `${model}-${cpus().length}-cores${kind === undefined ? '' : `-${kind}`}`.toLowerCase().replace(/[^a-z0-9]+/g, '-');
  const file = join(resultsDir, `${started.toISOString().slice(0, 16).replace(':', '-')}-${slug}.json`);
  await writeFile(file, `${JSON.stringify(results, null, 2)}\n`);
  return file;
}

/** PostgreSQL databases that others use: a run never empties them. */
const SHARED_DATABASES = ['postgres', 'test', 'template0', 'template1'];

/**
 * Creates the scratch PostgreSQL database `url` names if it is missing, or afresh with `empty`;
 * `option` is the setting that named it, for the refusal of a database others use.
 */
export async function preparePostgres(url: string, empty: boolean, option: string): Promise<void> {
  const maintenance = new URL(url);
  const name = decodeURIComponent(maintenance.pathname.slice(1));
  if (name === '' || SHARED_DATABASES.includes(name)) throw new Error(`${option} must name a scratch database, which the run may empty; not '${name}'`);
  maintenance.pathname = '/postgres';
  const client = new pg.Client({ connectionString: maintenance.toString() });
  await client.connect();
  try {
    const quoted = `"${name.replaceAll('"', '""')}"`;
    if (empty) await client.query(`DROP DATABASE IF EXISTS ${quoted} WITH (FORCE)`);
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE ${quoted}`);
  } finally {
    await client.end();
  }
}
