/**
 * Webhooks survive what servers go through (CONTRACT §14): a server killed mid-delivery leaves
 * the event to be sent again, under the same webhook-id, once one runs again; two servers on one
 * database deliver each event once between them, and when one is killed the other delivers what
 * follows. Servers are real `marquee serve` processes; the receiver is on loopback.
 */
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { DEMO, freshDatabase, runCli, serve, tempDir, waitFor, type ServerProcess } from './helpers.js';
import { Receivers, verified } from './webhook-receivers.js';

let database: string;
let receivers: Receivers;
const secrets = new Map<string, string>();
const [firstFilm] = JSON.parse(await readFile(join(DEMO, 'films.json'), 'utf8')) as [Record<string, unknown>];
let changes = 0;

async function addEndpoint(path: string, url: string): Promise<void> {
  const added = await runCli(['webhook', 'add', '--database', database, '--customer', 'default', '--url', url, '--webhook-target', `${receivers.origin}/`]);
  assert.equal(added.status, 0, added.stderr);
  secrets.set(path, added.stdout.trim());
}

/** Commits one more change of the catalogue through the command line. */
async function change(): Promise<void> {
  const file = join(await tempDir(), 'films.json');
  await writeFile(file, JSON.stringify([{ ...firstFilm, Title: `Nosferatu, take ${++changes}` }]));
  const imported = await runCli(['import', '--database', database, file]);
  assert.equal(imported.status, 0, imported.stderr);
}

function startServer(): Promise<ServerProcess> {
  // At debug, every delivery is logged: the secrets must be in none of it.
  return serve(['--database', database, '--webhook-target', `${receivers.origin}/`, '--log-level', 'debug']);
}

function versionsTo(path: string): number[] {
  return receivers.to(path).map((received) => verified(secrets.get(path) as string, received).data.version);
}

/** The last version recorded as delivered to each endpoint. */
async function delivered(): Promise<number[]> {
  const listed = await runCli(['webhook', 'list', '--database', database, '--json']);
  return (JSON.parse(listed.stdout) as { deliveredVersion: number }[]).map((endpoint) => endpoint.deliveredVersion);
}

function assertNoSecretIn(server: ServerProcess): void {
  const output = server.output.join('\n');
  for (const secret of secrets.values()) assert.ok(!output.includes(secret.slice('whsec_'.length)), 'a secret was written to the log');
}

before(async () => {
  database = await freshDatabase();
  const imported = await runCli(['import', '--database', database, DEMO]);
  assert.equal(imported.status, 0, imported.stderr);
  receivers = await Receivers.start();
});

let survivor: ServerProcess;

test('a server killed mid-delivery: the next one delivers the event under the same webhook-id', async () => {
  // The first request is held, unanswered, as the server is killed; later ones are answered.
  await addEndpoint('/hook', receivers.at('/hook', (index) => (index === 0 ? 'hold' : { status: 204 })));
  const killed = await startServer();
  await change();
  await waitFor(() => receivers.to('/hook').length >= 1, 60_000);
  killed.child.kill('SIGKILL');
  await killed.exited;

  survivor = await startServer();
  // The killed server's lease on the endpoint runs out first: seconds, not the request's deadline.
  await waitFor(() => receivers.to('/hook').length >= 2, 60_000);
  const [first, second] = receivers.to('/hook');
  assert.equal(first?.headers['webhook-id'], 'msg_default_2');
  assert.equal(second?.headers['webhook-id'], 'msg_default_2');
  assert.deepEqual(versionsTo('/hook'), [2, 2]);
  assertNoSecretIn(killed);
});

test('two servers on one database deliver each event once; when one is killed the other delivers what follows', async () => {
  await addEndpoint('/pair', receivers.at('/pair', () => ({ status: 200 })));
  const other = await startServer();
  for (let i = 0; i < 4; i++) await change();
  await waitFor(() => versionsTo('/pair').includes(6) && versionsTo('/hook').includes(6), 60_000);
  assert.deepEqual(versionsTo('/pair'), [3, 4, 5, 6]);
  assert.deepEqual(versionsTo('/hook'), [2, 2, 3, 4, 5, 6]);

  // Killed once both deliveries are recorded: one killed between an answer and its record sends it again, as at least once allows.
  await waitFor(async () => (await delivered()).every((version) => version === 6), 60_000);
  other.child.kill('SIGKILL');
  await other.exited;
  await change();
  await waitFor(() => versionsTo('/pair').includes(7) && versionsTo('/hook').includes(7), 60_000);
  assert.deepEqual(versionsTo('/pair'), [3, 4, 5, 6, 7]);
  assert.deepEqual(versionsTo('/hook'), [2, 2, 3, 4, 5, 6, 7]);
  assertNoSecretIn(survivor);
  assertNoSecretIn(other);
});
