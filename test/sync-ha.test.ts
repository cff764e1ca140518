import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { writeSyntheticCatalogue } from '../scripts/generate-catalogue.js';
import { exportCatalogue, freshDatabase, runCli, serve, tempDir, waitFor } from './helpers.js';
import { changeSeats, demoUpstream, issueTokens, mirrored, requestsFor, slowly, startSync, syncStatus, upstreamServer, upstreamsFile } from './upstreams.js';

const CINEMAS = ['cinema-1', 'cinema-2', 'cinema-3', 'cinema-4', 'cinema-5', 'cinema-6'];
const INTERVAL_MS = 2000;

describe('sync processes sharing a database', () => {
  test('two sync each cinema once per interval between them; when one is killed the other takes its cinemas within an interval', { timeout: 180_000 }, async () => {
    const upstream = await demoUpstream(await freshDatabase(), CINEMAS);
    const watched = await upstreamServer(upstream.url);
    const local = await freshDatabase();
    const file = await upstreamsFile(CINEMAS.map((cinema) => [cinema, watched.url, upstream.tokens[cinema] ?? '-']));
    // One cinema at a time each, and the first syncs slowed: the process that starts first cannot
    // have synced all six before the other starts, however late a busy machine starts it.
    const flags = ['--database', local, '--upstreams', file, '--every', '1h', '--sessions-every', '2s', '--per-host', '1'];
    watched.intercept = slowly(upstream.url, 250);
    const [one, other] = [startSync(flags), startSync(flags)] as const;
    const synced = (cinema: string): number => [...one.lines, ...other.lines].filter((line) => line.startsWith(`Synced customer '${cinema}'`)).length;
    await waitFor(() => CINEMAS.every((cinema) => synced(cinema) >= 1), 60_000);
    watched.intercept = () => false;
    // Each cinema's first sync was made by one of the two.
    for (const cinema of CINEMAS) assert.equal(synced(cinema), 1, cinema);
    assert.ok(one.lines.some((line) => line.startsWith('Synced')) && other.lines.some((line) => line.startsWith('Synced')), 'both synced some');

    // Three intervals: each cinema's sessions read three times between the two, not six.
    const from = Date.now() + INTERVAL_MS;
    await waitFor(() => Date.now() > from + 3 * INTERVAL_MS + 500, 5 * INTERVAL_MS);
    const readsBetween = (token: string | undefined, start: number, end: number): number =>
      requestsFor(watched, '/v1/session', token).filter((request) => request.at >= start && request.at < end).length;
    for (const cinema of CINEMAS) {
      const reads = readsBetween(upstream.tokens[cinema], from, from + 3 * INTERVAL_MS);
      assert.ok(reads >= 2 && reads <= 4, `${cinema}: ${reads} reads in three intervals`);
    }

    // Killed: its leases run out, and the other takes every cinema.
    await one.stop('SIGKILL');
    const killed = Date.now();
    await waitFor(() => Date.now() > killed + 3 * INTERVAL_MS, 5 * INTERVAL_MS);
    for (const cinema of CINEMAS) {
      const first = requestsFor(watched, '/v1/session', upstream.tokens[cinema]).find((request) => request.at > killed);
      assert.ok(first !== undefined && first.at - killed <= 2 * INTERVAL_MS + 500, `${cinema}: read ${first === undefined ? 'never' : `${first.at - killed} ms`} after the kill`);
    }
    await changeSeats(upstream.database, 'cinema-3', 5);
    await waitFor(async () => JSON.stringify(await mirrored(local, 'cinema-3')) === JSON.stringify(await mirrored(upstream.database, 'cinema-3')), 30_000);

    // Stopped: it lets go of every cinema at once.
    assert.equal(await other.stop(), 0);
    const { customers } = await syncStatus(local);
    for (const cinema of CINEMAS) assert.equal(customers[cinema]?.['syncing'], false, cinema);
  });

  test('stopped while it reads, a sync writes nothing; while it writes, it finishes the write; killed, it leaves each list as it was or whole', { timeout: 180_000 }, async () => {
    const catalogue = await tempDir();
    await writeSyntheticCatalogue({ films: 4000, directory: catalogue });
    const upstreamDatabase = await freshDatabase();
    assert.equal((await runCli(['import', '--database', upstreamDatabase, '--customer', 'big', catalogue])).status, 0);
    const tokens = await issueTokens(upstreamDatabase, ['big']);
    const watched = await upstreamServer((await serve(['--database', upstreamDatabase])).url);
    const whole = await exportCatalogue(upstreamDatabase, 'json', 'big');
    const file = await upstreamsFile([['big', watched.url, tokens['big'] ?? '-']]);
    // The last list answered, the sync writes: a moment later, however busy the machine, it is writing.
    for (const { when, signal, films, laterMs } of [
      { when: '/v4/film', signal: 'SIGTERM', films: [0], laterMs: 0 },
      { when: '/v1/websession', signal: 'SIGTERM', films: [4000], laterMs: 300 },
      { when: '/v1/websession', signal: 'SIGKILL', films: [0, 4000], laterMs: 0 },
    ] as const) {
      const local = await freshDatabase();
      const asked = watched.requests.length;
      const sync = startSync(['--database', local, '--upstreams', file]);
      await waitFor(() => watched.requests.slice(asked).some((request) => request.path === when && request.status !== 0), 60_000);
      await new Promise((resolve) => setTimeout(resolve, laterMs));
      const stopping = Date.now();
      assert.equal(await sync.stop(signal), signal === 'SIGTERM' ? 0 : null);
      assert.ok(Date.now() - stopping < 30_000);
      const after = await exportCatalogue(local, 'json', 'big');
      const count = (JSON.parse(after.films) as unknown[]).length;
      assert.ok((films as readonly number[]).includes(count), `${signal} after ${when}: ${count} films`);
      if (count > 0) assert.deepEqual(after, whole);
      else assert.equal(after.filmpackages, '[]');
    }
  });
});
