/**
 * Several servers on one database, as when running at scale: they start together, follow
 * imports made anywhere, ride out an outage, and read from a replica when told to.
 */
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { before, test } from 'node:test';
import pg from 'pg';
import { openDatabase, parseDatabaseSpec } from '../src/store/database.js';
import { DEMO, TEST_DATABASE, administerPostgres, freshDatabase, runCli, serve, tempDir, waitFor, type ServerProcess } from './helpers.js';
import { skippedByDesign } from './skipped-by-design.js';

type Json = Record<string, unknown>;

/** Long enough for a busy machine; a test waits for the event itself and stops waiting when it comes. */
const DEADLINE_MS = 30_000;

let demoFilms: Json[];
let work: string;

before(async () => {
  demoFilms = JSON.parse(await readFile(join(DEMO, 'films.json'), 'utf8')) as Json[];
  work = await tempDir();
});

async function filmTitle(server: ServerProcess, id: string): Promise<unknown> {
  const response = await fetch(`${server.url}/v4/film/${encodeURIComponent(id)}`);
  return response.ok ? ((await response.json()) as Json)['Title'] : response.status;
}

/** Imports the first demo film under a new title, through the command line. */
async function retitle(database: string, title: string): Promise<void> {
  const file = join(work, `${title.replace(/\W+/g, '-')}.json`);
  await writeFile(file, JSON.stringify({ ...demoFilms[0], Title: title }));
  const result = await runCli(['import', '--database', database, file]);
  assert.equal(result.status, 0, result.stderr);
}

async function stop(...servers: ServerProcess[]): Promise<void> {
  await Promise.all(
    servers.map(async (server) => {
      const exited = new Promise((resolve) => server.child.once('exit', resolve));
      server.child.kill('SIGTERM');
      assert.equal(await exited, 0);
    }),
  );
}

test('two servers on one database both show an import made through the command line, told of it rather than polling for it', async (t) => {
  const database = await freshDatabase();
  // Only a notification can bring the change before the deadline: the servers poll once an hour.
  // PostgreSQL notifies; a server on SQLite sees the commit of another process in its data version.
  // How soon is reported; the deadline is far beyond it, and far below an hour.
  const pollInterval = '3600000';
  // Both servers and the importer start on the empty database at once, and each migrates it.
  const [first, second, seeded] = await Promise.all([
    serve(['--database', database, '--poll-interval', pollInterval]),
    serve(['--database', database, '--poll-interval', pollInterval]),
    runCli(['import', '--database', database, DEMO]),
  ]);
  assert.equal(seeded.status, 0, seeded.stderr);
  const id = demoFilms[0]?.['Id'] as string;
  await Promise.all([first, second].map((server) => waitFor(async () => (await filmTitle(server, id)) === demoFilms[0]?.['Title'], DEADLINE_MS)));

  await retitle(database, 'Nosferatu (restored)');
  const latencies = await Promise.all([first, second].map((server) => waitFor(async () => (await filmTitle(server, id)) === 'Nosferatu (restored)', DEADLINE_MS)));
  t.diagnostic(`both servers answered the import ${Math.max(...latencies)} ms after the command returned`);
  if (TEST_DATABASE === 'postgres') {
    // Each server listens on one connection, whatever of it follows the commits.
    const name = new URL(database).pathname.slice(1);
    const [listening] = await administerPostgres(`SELECT count(*)::int AS connections FROM pg_stat_activity WHERE datname = '${name}' AND query LIKE 'LISTEN %'`);
    assert.equal(listening?.['connections'], 2);
  }
  await stop(first, second);
});

test('a server goes on following a database set back behind what it saw, as when restored from a copy', async () => {
  const database = await freshDatabase();
  assert.equal((await runCli(['import', '--database', database, DEMO])).status, 0);
  // Told of commits only: on PostgreSQL, no look comes between the setting back, which notifies
  // nothing, and the next commit. SQLite tells of every commit, the setting back included.
  const server = await serve(['--database', database, '--poll-interval', '3600000']);
  const id = demoFilms[0]?.['Id'] as string;
  for (const title of ['Nosferatu (first cut)', 'Nosferatu (second cut)']) {
    await retitle(database, title);
    await waitFor(async () => (await filmTitle(server, id)) === title, DEADLINE_MS);
  }
  // The copy was taken before the changes the server saw: every version's place in the order of
  // commits is behind the server's, and the next commit takes a place the server has seen.
  const db = await openDatabase(parseDatabaseSpec(database));
  try {
    await db.transaction((tx) => tx.execute('UPDATE catalogue SET moved = 0'));
  } finally {
    await db.close();
  }
  await retitle(database, 'Nosferatu (restored)');
  await waitFor(async () => (await filmTitle(server, id)) === 'Nosferatu (restored)', DEADLINE_MS);
  await stop(server);
});

const OUTAGE = 'a server answers from its last catalogue while its database is away, and catches up when it returns';
test(OUTAGE, { skip: skippedByDesign(OUTAGE) }, async () => {
  const database = await freshDatabase();
  const name = new URL(database).pathname.slice(1);
  assert.equal((await runCli(['import', '--database', database, DEMO])).status, 0);
  // One server notices the outage by polling; the other polls once an hour, so it catches up
  // only by listening again on a new connection.
  const polling = await serve(['--database', database]);
  const listening = await serve(['--database', database, '--poll-interval', '3600000']);
  const before = await (await fetch(`${polling.url}/v4/film`)).text();
  // Each holds the catalogue once it has answered from it.
  assert.equal(await (await fetch(`${listening.url}/v4/film`)).text(), before);

  await administerPostgres(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
  await administerPostgres(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}'`);
  await waitFor(async () => polling.logs.some((entry) => /the database does not answer/.test(String(entry['msg']))), DEADLINE_MS);
  const ready = await fetch(`${polling.url}/readyz`);
  assert.equal(ready.status, 503);
  assert.equal(((await ready.json()) as Record<string, unknown>)['detail'], 'The database does not answer.');
  for (const server of [polling, listening]) {
    for (let i = 0; i < 3; i++) {
      const response = await fetch(`${server.url}/v4/film`);
      assert.equal(response.status, 200);
      assert.equal(await response.text(), before);
    }
    // The change feed is read from the database at each request: it is unavailable for now.
    const changes = await fetch(`${server.url}/changes?since=0`);
    assert.equal(changes.status, 503);
    assert.equal(changes.headers.get('retry-after'), '1');
  }

  await administerPostgres(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
  await waitFor(async () => polling.logs.some((entry) => entry['msg'] === 'the database answers again'), DEADLINE_MS);
  assert.equal((await fetch(`${polling.url}/readyz`)).status, 200);
  await retitle(database, 'Nosferatu (after the outage)');
  const id = demoFilms[0]?.['Id'] as string;
  await Promise.all([polling, listening].map((server) => waitFor(async () => (await filmTitle(server, id)) === 'Nosferatu (after the outage)', DEADLINE_MS)));

  // A look that fails while the listening connection stays up is tried again soon, not at the next commit an hour away.
  const holder = new pg.Client({ connectionString: database });
  await holder.connect();
  await holder.query('BEGIN');
  await holder.query('LOCK TABLE access_correction_version IN ACCESS EXCLUSIVE MODE');
  await retitle(database, 'Nosferatu (after a failed look)');
  const waitingLooks = `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}' AND wait_event_type = 'Lock'`;
  await waitFor(async () => (await administerPostgres(waitingLooks)).length > 0, DEADLINE_MS);
  await holder.query('COMMIT');
  await holder.end();
  await waitFor(async () => (await filmTitle(listening, id)) === 'Nosferatu (after a failed look)', DEADLINE_MS);
  assert.equal((await fetch(`${listening.url}/readyz`)).status, 200);
  await stop(polling, listening);
});

test('--read-database serves the catalogue of the read database, while --database takes the writes', async () => {
  const primary = await freshDatabase();
  const replica = await freshDatabase();
  const one = join(work, 'one.json');
  await writeFile(one, JSON.stringify(demoFilms[1]));
  assert.equal((await runCli(['import', '--database', replica, one])).status, 0);

  // The seed is written to the primary, whose catalogue this server never answers from.
  const server = await serve(['--database', primary, '--read-database', replica, '--seed', DEMO]);
  const listed = (await (await fetch(`${server.url}/v4/film`)).json()) as Json[];
  assert.deepEqual(listed.map((film) => film['Id']), [demoFilms[1]?.['Id']]);
  const out = join(work, 'primary');
  assert.equal((await runCli(['export', '--database', primary, '--out', out])).status, 0);
  assert.equal((JSON.parse(await readFile(join(out, 'films.json'), 'utf8')) as unknown[]).length, demoFilms.length);

  // What reaches the replica is served; what only reached the primary is not.
  await retitle(primary, 'Only on the primary');
  await retitle(replica, 'Replicated');
  const id = demoFilms[0]?.['Id'] as string;
  await waitFor(async () => (await filmTitle(server, id)) === 'Replicated', DEADLINE_MS);
  await stop(server);
});
