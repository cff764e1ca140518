/**
 * What the sync tests share: upstreams the tests start themselves (a real Marquee, and servers in
 * front of it that fail, hang, answer slowly or without end), the sync process, and what it
 * mirrored.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { issueTokens as issueTokensTo } from '../src/access/manage-tokens.js';
import { DEFAULT_CUSTOMER } from '../src/catalogue/model.js';
import { importFiles } from '../src/import/import-files.js';
import { atEnd, DEMO, DEMO_FILES, exportCatalogue, MARQUEE, ROOT, runCli, serve, tempDir, withDatabase, type ServerProcess } from './helpers.js';

export type Json = Record<string, unknown>;

/** Decides the answer to a request, returning true, or returns false to pass it on. */
export type Intercept = (request: IncomingMessage, response: ServerResponse) => boolean;

export interface Recorded {
  readonly path: string;
  readonly token: string | undefined;
  /** Date.now() when it came. */
  readonly at: number;
  /** The status answered; 0 until the answer is sent. */
  status: number;
  /** Date.now() when its connection was done with it; 0 until then. */
  ended: number;
}

export interface TestUpstream {
  readonly url: string;
  readonly requests: Recorded[];
  /** Requests being answered now, and the most there were at once. */
  readonly inFlight: { now: number; most: number };
  /** What the server does with each request; passing on, unless told otherwise. */
  intercept: Intercept;
}

/**
 * A server in front of `target` (a Marquee), answering as its `intercept` decides or passing each
 * request on, headers and all; every request is recorded. With no target, `intercept` answers all.
 */
export async function upstreamServer(target: string | undefined, intercept: Intercept = () => false): Promise<TestUpstream> {
  const requests: Recorded[] = [];
  const inFlight = { now: 0, most: 0 };
  const upstream: TestUpstream = { url: '', requests, inFlight, intercept };
  const server = createServer((request, response) => {
    const recorded: Recorded = { path: request.url ?? '/', token: request.headers['veeziaccesstoken'] as string | undefined, at: Date.now(), status: 0, ended: 0 };
    requests.push(recorded);
    inFlight.now++;
    inFlight.most = Math.max(inFlight.most, inFlight.now);
    response.on('finish', () => (recorded.status = response.statusCode));
    response.on('close', () => {
      inFlight.now--;
      recorded.ended = Date.now();
    });
    if (upstream.intercept(request, response)) return;
    if (target === undefined) throw new Error(`nothing answers ${request.url}`);
    passOn(target, request, response);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  atEnd(() => {
    // Answers left hanging on purpose end with the server.
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  return Object.assign(upstream, { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
}

/** Answers `request` as `target` does, headers and all; breaks the answer off when the target does not answer (as a test ends). */
export function passOn(target: string, request: IncomingMessage, response: ServerResponse): void {
  fetch(target + (request.url ?? '/'), { headers: request.headers as Record<string, string> })
    .then(async (answer) => {
      const headers = [...answer.headers].filter(([name]) => !['content-encoding', 'content-length', 'transfer-encoding'].includes(name));
      response.writeHead(answer.status, Object.fromEntries(headers));
      response.end(Buffer.from(await answer.arrayBuffer()));
    })
    .catch(() => response.destroy());
}

/** Answers as `target` does, each answer `ms` late. */
export function slowly(target: string, ms: number): Intercept {
  return (request, response) => {
    setTimeout(() => passOn(target, request, response), ms);
    return true;
  };
}

/** Ways an upstream fails, for `intercept`. */
export const FAILING = {
  status:
    (status: number, headers: Readonly<Record<string, string>> = {}): Intercept =>
    (_request, response) => {
      response.writeHead(status, headers).end();
      return true;
    },
  /** Takes the request and never answers. */
  hang: (): Intercept => () => true,
  /** Redirects every request to itself. */
  loop: (): Intercept => (request, response) => {
    response.writeHead(301, { location: request.url ?? '/' }).end();
    return true;
  },
  /** An answer that never ends. */
  endless: (): Intercept => (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(65_536, ' ');
    const pour = (): void => {
      while (!response.destroyed && response.write(chunk));
    };
    response.on('drain', pour);
    pour();
    return true;
  },
};

/** The requests for one path (without its query), in order. */
export function requestsFor(upstream: TestUpstream, path: string, token?: string): Recorded[] {
  return upstream.requests.filter((request) => request.path.split('?')[0] === path && (token === undefined || request.token === token));
}

export interface DemoUpstream {
  readonly server: ServerProcess;
  readonly url: string;
  readonly database: string;
  /** Each customer's token on the upstream. */
  readonly tokens: Readonly<Record<string, string>>;
}

/**
 * Issues a token for each customer; returns them by customer. The upstream's setup is done in
 * this process, as `marquee token create` and `marquee import` would do it: the sync is under test.
 */
export async function issueTokens(database: string, customers: readonly string[]): Promise<Record<string, string>> {
  const issued = await withDatabase(database, (db) => issueTokensTo(db, { customers, label: null }));
  return Object.fromEntries(issued.map(({ token, info }) => [info.customer, token]));
}

/** A Marquee serving the demo cinema to each of `customers`, each through a token of its own. */
export async function demoUpstream(database: string, customers: readonly string[]): Promise<DemoUpstream> {
  await withDatabase(database, async (db) => {
    for (const customer of customers) await importFiles(db, { customer, files: DEMO_FILES, replace: false });
  });
  const tokens = await issueTokens(database, customers);
  const server = await serve(['--database', database]);
  return { server, url: server.url, database, tokens };
}

/** Writes an upstreams file of `lines`, each customer, URL and token ('-' for none). */
export async function upstreamsFile(lines: readonly (readonly [string, string, string])[], file?: string): Promise<string> {
  const path = file ?? join(await tempDir(), 'upstreams.tsv');
  await writeFile(path, `# customer\turl\ttoken\n${lines.map((line) => line.join('\t')).join('\n')}\n`);
  return path;
}

/** Changes the first demo session of `customer` upstream, as an import would: its seats available become `seats`. */
export async function changeSeats(database: string, customer: string, seats: number): Promise<void> {
  const [session] = JSON.parse(await readFile(join(DEMO, 'sessions.json'), 'utf8')) as Json[];
  const changed = { bytes: Buffer.from(JSON.stringify([{ ...session, SeatsAvailable: seats }])), name: 'seats.json', kind: 'session' } as const;
  const result = await withDatabase(database, (db) => importFiles(db, { customer, files: [changed], replace: false }));
  assert.ok(result.written, `the seats of '${customer}' were not changed`);
}

export interface SyncProcess {
  readonly child: ChildProcess;
  /** Every line written, standard output and error alike, as written. */
  readonly lines: string[];
  readonly exited: Promise<number | null>;
  /** Sends `signal` and resolves with the exit status. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `marquee sync ARGS`, killed when the test file ends if it has not exited by then. */
export function startSync(args: readonly string[], env: NodeJS.ProcessEnv = {}): SyncProcess {
  const child = spawn(process.execPath, [MARQUEE, 'sync', ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  atEnd(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  });
  const lines: string[] = [];
  for (const stream of [child.stdout, child.stderr]) createInterface({ input: stream as NodeJS.ReadableStream }).on('line', (line) => lines.push(line));
  return {
    child,
    lines,
    exited,
    stop: async (signal = 'SIGTERM') => {
      child.kill(signal);
      return exited;
    },
  };
}

/** What `marquee sync status --json` says of each customer, by key, with its exit status. */
export async function syncStatus(database: string): Promise<{ status: number; customers: Record<string, Json> }> {
  const result = await runCli(['sync', 'status', '--database', database, '--json']);
  assert.ok(result.status === 0 || result.status === 1, result.stderr);
  const customers = Object.fromEntries((JSON.parse(result.stdout) as Json[]).map((entry) => [entry['customer'] as string, entry]));
  return { status: result.status, customers };
}

/**
 * What a sync mirrors of a customer's catalogue: its export, less the Url of sessions, which a sync
 * takes from the upstream's web sessions, and so only for sessions on sale.
 */
export async function mirrored(database: string, customer = DEFAULT_CUSTOMER): Promise<Json> {
  const { sessions = '[]', ...rest } = await exportCatalogue(database, 'json', customer);
  return { ...rest, sessions: (JSON.parse(sessions) as Json[]).map(({ Url: _url, ...session }) => session) };
}
