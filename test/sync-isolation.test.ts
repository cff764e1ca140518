import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { DEMO, freshDatabase, runCli, serve, waitFor } from './helpers.js';
import { changeSeats, demoUpstream, FAILING, issueTokens, mirrored, slowly, startSync, syncStatus, upstreamServer, upstreamsFile, type Intercept, type Json, type TestUpstream } from './upstreams.js';

/** How each cinema's upstream fails, once every one has been synced, and what its failure says. */
const FAILURES: Readonly<Record<string, { readonly intercept: () => Intercept; readonly says: RegExp }>> = {
  'cinema-broken': { intercept: () => FAILING.status(500), says: /\/v1\/session answered 500 Internal Server Error$/ },
  'cinema-refused': { intercept: () => FAILING.status(401, { 'www-authenticate': 'Bearer realm="marquee"' }), says: /\/v1\/session answered 401 Unauthorized \(check the token\)$/ },
  'cinema-invalid': { intercept: () => invalidSessions, says: /\/v1\/session: record 1 \(id "1001"\): SeatsAvailable: .*, got -1$/ },
  'cinema-silent': { intercept: () => FAILING.hang(), says: /\/v1\/session: no whole answer within 10 s \(--upstream-timeout\)$/ },
  'cinema-looping': { intercept: () => FAILING.loop(), says: /\/v1\/session: more than 5 redirects, the last to http:\/\/127\.0\.0\.1:\d+\/v1\/session$/ },
  'cinema-endless': { intercept: () => FAILING.endless(), says: /\/v1\/session: the answers of one sync are larger than 5MB, the limit of --max-download \(MARQUEE_MAX_DOWNLOAD\)$/ },
};
const WELL = ['cinema-good', 'cinema-slow'];
const CINEMAS = [...WELL, ...Object.keys(FAILURES)];

const sessions = JSON.parse(await readFile(join(DEMO, 'sessions.json'), 'utf8')) as Json[];
/** A session list whose first session breaks a rule, under an ETag of its own. */
const invalidSessions: Intercept = (request, response) => {
  if (request.url !== '/v1/session') return false;
  response.writeHead(200, { 'content-type': 'application/json', etag: '"invalid"' }).end(JSON.stringify(sessions.map((session, index) => (index === 0 ? { ...session, SeatsAvailable: -1 } : session))));
  return true;
};

describe('one upstream that fails does not touch the others', () => {
  test('each failing upstream leaves its cinema serving its last catalogue, delays no other, and is shown stale, its log one line per change or failure, no token', { timeout: 180_000 }, async () => {
    const upstream = await demoUpstream(await freshDatabase(), CINEMAS);
    const servers: Record<string, TestUpstream> = {};
    for (const cinema of CINEMAS) servers[cinema] = await upstreamServer(upstream.url);
    const local = await freshDatabase();
    const tokens = await issueTokens(local, CINEMAS);
    const downstream = await serve(['--database', local]);
    const ask = async (cinema: string, path: string): Promise<Response> => fetch(downstream.url + path, { headers: { veeziaccesstoken: tokens[cinema] ?? '' } });
    const file = await upstreamsFile(CINEMAS.map((cinema) => [cinema, servers[cinema]?.url ?? '', upstream.tokens[cinema] ?? '-']));
    const sync = startSync([
      ...['--database', local, '--upstreams', file, '--every', '1h', '--sessions-every', '2s'],
      ...['--upstream-timeout', '10s', '--concurrency', '4', '--max-download', '5MB', '--retry-delay', '500'],
    ]);
    const synced = (cinema: string): string[] => sync.lines.filter((line) => line.startsWith(`Synced customer '${cinema}'`));
    const log = (): string => sync.lines.join('\n');
    await waitFor(() => CINEMAS.every((cinema) => synced(cinema).length === 1), 60_000, log);
    const before: Record<string, Json> = {};
    for (const cinema of CINEMAS) before[cinema] = await mirrored(local, cinema);

    for (const [cinema, { intercept }] of Object.entries(FAILURES)) (servers[cinema] as TestUpstream).intercept = intercept();
    (servers['cinema-slow'] as TestUpstream).intercept = slowly(upstream.url, 500);
    await changeSeats(upstream.database, 'cinema-good', 7);
    await waitFor(async () => ((await (await ask('cinema-good', '/v1/session/1001')).json()) as Json)['SeatsAvailable'] === 7, 60_000, log);
    // The silent upstream holds each try of its cinema's sync for 10 s: the good cinema's sessions
    // are read, whole, while one hangs, by the upstream's own record of both.
    const silent = (servers['cinema-silent'] as TestUpstream).requests;
    const good = (servers['cinema-good'] as TestUpstream).requests;
    const hung = () => silent.filter((request) => request.path === '/v1/session' && request.status === 0 && request.ended > 0);
    await waitFor(() => hung().length > 0, 60_000, log);
    const readDuring = hung().some((hang) => good.some((read) => read.path === '/v1/session' && read.at > hang.at && read.ended > 0 && read.ended < hang.ended));
    assert.ok(readDuring, 'the good cinema was synced while the silent one hung');

    await waitFor(async () => {
      const { customers } = await syncStatus(local);
      return Object.keys(FAILURES).every((cinema) => Number(customers[cinema]?.['failures']) >= 2 && customers[cinema]?.['stale'] === true);
    }, 120_000, log);
    for (const cinema of Object.keys(FAILURES)) {
      assert.deepEqual(await mirrored(local, cinema), before[cinema], cinema);
      assert.equal((await ask(cinema, '/v1/session/1001')).status, 200, cinema);
    }

    const { status, customers } = await syncStatus(local);
    assert.equal(status, 1);
    for (const [cinema, { says }] of Object.entries(FAILURES)) assert.match(String(customers[cinema]?.['lastError']), says, cinema);
    for (const cinema of WELL) assert.deepEqual([customers[cinema]?.['stale'], customers[cinema]?.['failures']], [false, 0], cinema);
    const lines = (await runCli(['sync', 'status', '--database', local])).stdout.trim().split('\n');
    assert.deepEqual(lines.map((line) => /^(\S+) +(\S+)/.exec(line)?.slice(1, 3).join(' ')), [
      ...Object.keys(FAILURES).sort().map((cinema) => `STALE ${cinema}`),
      'ok cinema-good',
      'ok cinema-slow',
      '6 of',
    ]);

    // Stopped with an answer hanging: it ends at once, and exits 0.
    const stopping = Date.now();
    assert.equal(await sync.stop(), 0);
    assert.ok(Date.now() - stopping < 10_000);
    // One line for each sync that changed something or failed; none for those that found nothing new.
    assert.equal(synced('cinema-good').length, 2);
    assert.equal(synced('cinema-slow').length, 1);
    for (const cinema of Object.keys(FAILURES)) assert.ok(sync.lines.some((line) => line.startsWith(`sync: customer '${cinema}'`)), cinema);
    for (const token of [...Object.values(upstream.tokens), ...Object.values(tokens)]) assert.ok(!log().includes(token), 'a token in the log');
  });
});
