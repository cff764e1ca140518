/**
 * Webhooks (CONTRACT §14) through the command line and a running server: endpoints registered
 * with `marquee webhook add`, changes committed by `marquee import`, and the requests that
 * receivers on loopback get, their signatures checked by the `standardwebhooks` package. The
 * server waits 100 ms between tries and 2 s for an answer, where the contract says 5 s onwards
 * and 15 s, so that the retries and the deadline are seen within the test. The changes are
 * committed before the server starts, so that it finds them all at once.
 */
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { SERVE_COMMAND } from '../src/cli/serve-command.js';
import { resolveSettings } from '../src/config.js';
import { startServer, type RunningServer } from '../src/server/serve.js';
import { DEMO, freshDatabase, runCli, runCliWritingTo, tempDir, waitFor } from './helpers.js';
import { Receivers, verified, type Received } from './webhook-receivers.js';

let database: string;
let receivers: Receivers;
let server: RunningServer;
/** Whether the held endpoint answers: until then it holds every request it is sent. */
let heldAnswers = false;
const secrets = new Map<string, string>();
const films = JSON.parse(await readFile(join(DEMO, 'films.json'), 'utf8')) as { Id: string; Title: string }[];
const [firstFilm] = films as [{ Id: string; Title: string }];

async function addEndpoint(path: string, url: string): Promise<void> {
  const added = await runCli(['webhook', 'add', '--database', database, '--customer', 'default', '--url', url, '--label', path, '--webhook-target', `${receivers.origin}/`]);
  assert.equal(added.status, 0, added.stderr);
  const secret = added.stdout.trim();
  assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  secrets.set(path, secret);
}

/** Commits a change of the first film's title through the command line. */
async function retitle(title: string): Promise<void> {
  const file = join(await tempDir(), 'films.json');
  await writeFile(file, JSON.stringify([{ ...firstFilm, Title: title }]));
  const imported = await runCli(['import', '--database', database, file]);
  assert.equal(imported.status, 0, imported.stderr);
}

function versions(path: string): number[] {
  return receivers.to(path).map((received) => verified(secrets.get(path) as string, received).data.version);
}

function ids(requests: readonly Received[]): string[] {
  return requests.map((received) => String(received.headers['webhook-id']));
}

async function cliJson<T>(args: readonly string[]): Promise<T> {
  const result = await runCli([...args, '--database', database, '--json']);
  assert.equal(result.status, 0, result.stderr);
  return JSON.parse(result.stdout) as T;
}

before(async () => {
  database = await freshDatabase();
  const imported = await runCli(['import', '--database', database, DEMO]);
  assert.equal(imported.status, 0, imported.stderr);
  receivers = await Receivers.start();
  await addEndpoint('/ok', receivers.at('/ok', () => ({ status: 204 })));
  await addEndpoint('/flaky', receivers.at('/flaky', (index) => ({ status: index < 2 ? 500 : 200 })));
  await addEndpoint('/held', receivers.at('/held', () => (heldAnswers ? { status: 200 } : 'hold')));
  await addEndpoint('/hanging', receivers.at('/hanging', () => 'hold'));
  await addEndpoint('/gone', receivers.at('/gone', () => ({ status: 410 })));
  await addEndpoint('/limited', receivers.at('/limited', (index) => (index === 0 ? { status: 429, headers: { 'retry-after': '2' } } : { status: 200 })));
  await addEndpoint('/moved', receivers.at('/moved', () => ({ status: 307, headers: { location: receivers.at('/elsewhere', () => ({ status: 200 })) } })));
  for (const title of ['Nosferatu (restored)', 'Nosferatu (4K)', 'Nosferatu']) await retitle(title);
  const settings = resolveSettings(SERVE_COMMAND.settings, { database, port: '0', 'log-level': 'silent', 'webhook-target': [`${receivers.origin}/`] });
  server = await startServer({
    settings,
    seedFiles: [],
    webhookTimings: { schedule: { retryDelaysMs: [100, 100, 100, 100, 100], giveUpAfterMs: 3_600_000 }, requestTimeoutMs: 2000 },
  });
});

after(() => server.close());

test('each committed change is one signed event, sent to every endpoint in version order', async () => {
  await waitFor(() => receivers.to('/ok').length >= 3, 60_000);
  // A slow endpoint delays no other: the held one is still at its first event while the others are through.
  assert.deepEqual(new Set(versions('/held')), new Set([2]));
  assert.deepEqual(versions('/ok'), [2, 3, 4]);
  const [event] = receivers.to('/ok').map((received) => verified(secrets.get('/ok') as string, received));
  assert.equal(event?.type, 'catalogue.changed');
  assert.ok(event !== undefined && !Number.isNaN(Date.parse(event.timestamp)));
  assert.deepEqual(event?.data.changes, { films: { added: [], changed: [firstFilm.Id], removed: [] } });
  assert.equal(event?.data.tags.length, 1);
  assert.match(event?.data.tags[0] ?? '', /^mq-[\w-]+-films$/);
  assert.ok(!(event?.data.tags[0] ?? '').includes('default'), 'a tag does not reveal the customer key');
  assert.deepEqual(ids(receivers.to('/ok')), ['msg_default_2', 'msg_default_3', 'msg_default_4']);
  // Signed with each endpoint's own secret: another's does not verify.
  assert.throws(() => verified(secrets.get('/flaky') as string, receivers.to('/ok')[0] as Received));

  heldAnswers = true;
  receivers.release('/held');
  await waitFor(() => versions('/held').includes(4), 60_000);
  const held = versions('/held');
  assert.deepEqual([...new Set(held)], [2, 3, 4]);
  assert.deepEqual(held, held.toSorted(), 'in version order, each tried again until it was taken');
});

test('a failing endpoint gets the same event, under the same webhook-id, until it takes it, and then the next ones in order', async () => {
  await waitFor(() => receivers.to('/flaky').length >= 5, 60_000);
  assert.deepEqual(ids(receivers.to('/flaky')), ['msg_default_2', 'msg_default_2', 'msg_default_2', 'msg_default_3', 'msg_default_4']);
  // The body is the same on every try; only the timestamp and the signature are new.
  const [first, , third] = receivers.to('/flaky');
  assert.equal(first?.body, third?.body);
  const tries = await cliJson<{ endpointId: number; version: number; attempt: number; status: number | null; nextAt: string | null }[]>(['webhook', 'deliveries', '2', '--failed']);
  assert.deepEqual(
    tries.map(({ version, attempt, status }) => [version, attempt, status]),
    [
      [2, 2, 500],
      [2, 1, 500],
    ],
  );
  assert.ok(tries.every((one) => one.nextAt !== null));
});

test('429 is tried again no sooner than its Retry-After, longer than the schedule here; 410 disables the endpoint', async () => {
  await waitFor(() => receivers.to('/limited').length >= 4, 60_000);
  assert.deepEqual(ids(receivers.to('/limited')), ['msg_default_2', 'msg_default_2', 'msg_default_3', 'msg_default_4']);
  const [limited] = await cliJson<{ attemptedAt: string; nextAt: string; status: number }[]>(['webhook', 'deliveries', '6', '--failed']);
  assert.equal(limited?.status, 429);
  assert.ok(Date.parse(limited?.nextAt ?? '') - Date.parse(limited?.attemptedAt ?? '') >= 2000, 'the next try waits for Retry-After: 2');

  assert.equal(receivers.to('/gone').length, 1);
  const endpoints = await cliJson<{ id: number; url: string; enabled: boolean; disabledReason: string | null }[]>(['webhook', 'list']);
  const gone = endpoints.find((endpoint) => endpoint.url.endsWith('/gone'));
  assert.deepEqual([gone?.enabled, gone?.disabledReason], [false, 'the endpoint answered 410 Gone']);
});

test('a redirect is not followed: it fails, and is tried again at the same URL until the schedule is spent', async () => {
  await waitFor(async () => (await cliJson<{ url: string; enabled: boolean }[]>(['webhook', 'list'])).some((endpoint) => endpoint.url.endsWith('/moved') && !endpoint.enabled), 60_000);
  assert.equal(receivers.to('/moved').length, 6);
  assert.deepEqual(receivers.to('/elsewhere'), []);
  const [latest] = await cliJson<{ status: number; error: string }[]>(['webhook', 'deliveries', '7']);
  assert.deepEqual([latest?.status, latest?.error], [307, 'answered 307: redirects are not followed']);
});

test('an endpoint that never answers is given up on each try at the deadline, and disabled once the schedule is spent', async () => {
  await waitFor(async () => (await cliJson<{ url: string; enabled: boolean }[]>(['webhook', 'list'])).some((endpoint) => endpoint.url.endsWith('/hanging') && !endpoint.enabled), 90_000);
  const tries = await cliJson<{ version: number; error: string | null }[]>(['webhook', 'deliveries', '4']);
  assert.equal(tries.length, 6);
  assert.ok(tries.every((one) => one.version === 2 && one.error === 'no answer within 2 s'));
  const list = await runCli(['webhook', 'list', '--database', database]);
  assert.match(list.stdout, /\/hanging +\/hanging +disabled: all 6 tries failed/);
  // The server counts its tries for operators: /gone, /hanging and /moved were given up.
  const metrics = await (await fetch(`${server.url}/metrics`)).text();
  assert.match(metrics, /^marquee_webhook_tries_total\{outcome="disabled"\} 3$/m);
  assert.match(metrics, /^marquee_webhook_tries_total\{outcome="delivered"\} [1-9]\d*$/m);
});

test('webhook add whose secret cannot be written removes the endpoint, and fails saying nothing was issued', async () => {
  const elsewhere = await freshDatabase();
  const args = ['webhook', 'add', '--database', elsewhere, '--customer', 'default', '--url', `${receivers.origin}/full`, '--webhook-target', `${receivers.origin}/`];
  const result = await runCliWritingTo('/dev/full', args);
  assert.equal(result.status, 1);
  assert.equal(result.stderr, 'marquee: webhook add: nothing was issued: its secret could not be written to standard output (ENOSPC: no space left on device, write)\n');
  assert.equal((await runCli(['webhook', 'list', '--database', elsewhere, '--json'])).stdout, '[]\n');
});

test('webhook add refuses a URL the address rule refuses, naming --webhook-target; nothing shows a secret again', async () => {
  const loopback = await runCli(['webhook', 'add', '--database', database, '--customer', 'default', '--url', `${receivers.origin}/ok`]);
  assert.equal(loopback.status, 2);
  assert.match(loopback.stderr, /not a public address; name a prefix with --webhook-target/);
  const privateAddress = await runCli(['webhook', 'add', '--database', database, '--customer', 'default', '--url', 'http://10.1.2.3/hook']);
  assert.equal(privateAddress.status, 2);
  // Starting with the prefix as text, but naming another host after user information.
  const disguised = await runCli(['webhook', 'add', '--database', database, '--customer', 'default', '--url', `${receivers.origin}@10.1.2.3/hook`, '--webhook-target', receivers.origin]);
  assert.equal(disguised.status, 2);
  assert.match(disguised.stderr, /10\.1\.2\.3 is 10\.1\.2\.3, not a public address/);
  const withPassword = await runCli(['webhook', 'add', '--database', database, '--customer', 'default', '--url', 'https://user:hunter2@93.184.215.14/hook']);
  assert.deepEqual([withPassword.status, withPassword.stderr], [2, "marquee: webhook add: --url must hold no user name or password (each delivery is signed), got 'https://93.184.215.14/hook…'\n"]);
  const notHttp = await runCli(['webhook', 'add', '--database', database, '--customer', 'default', '--url', 'ftp://example.com/']);
  assert.match(notHttp.stderr, /--url must be an http or https URL, got 'ftp:\/\/example.com\/'/);
  const listed = [await runCli(['webhook', 'list', '--database', database]), await runCli(['webhook', 'list', '--database', database, '--json']), await runCli(['webhook', 'deliveries', '--database', database])];
  for (const secret of secrets.values()) for (const output of listed) assert.ok(!output.stdout.includes(secret.slice(6)) && !output.stderr.includes(secret.slice(6)));

  const removed = await runCli(['webhook', 'remove', '--database', database, '5']);
  assert.equal(removed.status, 0, removed.stderr);
  const again = await runCli(['webhook', 'remove', '--database', database, '5']);
  assert.deepEqual([again.status, again.stderr], [1, "marquee: webhook remove: no endpoint has the id 5; 'marquee webhook list' shows them\n"]);
  const deliveries = await runCli(['webhook', 'deliveries', '--database', database, '5']);
  assert.deepEqual([deliveries.status, deliveries.stdout, deliveries.stderr], [1, '', "marquee: webhook deliveries: no endpoint has the id 5; 'marquee webhook list' shows them\n"]);
  const help = await runCli(['webhook', 'add', '--help']);
  assert.match(help.stdout, /--webhook-target PREFIX/);
});
