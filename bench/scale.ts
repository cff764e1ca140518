/**
 * `npm run bench -- --scale`: a server with many cinemas, each with a catalogue of its own, under
 * a memory budget that holds only some of them (`--cache-memory`).
 *
 * The database (`--scale-database`, a SQLite file of its own by default) is provisioned as an
 * operator would: `npm run gen -- --customers N`, `marquee import --customers-from` and `marquee
 * token create --customers-from`. That takes long at full size, so a database already provisioned
 * with the same customers and films is used again: the tokens are kept in WORK, named after the
 * database. Then, on one `marquee serve` pinned to core 0 (on a Node.js started as the README
 * advises for one core: ONE_CORE_NODE_FLAGS), with this process (the clients) and wrk on core 1:
 *
 * 1. ready: from spawning the server until /readyz answers 200, asked every 10 ms;
 * 2. cold customers: customers never asked before, one after the other, each asked one film and
 *    then its film list;
 * 3. random touches: clients asking random customers for one film or the film list, while the
 *    server's resident memory is read every 250 ms;
 * 4. a hot customer: its one film with its token against the ceiling, as run-bench.ts measures
 *    one customer;
 * 5. one customer's import while other customers are asked: from the import command's exit until
 *    the customer's film list has a new ETag, and the slowest answer to the others meanwhile.
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { syntheticFilmId, writeSyntheticCatalogue } from '../scripts/generate-catalogue.js';
import { loadStoredVersions } from '../src/store/catalogue-repository.js';
import { openDatabase, parseDatabaseSpec } from '../src/store/database.js';
import {
  beginRun,
  capture,
  CEILING_PORT,
  compare,
  MACHINE,
  MARQUEE,
  MARQUEE_PORT,
  preparePostgres,
  quantile,
  requireTool,
  ROOT,
  rssMegabytes,
  sleep,
  startCeiling,
  startMarquee,
  stop,
  waitUntilSettled,
  writeResults,
  type MarqueeServer,
  type Rounds,
  type Scenario,
} from './harness.js';
import type { ImportUnderLoad, LatencySpread, ScaleResult, ScaleRunResults, ScenarioResult } from './results.js';

export interface ScaleOptions {
  readonly customers: number;
  readonly films: number;
  /** Sessions per customer; none when undefined. */
  readonly sessions: number | undefined;
  /** A SQLite file or a postgres:// URL; a SQLite file in WORK when undefined. */
  readonly database: string | undefined;
  /** The server's --cache-memory. */
  readonly cacheMemory: string;
  /** How long the random touches go on. */
  readonly seconds: number;
}

/** Kept from one run to the next, for the databases provisioned and their tokens. */
export const WORK = join(tmpdir(), 'marquee-scale');
const GENERATOR = join(ROOT, 'dist', 'scripts', 'generate-catalogue.js');
/** Customers asked for the first time. */
const COLD_CUSTOMERS = 200;
/** Clients asking at once during the random touches. */
const CLIENTS = 16;
/**
 * Customers asked while another imports, by this many clients, each pausing between an answer
 * and its next request, and the imports. Clients asking without a pause kept core 1 busy, which
 * the import command shares: the scheduler then held up their own event loop by up to 30 ms, a
 * delay their answers' times would have laid on the server.
 */
const BUSY_CUSTOMERS = 8;
const BUSY_CLIENTS = 4;
const BUSY_PAUSE_MS = 5;
const IMPORTS = 5;
/** How often a customer's film list is asked while its import is awaited. */
const POLL_MS = 2;
/**
 * The server has one core, and runs as the README's sizing section advises for one core: V8's
 * garbage collection on the main thread rather than on helper threads that would contend with it
 * for that core (a cold customer's first film had a p99 of 77 to 96 ms without it, 40 to 43 ms
 * with it), and semi-spaces of 16 MB rather than V8's larger default, which left about 120 MB
 * more resident under random touches (971 and 974 MiB against 845 and 852) for at most a tenth
 * more hot answers. Semi-spaces of 8 MB cut the hot customer's answers by a third.
 */
export const ONE_CORE_NODE_FLAGS = ['--single-threaded-gc', '--max-semi-space-size=16'];

/** What a database is provisioned with: customers of so many films each, and sessions when given (sync.ts). */
export interface Provisioning {
  readonly customers: number;
  readonly films: number;
  readonly sessions?: number | undefined;
}

export interface Customer {
  readonly key: string;
  readonly token: string;
}

interface Answer {
  readonly status: number;
  readonly etag: string | undefined;
  /** performance.now() when the request was sent. */
  readonly sentAt: number;
  readonly ms: number;
}

const randomIndex = (length: number): number => Math.floor(Math.random() * length);
const randomFilm = (films: number): string => `/v4/film/${syntheticFilmId(randomIndex(films))}`;
export const tokenHeader = (customer: Customer) => ({ veeziaccesstoken: customer.token });

function shuffled<T>(items: readonly T[]): T[] {
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index--) {
    const other = randomIndex(index + 1);
    [copy[index], copy[other]] = [copy[other] as T, copy[index] as T];
  }
  return copy;
}

export function spread(ms: readonly number[]): LatencySpread {
  return { p50Ms: quantile(ms, 0.5), p95Ms: quantile(ms, 0.95), p99Ms: quantile(ms, 0.99), maxMs: quantile(ms, 1) };
}

const failures = (answers: readonly Answer[]): number => answers.filter((answer) => answer.status !== 200).length;

export const formatSpread = (s: LatencySpread): string => `p50 ${s.p50Ms.toFixed(2)} ms, p95 ${s.p95Ms.toFixed(2)} ms, p99 ${s.p99Ms.toFixed(2)} ms, max ${s.maxMs.toFixed(2)} ms`;

/** Asks the server on `port`, timing the answer until its last byte. */
export function get(agent: Agent, path: string, headers: Readonly<Record<string, string>>, port = MARQUEE_PORT): Promise<Answer> {
  const sentAt = performance.now();
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers, agent }, (response) => {
      response.resume();
      response.on('end', () => {
        const etag = response.headers.etag;
        resolve({ status: response.statusCode ?? 0, etag, sentAt, ms: performance.now() - sentAt });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

async function ask(agent: Agent, customer: Customer, path: string): Promise<Answer> {
  const answer = await get(agent, path, tokenHeader(customer));
  if (answer.status !== 200) throw new Error(`${path} for ${customer.key} answered ${answer.status}`);
  return answer;
}

/**
 * Clients that each ask a random one of `customers` for one film or the film list, the next
 * `pauseMs` after the last is answered, while `going()`; their answers, whatever their status,
 * are in `answers` as they come.
 */
function load(agent: Agent, customers: readonly Customer[], films: number, clients: number, going: () => boolean, pauseMs = 0): { answers: Answer[]; finished: Promise<void> } {
  const answers: Answer[] = [];
  const client = async (): Promise<void> => {
    while (going()) {
      const customer = customers[randomIndex(customers.length)] as Customer;
      answers.push(await get(agent, Math.random() < 0.5 ? '/v4/film' : randomFilm(films), tokenHeader(customer)));
      if (pauseMs > 0) await sleep(pauseMs);
    }
  };
  return { answers, finished: Promise.all(Array.from({ length: clients }, client)).then(() => {}) };
}

/** Runs a provisioning command as an operator would, its progress shown; returns its standard output. */
function operate(args: readonly string[]): string {
  const result = spawnSync(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8', maxBuffer: 2 ** 30 });
  if (result.status !== 0) throw new Error(`${args.join(' ')} failed with exit status ${result.status}`);
  return result.stdout;
}

function timed(work: () => void): number {
  const started = performance.now();
  work();
  return (performance.now() - started) / 1000;
}

export async function emptyDatabase(database: string): Promise<void> {
  const spec = parseDatabaseSpec(database);
  if (spec.kind === 'postgres') return preparePostgres(spec.url, true, '--scale-database');
  for (const suffix of ['', '-wal', '-shm']) await rm(`${spec.path}${suffix}`, { force: true });
}

const provisionedAs = ({ customers, films, sessions }: Provisioning): string => `# ${customers} customers x ${films} films${sessions === undefined ? '' : ` x ${sessions} sessions`}`;

/** The customers and their tokens, when the database holds the customers the tokens file was written for. */
export async function provisioned(database: string, tokensFile: string, options: Provisioning): Promise<Customer[] | undefined> {
  const text = await readFile(tokensFile, 'utf8').catch(() => '');
  const [first, ...lines] = text.trim().split('\n');
  if (first !== provisionedAs(options)) return undefined;
  const customers = lines.map((line) => {
    const [key = '', token = ''] = line.split('\t');
    return { key, token };
  });
  const db = await openDatabase(parseDatabaseSpec(database));
  try {
    const versions = (await loadStoredVersions(db)).catalogues;
    return versions.size === customers.length && customers.every(({ key }) => versions.has(key)) ? customers : undefined;
  } finally {
    await db.close();
  }
}

/** Provisions the database afresh through the command line; the tokens file is written last. */
export async function provision(database: string, tokensFile: string, options: Provisioning): Promise<NonNullable<ScaleResult['provisioning']>> {
  await rm(tokensFile, { force: true });
  await emptyDatabase(database);
  const tree = join(WORK, 'catalogues');
  const keysFile = join(WORK, 'customers.txt');
  await rm(tree, { recursive: true, force: true });
  try {
    console.log(`provisioning ${database}: ${provisionedAs(options).slice(2)}`);
    const sessions = options.sessions === undefined ? [] : ['--sessions', String(options.sessions)];
    const generateSeconds = timed(() => console.log(operate([GENERATOR, '--customers', String(options.customers), '--films', String(options.films), ...sessions, '--out', tree]).trim()));
    const importSeconds = timed(() => console.log(operate([MARQUEE, 'import', '--database', database, '--customers-from', tree]).trim()));
    await writeFile(keysFile, `${(await readdir(tree)).sort().join('\n')}\n`);
    let tokens = '';
    const tokensSeconds = timed(() => (tokens = operate([MARQUEE, 'token', 'create', '--database', database, '--customers-from', keysFile])));
    await writeFile(tokensFile, `${provisionedAs(options)}\n${tokens}`);
    console.log(`provisioning took ${(generateSeconds + importSeconds + tokensSeconds).toFixed(1)} s: generating ${generateSeconds.toFixed(1)} s, importing ${importSeconds.toFixed(1)} s, tokens ${tokensSeconds.toFixed(1)} s`);
    return { generateSeconds, importSeconds, tokensSeconds };
  } finally {
    await rm(tree, { recursive: true, force: true });
    await rm(keysFile, { force: true });
  }
}

/** Customers never asked before, one after the other: one film, then the film list. */
async function coldCustomers(agent: Agent, customers: readonly Customer[], films: number): Promise<ScaleResult['cold']> {
  const filmMs: number[] = [];
  const listMs: number[] = [];
  for (const customer of customers) {
    filmMs.push((await ask(agent, customer, randomFilm(films))).ms);
    listMs.push((await ask(agent, customer, '/v4/film')).ms);
  }
  const cold = { customers: customers.length, film: spread(filmMs), list: spread(listMs) };
  console.log(`cold customers (${cold.customers}, one after the other): first film ${formatSpread(cold.film)}`);
  console.log(`  then the film list ${formatSpread(cold.list)}`);
  return cold;
}

async function catalogueCounters(): Promise<{ held: number; builds: number; buildSeconds: number; evictions: number }> {
  const text = await (await fetch(`http://127.0.0.1:${MARQUEE_PORT}/metrics`)).text();
  const value = (name: string): number => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
  return {
    held: value('marquee_catalogues'),
    builds: value('marquee_catalogue_builds_total'),
    buildSeconds: value('marquee_catalogue_build_seconds_total'),
    evictions: value('marquee_catalogue_evictions_total'),
  };
}

/** Clients asking random customers while the server's resident memory is sampled. */
async function randomTouches(agent: Agent, server: MarqueeServer, customers: readonly Customer[], options: ScaleOptions): Promise<ScaleResult['touches']> {
  const before = await catalogueCounters();
  let maxRssMb = 0;
  const sampler = setInterval(() => void rssMegabytes(server.process.pid as number).then((mb) => (maxRssMb = Math.max(maxRssMb, mb))), 250);
  const started = performance.now();
  const { answers, finished } = load(agent, customers, options.films, CLIENTS, () => performance.now() - started < options.seconds * 1000);
  await finished;
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  const after = await catalogueCounters();
  const builds = after.builds - before.builds;
  const touches = {
    clients: CLIENTS,
    seconds,
    requests: answers.length,
    requestsPerSecond: answers.length / seconds,
    latency: spread(answers.map((answer) => answer.ms)),
    failures: failures(answers),
    maxRssMb,
    builds,
    evictions: after.evictions - before.evictions,
    held: after.held,
  };
  console.log(`random touches (${CLIENTS} clients, ${seconds.toFixed(0)} s, --cache-memory ${options.cacheMemory}): max RSS ${maxRssMb.toFixed(0)} MB, ${touches.requestsPerSecond.toFixed(0)} requests/s, ${formatSpread(touches.latency)}, ${touches.failures} answered other than 200`);
  const meanBuildMs = ((after.buildSeconds - before.buildSeconds) / builds) * 1000;
  console.log(`  catalogues built ${builds} (${meanBuildMs.toFixed(1)} ms each on average), let go ${touches.evictions}, held at the end ${touches.held}`);
  return touches;
}

/** One customer's film with its token, against the ceiling, once the customer's lists are compressed. */
async function hotCustomer(customer: Customer, films: number, run: string, rounds: Rounds): Promise<ScenarioResult> {
  await waitUntilSettled(MARQUEE_PORT, tokenHeader(customer));
  const scenario: Scenario = { name: 'one film, token', path: `/v4/film/${syntheticFilmId(Math.floor(films / 2))}`, headers: tokenHeader(customer) };
  const responseFile = join(run, 'hot-response.json');
  await writeFile(responseFile, JSON.stringify(await capture(MARQUEE_PORT, scenario)));
  const ceiling = await startCeiling([responseFile]);
  try {
    console.log(`hot customer ${customer.key} against the ceiling:`);
    return await compare(films, scenario, { name: 'ceiling', port: CEILING_PORT }, rounds);
  } finally {
    await stop(ceiling);
  }
}

/** Polls the customer's film list until its ETag is no longer `etag`. */
async function newEtag(agent: Agent, customer: Customer, etag: string): Promise<void> {
  const deadline = performance.now() + 60_000;
  while (performance.now() < deadline) {
    const answer = await get(agent, '/v4/film', { ...tokenHeader(customer), 'if-none-match': etag });
    if (answer.status === 200 && answer.etag !== etag) return;
    if (answer.status !== 304) throw new Error(`the film list of ${customer.key} answered ${answer.status}`);
    await sleep(POLL_MS);
  }
  throw new Error(`the import of ${customer.key} was not in service within a minute`);
}

/** Each of `importing` imports a changed catalogue, while clients ask the `busy` customers. */
async function importsUnderLoad(agent: Agent, database: string, busy: readonly Customer[], importing: readonly Customer[], films: number, run: string): Promise<ImportUnderLoad[]> {
  // Written beforehand: writing them here would hold up the clients' answers.
  const catalogues = importing.map((_, index) => join(run, `changed-${index}`));
  for (const directory of catalogues) await writeSyntheticCatalogue({ films, directory, seed: randomIndex(2 ** 31) });
  for (const customer of busy) await ask(agent, customer, '/v4/film');
  let going = true;
  const { answers, finished } = load(agent, busy, films, BUSY_CLIENTS, () => going, BUSY_PAUSE_MS);
  const results: ImportUnderLoad[] = [];
  try {
    for (const [index, customer] of importing.entries()) {
      const { etag = '' } = await ask(agent, customer, '/v4/film');
      // Its publishing, if it was not held, is over before the import starts.
      await sleep(1000);
      const clientsDelay = monitorEventLoopDelay({ resolution: 1 });
      clientsDelay.enable();
      const started = performance.now();
      const child = spawn('taskset', ['-c', '1', process.execPath, MARQUEE, 'import', '--database', database, '--customer', customer.key, '--replace', catalogues[index] as string], { stdio: ['ignore', 'ignore', 'inherit'] });
      const [status] = (await once(child, 'exit')) as [number | null];
      if (status !== 0) throw new Error(`the import of ${customer.key} failed with exit status ${status}`);
      const imported = performance.now();
      await newEtag(agent, customer, etag);
      const inService = performance.now();
      clientsDelay.disable();
      const others = answers.filter((answer) => answer.sentAt < inService && answer.sentAt + answer.ms > started);
      const result = {
        customer: customer.key,
        importMs: imported - started,
        inServiceMs: inService - imported,
        othersMaxMs: quantile(others.map((answer) => answer.ms), 1),
        othersRequests: others.length,
        othersFailures: failures(others),
        clientsDelayMaxMs: clientsDelay.max / 1e6,
      };
      console.log(
        `import of ${result.customer} (${result.importMs.toFixed(0)} ms): in service ${result.inServiceMs.toFixed(1)} ms after the command exited; ` +
          `slowest of ${result.othersRequests} answers to others meanwhile ${result.othersMaxMs.toFixed(2)} ms, ${result.othersFailures} other than 200 ` +
          `(the clients' own event loop held up ${result.clientsDelayMaxMs.toFixed(1)} ms at most)`,
      );
      results.push(result);
    }
  } finally {
    going = false;
    await finished;
  }
  return results;
}

export async function benchScale(options: ScaleOptions, rounds: Rounds): Promise<void> {
  requireTool('wrk', 'apt-get install wrk');
  requireTool('taskset', 'apt-get install util-linux');
  // The clients run here: on the load generator's core, never on the server's.
  spawnSync('taskset', ['-a', '-p', '-c', '1', String(process.pid)], { stdio: 'ignore' });
  await mkdir(WORK, { recursive: true });
  const database = options.database ?? join(WORK, `scale-${options.customers}x${options.films}${options.sessions === undefined ? '' : `x${options.sessions}`}.db`);
  const spec = parseDatabaseSpec(database);
  if (spec.kind === 'postgres') await preparePostgres(spec.url, false, '--scale-database');
  const tokensFile = join(WORK, `${database.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '')}.tokens`);

  console.log(`Marquee at scale on ${MACHINE}: ${options.customers} customers of ${options.films} films and ${options.sessions ?? 0} sessions on ${spec.kind}, --cache-memory ${options.cacheMemory}, server on core 0, clients and wrk on core 1`);
  let customers = await provisioned(database, tokensFile, options);
  let provisioning: ScaleResult['provisioning'] = null;
  if (customers === undefined) {
    provisioning = await provision(database, tokensFile, options);
    customers = await provisioned(database, tokensFile, options);
    if (customers === undefined) throw new Error(`${database} does not hold the customers provisioned`);
  } else {
    console.log(`${database} holds these customers already (tokens in ${tokensFile}): not provisioned again`);
  }

  const runStarted = beginRun();
  // Kept until the next run, for the server's log.
  const run = join(WORK, 'run');
  await rm(run, { recursive: true, force: true });
  await mkdir(run);
  const server = await startMarquee(database, join(run, 'server.log'), ['--cache-memory', options.cacheMemory], ONE_CORE_NODE_FLAGS);
  const agent = new Agent({ keepAlive: true });
  try {
    console.log(`ready ${server.readyMs.toFixed(0)} ms after spawning the server`);
    const [hot, ...others] = shuffled(customers) as [Customer, ...Customer[]];
    const cold = await coldCustomers(agent, others.slice(0, COLD_CUSTOMERS), options.films);
    const touches = await randomTouches(agent, server, customers, options);
    const hotResult = await hotCustomer(hot, options.films, run, rounds);
    const imports = await importsUnderLoad(agent, database, others.slice(0, BUSY_CUSTOMERS), others.slice(BUSY_CUSTOMERS, BUSY_CUSTOMERS + IMPORTS), options.films, run);
    const scale: ScaleResult = {
      customers: options.customers,
      films: options.films,
      sessions: options.sessions ?? 0,
      database: spec.kind,
      cacheMemory: options.cacheMemory,
      provisioning,
      readyMs: server.readyMs,
      cold,
      touches,
      hot: hotResult,
      imports,
    };
    const results: ScaleRunResults = { ...runStarted.header(), scale };
    console.log(`results written to ${await writeResults(runStarted.started, results, `scale-${spec.kind}`)}`);
  } finally {
    agent.destroy();
    await stop(server.process);
    console.log(`the server's log: ${join(run, 'server.log')}`);
  }
}
