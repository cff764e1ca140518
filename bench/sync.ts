/**
 * `npm run bench -- --sync`: one sync process mirroring many cinemas from an upstream on this
 * machine, another Marquee holding them with a token each (a fair stand-in for Veezi), into a
 * downstream database that a server reads meanwhile.
 *
 * The upstream database (a SQLite file in WORK) is provisioned as an operator would, once, and
 * used again by later runs: `npm run gen -- --customers N --films M --sessions S`, `marquee
 * import --customers-from` and `marquee token create --customers-from`. The downstream database
 * (`--sync-database`, a SQLite file in WORK by default) is emptied at every run. Then:
 *
 * 1. first sync: `marquee sync --upstreams FILE --every 15m --sessions-every 1m` starts on an empty
 *    downstream database, both cores to share with the upstream server; timed until every cinema
 *    has been synced once;
 * 2. steady state, for `--sync-minutes`: the upstream server and the sync on core 1 with this
 *    process, a downstream `marquee serve` on core 0, every cinema's sessions and films asked
 *    once first (so published), then asked by `--sync-clients` clients for random cinemas'
 *    sessions and films. Half a minute in, and every minute from then on, one session of every
 *    cinema changes upstream (its seats), imported cinema after cinema; once the sync has written
 *    a cinema's change, it is asked for downstream until it is served, and timed from its commit
 *    upstream.
 *
 * A change is timed three ways: until the upstream server published it (its log: the stand-in's
 * own delay, which a Veezi site would not have), until the sync wrote it (its log line), and until
 * the downstream server answered with it. The sync's and the downstream server's CPU time are read
 * from /proc over the steady state, and the sync's resident memory every 250 ms throughout.
 * Node.js runs the sync with 16 MB semi-spaces, as docs/sync.md advises, and with
 * `--sync-node-flags` (`--cpu-prof`, say: a profile of the sync written as it stops).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { Agent } from 'node:http';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { syntheticFilmId, syntheticSession } from '../scripts/generate-catalogue.js';
import { importFiles } from '../src/import/import-files.js';
import { openDatabase, parseDatabaseSpec } from '../src/store/database.js';
import { beginRun, cpuSeconds, MACHINE, MARQUEE, requireFreePort, requireTool, rssMegabytes, sleep, startMarquee, stop, writeResults } from './harness.js';
import type { LatencySpread, RunHeader } from './results.js';
import { emptyDatabase, formatSpread, get, ONE_CORE_NODE_FLAGS, provision, provisioned, spread, tokenHeader, WORK, type Customer } from './scale.js';

export interface SyncBenchOptions {
  readonly customers: number;
  readonly films: number;
  readonly sessions: number;
  /** The downstream database: a SQLite file or a scratch postgres:// database; a SQLite file in WORK when undefined. */
  readonly database: string | undefined;
  /** How long the steady state is measured. */
  readonly minutes: number;
  readonly concurrency: number;
  readonly perHost: number;
  /** Clients asking the downstream server over the steady state. */
  readonly clients: number;
  /** Node.js flags of the sync process (a CPU profile of it, say), beside its 16 MB semi-spaces. */
  readonly syncNodeFlags: readonly string[];
}

export interface SyncBenchResults extends RunHeader {
  readonly sync: {
    readonly customers: number;
    readonly films: number;
    readonly sessions: number;
    readonly database: 'sqlite' | 'postgres';
    readonly concurrency: number;
    readonly perHost: number;
    /** From starting the sync until every cinema had been synced once, and the sync's CPU time meanwhile. */
    readonly firstSync: { readonly seconds: number; readonly cpuSeconds: number };
    /**
     * The minutes of changes of the steady state (before one pass of changes, the whole steady
     * state): their length, the sync's and the downstream server's CPU time over them (in cores:
     * seconds of CPU a second; the server's absent from older results), the stand-in upstream's
     * and this process's, which commits the changes upstream (both sharing core 1 with the sync;
     * absent from older results), and the failures the sync logged.
     */
    readonly steady: {
      readonly seconds: number;
      readonly cpuCores: number;
      readonly serverCpuCores?: number;
      readonly upstreamCpuCores?: number;
      readonly changerCpuCores?: number;
      readonly failureLines: number;
    };
    /**
     * From each cinema's change committed upstream until the upstream server published it (its
     * log): the stand-in's own delay, which a Veezi site would not have.
     */
    readonly changeMadeUpstream: LatencySpread & { readonly published: number };
    /** From the upstream publishing each change until the sync had written it downstream (the sync's log line). */
    readonly changeWritten: LatencySpread & { readonly written: number };
    /** From the upstream publishing each change until the downstream server answered with it. */
    readonly changeServedAfterUpstream: LatencySpread;
    /**
     * From each cinema's change committed upstream until the downstream server answered with it;
     * `passes` of changes, one a minute (absent from results of one pass), each committing one
     * change of every cinema in `changingSeconds` (the last pass's).
     */
    readonly changeServed: LatencySpread & { readonly cinemas: number; readonly passes?: number; readonly served: number; readonly changingSeconds: number };
    /** The sync's resident memory, at most, over the whole run. */
    readonly maxRssMb: number;
    /**
     * The downstream server's answers to the clients over the steady state, as the clients timed
     * them and as the server did (its log: from the request read to the answer sent). The clients
     * share core 1 with the upstream server and the sync; how long their own event loop was held
     * up at most, and at the 99th percentile, tells what of their times is theirs.
     */
    readonly server: {
      /** Absent from results older than the option: 4. */
      readonly clients?: number;
      readonly requests: number;
      readonly latency: LatencySpread;
      readonly serverSide: LatencySpread;
      readonly failures: number;
      readonly clientsDelay: { readonly p99Ms: number; readonly maxMs: number };
    };
  };
}

/** Beside the ports of the other benchmarks (18179 to about 18200), which may run on this machine too. */
const UPSTREAM_PORT = 18_283;
/** The downstream server's, beside the upstream's. */
const DOWNSTREAM_PORT = 18_284;
/**
 * Both servers hold every cinema's catalogue: one let go would be built again on its next request
 * (the sync's, or a client's), which would time the server's builds rather than the sync.
 */
const CACHE_MEMORY = '4GiB';
/** The sync is told its failures on standard error, one line each. */
const FAILURE_LINE = /^sync: customer '/;
/** Each client pauses this long between an answer and its next request. */
const CLIENT_PAUSE_MS = 5;
/** One session of every cinema changes upstream this often. */
const CHANGE_INTERVAL_MS = 60_000;
const pin = (pid: number, core: number): void => void spawnSync('taskset', ['-a', '-p', '-c', String(core), String(pid)], { stdio: 'ignore' });
const randomIndex = (length: number): number => Math.floor(Math.random() * length);

/** One cinema's change upstream, as the run follows it. Times are performance.now() of this process. */
interface Change {
  readonly customer: string;
  readonly seats: number;
  readonly committedAt: number;
  /** When the sync last wrote the cinema's sessions since the change committed. */
  writtenAt?: number;
  servedAt?: number;
}

/**
 * When the upstream server first published each change: its first "catalogue published" of the
 * change's cinema after the change committed, of a version above any it had published before.
 */
async function publishedAfter(logFile: string, changes: readonly Change[]): Promise<(number | undefined)[]> {
  const builds = new Map<string, { readonly at: number; readonly version: number }[]>();
  for await (const line of createInterface({ input: createReadStream(logFile), crlfDelay: Infinity })) {
    if (!line.includes('"msg":"catalogue published"')) continue;
    const { customer, version, time } = JSON.parse(line) as { customer: string; version: number; time: number };
    builds.set(customer, [...(builds.get(customer) ?? []), { at: time - performance.timeOrigin, version }]);
  }
  return changes.map(({ customer, committedAt }) => {
    const all = builds.get(customer) ?? [];
    const before = Math.max(0, ...all.filter((build) => build.at < committedAt).map((build) => build.version));
    return all.find((build) => build.at >= committedAt && build.version > before)?.at;
  });
}

/** How long the server took over each answer it logged from `since` (performance.now() of this process) on. */
async function answerTimes(logFile: string, since: number): Promise<number[]> {
  const times: number[] = [];
  for await (const line of createInterface({ input: createReadStream(logFile), crlfDelay: Infinity })) {
    if (!line.includes('"msg":"request completed"')) continue;
    const { time, durationMs } = JSON.parse(line) as { time: number; durationMs: number };
    if (time - performance.timeOrigin >= since) times.push(durationMs);
  }
  return times;
}

/** Starts a Marquee command on a Node.js with 16 MB semi-spaces and `nodeFlags`, its lines told to `onLine`. */
function startNode(args: readonly string[], onLine: (line: string) => void = () => {}, nodeFlags: readonly string[] = []): ChildProcess {
  const child = spawn(process.execPath, ['--max-semi-space-size=16', ...nodeFlags, MARQUEE, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  for (const stream of [child.stdout, child.stderr]) createInterface({ input: stream as NodeJS.ReadableStream }).on('line', onLine);
  return child;
}

async function waitUntilAnswering(url: string): Promise<void> {
  for (let attempt = 0; attempt < 600; attempt++) {
    if (await fetch(url).then((answer) => answer.ok, () => false)) return;
    await sleep(50);
  }
  throw new Error(`${url} never answered`);
}

/** Changes every cinema's first session upstream to `seats`, cinema after cinema, telling `onCommit` of each change as it commits. */
async function changeEverySession(database: string, customers: readonly Customer[], films: number, seats: number, run: string, onCommit: (change: Change) => void): Promise<void> {
  const file = join(run, 'changed-session.json');
  await writeFile(file, JSON.stringify({ ...syntheticSession(0, films), SeatsAvailable: seats }));
  const db = await openDatabase(parseDatabaseSpec(database));
  try {
    for (const { key } of customers) {
      // Named a file of sessions, the import compares them alone, not the films too, as a file of any kind would need.
      await importFiles(db, { customer: key, files: [{ file, name: file, kind: 'session' }], replace: false });
      onCommit({ customer: key, seats, committedAt: performance.now() });
    }
  } finally {
    await db.close();
  }
}

/**
 * Asks for each change the sync has written, until `stop` says so, and notes when it is served.
 * Only written changes are asked for, so that the asking costs the server little; one written
 * from an upstream read before the change committed is asked for again at the sync's next write.
 */
async function watchChanges(readers: ReadonlyMap<string, Customer>, written: Set<Change>, stop: () => boolean): Promise<void> {
  while (!stop()) {
    for (const change of written) {
      const reader = readers.get(change.customer) as Customer;
      const answer = await fetch(`http://127.0.0.1:${DOWNSTREAM_PORT}/v1/session/1`, { headers: tokenHeader(reader) });
      const served = ((await answer.json()) as { SeatsAvailable?: number }).SeatsAvailable === change.seats;
      if (served) change.servedAt = performance.now();
      if (served || performance.now() - (change.writtenAt ?? 0) > 5000) written.delete(change);
    }
    await sleep(50);
  }
}

export async function benchSync(options: SyncBenchOptions): Promise<void> {
  requireTool('taskset', 'apt-get install util-linux');
  await mkdir(WORK, { recursive: true });
  const provisioning = { customers: options.customers, films: options.films, sessions: options.sessions };
  const upstreamDatabase = join(WORK, `sync-upstream-${options.customers}x${options.films}x${options.sessions}.db`);
  const upstreamTokens = `${upstreamDatabase}.tokens`;
  let customers = await provisioned(upstreamDatabase, upstreamTokens, provisioning);
  if (customers === undefined) {
    await provision(upstreamDatabase, upstreamTokens, provisioning);
    customers = await provisioned(upstreamDatabase, upstreamTokens, provisioning);
    if (customers === undefined) throw new Error(`${upstreamDatabase} does not hold the customers provisioned`);
  } else {
    console.log(`${upstreamDatabase} holds these cinemas already (tokens in ${upstreamTokens}): not provisioned again`);
  }
  const downstream = options.database ?? join(WORK, 'sync-downstream.db');
  const kind = parseDatabaseSpec(downstream).kind;
  await emptyDatabase(downstream);
  const run = join(WORK, 'sync-run');
  await mkdir(run, { recursive: true });
  const keys = join(run, 'customers.txt');
  await writeFile(keys, `${customers.map(({ key }) => key).join('\n')}\n`);
  const issued = spawnSync(process.execPath, [MARQUEE, 'token', 'create', '--database', downstream, '--customers-from', keys], { encoding: 'utf8', maxBuffer: 2 ** 30 });
  if (issued.status !== 0) throw new Error(`token create failed: ${issued.stderr}`);
  const downstreamTokens = new Map(issued.stdout.trim().split('\n').map((line) => line.split('\t') as [string, string]));
  const readers: Customer[] = customers.map(({ key }) => ({ key, token: downstreamTokens.get(key) ?? '' }));
  const upstreams = join(run, 'upstreams.tsv');
  await writeFile(upstreams, customers.map(({ key, token }) => `${key}\thttp://127.0.0.1:${UPSTREAM_PORT}\t${token}`).join('\n') + '\n');

  for (const port of [UPSTREAM_PORT, DOWNSTREAM_PORT]) await requireFreePort(port);
  console.log(`Sync of ${options.customers} cinemas of ${options.films} films and ${options.sessions} sessions on ${MACHINE}, into ${kind}; --concurrency ${options.concurrency}, --per-host ${options.perHost}${options.syncNodeFlags.length > 0 ? `; the sync's Node.js flags: ${options.syncNodeFlags.join(' ')}` : ''}`);
  const runStarted = beginRun();
  const upstreamLog = join(run, 'upstream.log');
  const upstreamLines = createWriteStream(upstreamLog);
  const upstream = startNode(['serve', '--database', upstreamDatabase, '--port', String(UPSTREAM_PORT), '--cache-memory', CACHE_MEMORY], (line) => upstreamLines.write(`${line}\n`));
  const children: ChildProcess[] = [upstream];
  const agent = new Agent({ keepAlive: true });
  try {
    await waitUntilAnswering(`http://127.0.0.1:${UPSTREAM_PORT}/readyz`);
    const synced = new Set<string>();
    /** Each cinema's latest change upstream, and the changes the sync has written but the downstream server was not yet seen to serve. */
    const latest = new Map<string, Change>();
    const written = new Set<Change>();
    let failureLines = 0;
    const started = performance.now();
    const sync = startNode(
      ['sync', '--database', downstream, '--upstreams', upstreams, '--every', '15m', '--sessions-every', '1m', '--concurrency', String(options.concurrency), '--per-host', String(options.perHost)],
      (line) => {
        const customer = /^Synced customer '([^']+)'/.exec(line)?.[1];
        if (customer !== undefined) synced.add(customer);
        else if (FAILURE_LINE.test(line)) failureLines++;
        const change = customer === undefined ? undefined : latest.get(customer);
        if (change !== undefined && change.servedAt === undefined && line.includes(': sessions 0 added, 1 changed')) {
          change.writtenAt = performance.now();
          written.add(change);
        }
      },
      options.syncNodeFlags,
    );
    children.push(sync);
    const pid = sync.pid as number;
    let maxRssMb = 0;
    const sampler = setInterval(() => void rssMegabytes(pid).then((mb) => (maxRssMb = Math.max(maxRssMb, mb)), () => {}), 250);
    while (synced.size < customers.length) {
      if (performance.now() - started > 20 * 60_000) throw new Error(`only ${synced.size} cinemas synced in 20 minutes`);
      await sleep(250);
    }
    const firstSync = { seconds: (performance.now() - started) / 1000, cpuSeconds: await cpuSeconds(pid) };
    console.log(`first sync of ${customers.length} cinemas: ${firstSync.seconds.toFixed(1)} s, the sync's CPU ${firstSync.cpuSeconds.toFixed(1)} s, its RSS at most ${maxRssMb.toFixed(0)} MB; ${failureLines} failures logged`);

    // The steady state: the server under measure has core 0 to itself.
    for (const child of [upstream, sync]) pin(child.pid as number, 1);
    pin(process.pid, 1);
    const server = await startMarquee(downstream, join(run, 'server.log'), ['--cache-memory', CACHE_MEMORY], ONE_CORE_NODE_FLAGS, DOWNSTREAM_PORT);
    children.push(server.process);
    // Every cinema's sessions and films published, as on a server that has run a while: the
    // clients then measure a server in service, not its first answers.
    const warming = performance.now();
    for (const reader of readers) for (const path of ['/v1/session/1', `/v4/film/${syntheticFilmId(0)}`]) await get(agent, path, tokenHeader(reader), DOWNSTREAM_PORT);
    console.log(`the server published every cinema's sessions and films in ${((performance.now() - warming) / 1000).toFixed(1)} s`);
    const steadyStarted = performance.now();
    const failuresBefore = failureLines;
    const answers: { status: number; ms: number }[] = [];
    const clientsDelay = monitorEventLoopDelay({ resolution: 1 });
    clientsDelay.enable();
    const until = steadyStarted + options.minutes * 60_000;
    const clients = Array.from({ length: options.clients }, async () => {
      while (performance.now() < until) {
        const reader = readers[randomIndex(readers.length)] as Customer;
        const path = [`/v1/session/${1 + randomIndex(options.sessions)}`, `/v4/film/${syntheticFilmId(randomIndex(options.films))}`, '/v1/session'][randomIndex(3)] as string;
        answers.push(await get(agent, path, tokenHeader(reader), DOWNSTREAM_PORT));
        await sleep(CLIENT_PAUSE_MS);
      }
    });
    // One session of every cinema changes every minute from half a minute in, seats no run before
    // this one left. The CPU of the sync and of the server is read over those minutes; the last
    // pass's changes are then watched for their interval and 10 s more.
    const changes: Change[] = [];
    let watchUntil = Infinity;
    const watching = watchChanges(new Map(readers.map((reader) => [reader.key, reader])), written, () => performance.now() > watchUntil);
    const firstSeats = 1 + (Math.floor(Date.now() / 1000) % 10_000) * 100;
    await sleep(30_000);
    // The processes whose CPU the minutes of changes are measured by: this one commits the changes upstream.
    const measured = { sync: pid, server: server.process.pid as number, upstream: upstream.pid as number, changer: process.pid };
    const cpuOfEach = async (): Promise<Record<keyof typeof measured, number>> =>
      Object.fromEntries(await Promise.all(Object.entries(measured).map(async ([name, id]) => [name, await cpuSeconds(id)]))) as Record<keyof typeof measured, number>;
    const changingFrom = { at: performance.now(), cpu: await cpuOfEach() };
    let passes = 0;
    let changingSeconds = 0;
    let passAt = changingFrom.at;
    for (; passAt + CHANGE_INTERVAL_MS <= until; passAt += CHANGE_INTERVAL_MS) {
      await sleep(Math.max(0, passAt - performance.now()));
      const changing = performance.now();
      await changeEverySession(upstreamDatabase, customers, options.films, firstSeats + passes, run, (change) => {
        latest.set(change.customer, change);
        changes.push(change);
      });
      changingSeconds = (performance.now() - changing) / 1000;
      passes++;
      console.log(`pass ${passes}: changed one session of each of ${customers.length} cinemas upstream in ${changingSeconds.toFixed(1)} s`);
    }
    await sleep(Math.max(0, passAt - performance.now()));
    const changingSecondsInAll = (performance.now() - changingFrom.at) / 1000;
    const cpuAfter = await cpuOfEach();
    const cores = (name: keyof typeof measured): number => (cpuAfter[name] - changingFrom.cpu[name]) / changingSecondsInAll;
    const steady = {
      seconds: changingSecondsInAll,
      cpuCores: cores('sync'),
      serverCpuCores: cores('server'),
      upstreamCpuCores: cores('upstream'),
      changerCpuCores: cores('changer'),
      failureLines: failureLines - failuresBefore,
    };
    watchUntil = performance.now() + CHANGE_INTERVAL_MS + 10_000;
    await Promise.all([...clients, watching]);
    clearInterval(sampler);
    const upstreamPublished = await publishedAfter(upstreamLog, changes);
    const moments = changes.map((change, index) => ({ committed: change.committedAt, published: upstreamPublished[index], written: change.writtenAt, served: change.servedAt }));
    const between = (from: keyof (typeof moments)[number], to: keyof (typeof moments)[number]): number[] =>
      moments.flatMap((moment) => {
        const [start, end] = [moment[from], moment[to]];
        return start === undefined || end === undefined ? [] : [end - start];
      });
    const count = (moment: keyof (typeof moments)[number]): number => moments.filter((times) => times[moment] !== undefined).length;
    const changeMadeUpstream = { ...spread(between('committed', 'published')), published: count('published') };
    const changeWritten = { ...spread(between('published', 'written')), written: count('written') };
    const changeServedAfterUpstream = spread(between('published', 'served'));
    const served = count('served');
    const changeServed = { ...spread(between('committed', 'served')), cinemas: customers.length, passes, served, changingSeconds };
    clientsDelay.disable();
    const serverFigures = {
      clients: options.clients,
      requests: answers.length,
      latency: spread(answers.map((answer) => answer.ms)),
      serverSide: spread(await answerTimes(join(run, 'server.log'), steadyStarted)),
      failures: answers.filter((answer) => answer.status !== 200).length,
      clientsDelay: { p99Ms: clientsDelay.percentile(99) / 1e6, maxMs: clientsDelay.max / 1e6 },
    };
    console.log(`${passes} minutes of changes (${steady.seconds.toFixed(0)} s): the sync used ${(steady.cpuCores * 100).toFixed(1)} % of a core, the downstream server ${(steady.serverCpuCores * 100).toFixed(1)} %; ${steady.failureLines} failures logged`);
    console.log(`  on core 1 with the sync, the stand-in upstream server used ${(steady.upstreamCpuCores * 100).toFixed(1)} % of a core, the changes committed to it (this process) ${(steady.changerCpuCores * 100).toFixed(1)} %`);
    console.log(`each change published by the upstream server after its commit: ${formatSpread(changeMadeUpstream)}; ${changeMadeUpstream.published} of ${changes.length} changes`);
    console.log(`  written downstream by the sync after the upstream published it: ${formatSpread(changeWritten)}; ${changeWritten.written} written`);
    console.log(`  served downstream after the upstream published it: ${formatSpread(changeServedAfterUpstream)}`);
    console.log(`  served downstream after its commit upstream: ${formatSpread(changeServed)}; ${served} of ${changes.length} served`);
    console.log(`the sync's RSS at most ${maxRssMb.toFixed(0)} MB over the whole run`);
    if (options.clients > 0) {
      console.log(`the server, asked by ${options.clients} clients meanwhile: ${serverFigures.requests} answers, ${formatSpread(serverFigures.latency)}, ${serverFigures.failures} other than 200`);
      console.log(`  as the server timed them: ${formatSpread(serverFigures.serverSide)}; the clients' event loop held up ${serverFigures.clientsDelay.p99Ms.toFixed(1)} ms at p99, ${serverFigures.clientsDelay.maxMs.toFixed(1)} ms at most`);
    }
    const results: SyncBenchResults = {
      ...runStarted.header(),
      sync: { ...provisioning, database: kind, concurrency: options.concurrency, perHost: options.perHost, firstSync, steady, changeMadeUpstream, changeWritten, changeServedAfterUpstream, changeServed, maxRssMb, server: serverFigures },
    };
    console.log(`results written to ${await writeResults(runStarted.started, results, `sync-${kind}`)}`);
  } finally {
    agent.destroy();
    for (const child of children.reverse()) await stop(child);
  }
}
