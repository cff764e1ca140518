import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { writeSyntheticCatalogue } from '../scripts/generate-catalogue.js';
import { exportCatalogue, freshDatabase, runCli, serve, tempDir, waitFor, writerLockHeld } from './helpers.js';
import { changeSeats, demoUpstream, issueTokens, mirrored, requestsFor, slowly, startSync, syncStatus, upstreamServer, upstreamsFile } from './upstreams.js';

const CINEMAS = ['cinema-1', 'cinema-2', 'cinema-3', 'cinema-4', 'cinema-5', 'cinema-6'];
const INTERVAL_MS = 2000;

describe('sync processes sharing a database', () => {
  test('two sync each cinema once per interval between them; when one is killed the other takes its cinemas', { timeout: 180_000 }, async (t) => {
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
    const both = `both synced some; the first said:\n${one.lines.join('\n')}\nthe second said:\n${other.lines.join('\n')}`;
    assert.ok(one.lines.some((line) => line.startsWith('Synced')) && other.lines.some((line) => line.startsWith('Synced')), both);

    // Each cinema's sessions are read at its moment of each interval. Once every cinema has been
    // read four times more, however long that took, no cinema was read more often than the
    // intervals that passed allow (one each, one begun before, and one a stalled machine may make
    // late and then on time): two processes that both read it would have read it twice as often.
    const from = Date.now();
    const readsSince = (cinema: string, start: number) => requestsFor(watched, '/v1/session', upstream.tokens[cinema]).filter((request) => request.at >= start);
    await waitFor(() => CINEMAS.every((cinema) => readsSince(cinema, from).length >= 4), 120_000);
    const allowed = Math.floor((Date.now() - from) / INTERVAL_MS) + 3;
    for (const cinema of CINEMAS) {
      const reads = readsSince(cinema, from).length;
      assert.ok(reads <= allowed, `${cinema}: ${reads} reads in ${Date.now() - from} ms, at most ${allowed} once an interval`);
    }

    // Killed: its leases run out, and the other takes every cinema; how soon is reported.
    await one.stop('SIGKILL');
    const killed = Date.now();
    await waitFor(() => CINEMAS.every((cinema) => readsSince(cinema, killed).length > 0), 120_000);
    const latest = Math.max(...CINEMAS.map((cinema) => (readsSince(cinema, killed)[0]?.at ?? killed) - killed));
    t.diagnostic(`every cinema read again within ${latest} ms of the kill`);
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
    // Stopped when a list is answered, the next held unanswered so that the sync is still reading;
    // or once the last list is answered and the sync holds the database to write (seen from
    // another connection).
    for (const { when, held, signal, films, writing } of [
      { when: '/v4/film', held: '/v1/filmpackage', signal: 'SIGTERM', films: [0], writing: false },
      { when: '/v1/websession', held: undefined, signal: 'SIGTERM', films: [4000], writing: true },
      { when: '/v1/websession', held: undefined, signal: 'SIGKILL', films: [0, 4000], writing: false },
    ] as const) {
      watched.intercept = (request) => request.url === held;
      const local = await freshDatabase();
      const asked = watched.requests.length;
      const sync = startSync(['--database', local, '--upstreams', file]);
      await waitFor(() => watched.requests.slice(asked).some((request) => request.path === when && request.status !== 0), 60_000);
      if (writing) await waitFor(() => writerLockHeld(local), 60_000);
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
