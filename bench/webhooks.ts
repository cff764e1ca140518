/**
 * `npm run bench -- --webhooks`: one `marquee serve` delivering the webhooks of many cinemas, each
 * with one endpoint, each changing once a minute (CONTRACT §14: within 5 s of the commit at p99,
 * under 0.1 of a core).
 *
 * The database (`--webhooks-database`, a SQLite file in a scratch directory by default, or a
 * scratch postgres:// database) gets N customers and an endpoint each, pointing at a receiver in
 * this process on loopback (allowed by `--webhook-target`). The server, pinned to core 0, is left
 * to settle; then, for `--webhooks-minutes`, this process commits one change of each cinema a
 * minute, each cinema at its own moment of the minute, as a sync's sessions would. A change is
 * committed as every write commits one (`commitCatalogueChange`, in its own transaction, which
 * notifies the servers), without records: the records' import is the sync's cost, measured by
 * `--sync`, not the delivery's. Each delivery is timed from the change's commit time, as stored,
 * to the receiver's reading of its request. The server's CPU time is read from /proc over the
 * run; it answers no API request meanwhile. With `--webhooks-baseline` the same run has no
 * endpoint: what following the commits costs a server that delivers nothing, which the delivery's
 * work comes on top of.
 */
import { once } from 'node:events';
import { rm, mkdtemp } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newWebhookSecret } from '../src/changes/webhook-signature.js';
import { commitCatalogueChange } from '../src/store/catalogue-repository.js';
import { openDatabase, parseDatabaseSpec } from '../src/store/database.js';
import { insertEndpoint } from '../src/store/webhook-repository.js';
import { beginRun, cpuSeconds, MARQUEE, preparePostgres, sleep, startLogging, stop, waitUntilAnswering, writeResults } from './harness.js';
import type { LatencySpread, RunHeader } from './results.js';
import { formatSpread, spread } from './scale.js';

export interface WebhookBenchOptions {
  readonly cinemas: number;
  readonly minutes: number;
  /** A scratch postgres:// database; a SQLite file in a scratch directory when undefined. */
  readonly database: string | undefined;
  /** No endpoint: the server follows the commits and delivers nothing. */
  readonly baseline: boolean;
}

export interface WebhookBenchResults extends RunHeader {
  readonly webhooks: {
    readonly cinemas: number;
    readonly minutes: number;
    readonly database: 'sqlite' | 'postgres';
    readonly baseline: boolean;
    readonly committed: number;
    readonly delivered: number;
    /** Deliveries of an event already delivered. */
    readonly repeated: number;
    readonly commitToDelivery: LatencySpread | null;
    /** The server's CPU time over the run, in cores. */
    readonly serverCores: number;
  };
}

const RECEIVER_PORT = 18_190;
/** A port of its own: other benchmarks may run on the machine at the same time. */
const SERVER_PORT = 18_191;

export async function benchWebhooks(options: WebhookBenchOptions): Promise<void> {
  const run = beginRun();
  const work = await mkdtemp(join(tmpdir(), 'marquee-webhooks-'));
  const database = options.database ?? join(work, 'marquee.db');
  if (options.database !== undefined) await preparePostgres(options.database, true, '--webhooks-database');
  const db = await openDatabase(parseDatabaseSpec(database));
  const committedAt = new Map<string, number>();
  const latencies: number[] = [];
  let repeated = 0;
  const receiver = createServer((request, response) => {
    const id = String(request.headers['webhook-id']);
    request.resume();
    request.on('end', () => {
      const at = committedAt.get(id);
      if (at === undefined) repeated += 1;
      else {
        latencies.push(Date.now() - at);
        committedAt.delete(id);
      }
      response.writeHead(204).end();
    });
  });
  receiver.listen(RECEIVER_PORT, '127.0.0.1');
  await once(receiver, 'listening');
  const customers = Array.from({ length: options.cinemas }, (_, index) => `cinema-${index + 1}`);
  await db.transaction(async (tx) => {
    for (const customer of options.baseline ? [] : customers) {
      await insertEndpoint(tx, { customer, url: `http://127.0.0.1:${RECEIVER_PORT}/${customer}`, label: null, secret: newWebhookSecret(), now: Date.now() });
    }
  });
  const server = await startLogging(
    [MARQUEE, 'serve', '--database', database, '--port', String(SERVER_PORT), '--webhook-target', `http://127.0.0.1:${RECEIVER_PORT}/`, '--log-level', 'warn'],
    join(work, 'server.log'),
  );
  await waitUntilAnswering(SERVER_PORT, '/readyz');
  const pid = server.pid as number;
  try {
    await sleep(3000);
    const cpuBefore = await cpuSeconds(pid);
    const started = Date.now();
    const minuteMs = 60_000;
    let committed = 0;
    let changed = 0;
    // Each cinema at its own moment of each minute: cinema i at i/N of it.
    for (let minute = 0; minute < options.minutes; minute++) {
      for (const [index, customer] of customers.entries()) {
        const due = started + minute * minuteMs + (index * minuteMs) / customers.length;
        const wait = due - Date.now();
        if (wait > 0) await sleep(wait);
        const change = { sessions: { added: [], changed: [++changed], removed: [] } };
        const { version, changedAt } = await db.transaction((tx) => commitCatalogueChange(tx, customer, change));
        if (!options.baseline) committedAt.set(`msg_${customer}_${version}`, changedAt.getTime());
        committed += 1;
      }
    }
    const deadline = Date.now() + 30_000;
    while (committedAt.size > 0 && Date.now() < deadline) await sleep(100);
    const seconds = (Date.now() - started) / 1000;
    const serverCores = ((await cpuSeconds(pid)) - cpuBefore) / seconds;
    const results: WebhookBenchResults = {
      ...run.header(),
      webhooks: {
        cinemas: options.cinemas,
        minutes: options.minutes,
        database: options.database === undefined ? 'sqlite' : 'postgres',
        baseline: options.baseline,
        committed,
        delivered: latencies.length,
        repeated,
        commitToDelivery: latencies.length === 0 ? null : spread(latencies),
        serverCores,
      },
    };
    const { commitToDelivery } = results.webhooks;
    console.log(`${options.cinemas} cinemas, ${options.minutes} min, ${results.webhooks.database}: ${committed} changes committed, ${latencies.length} delivered, ${repeated} delivered again`);
    if (commitToDelivery !== null) console.log(`commit to delivery: ${formatSpread(commitToDelivery)}`);
    console.log(`server CPU: ${serverCores.toFixed(3)} of a core${options.baseline ? ', with no endpoint' : ''}`);
    console.log(`results written to ${await writeResults(run.started, results, 'webhooks')}`);
  } finally {
    await stop(server);
    receiver.close();
    await db.close();
    await rm(work, { recursive: true, force: true });
  }
}
