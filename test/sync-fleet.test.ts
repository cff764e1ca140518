import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { before, describe, test } from 'node:test';
import { DEMO, emptyDatabase, exportCatalogue, freshDatabase, runCli, serve, tempDir, waitFor, withDatabase } from './helpers.js';
import { changeSeats, demoUpstream, issueTokens, mirrored, passOn, requestsFor, startSync, syncStatus, upstreamServer, upstreamsFile, type DemoUpstream, type Json } from './upstreams.js';

const CINEMAS = ['cinema-a', 'cinema-b', 'cinema-c'];
let upstream: DemoUpstream;

before(async () => {
  upstream = await demoUpstream(await freshDatabase(), CINEMAS);
});

const line = (customer: string, url = upstream.url, token = upstream.tokens[customer] ?? '-'): [string, string, string] => [customer, url, token];
const synced = (lines: readonly string[], customer: string, pattern = /./): boolean => lines.some((text) => text.startsWith(`Synced customer '${customer}'`) && pattern.test(text));

describe('marquee sync --upstreams', () => {
  test('syncs every upstream listed from one process, and takes up lines added, changed and removed without a restart', { timeout: 120_000 }, async () => {
    const local = await freshDatabase();
    const file = await upstreamsFile([line('cinema-a'), line('cinema-b')]);
    const sync = startSync(['--database', local, '--upstreams', file, '--every', '1h', '--sessions-every', '2s']);
    const said = (): string => sync.lines.join('\n');
    await waitFor(() => synced(sync.lines, 'cinema-a') && synced(sync.lines, 'cinema-b'), 30_000, said);
    for (const customer of ['cinema-a', 'cinema-b']) assert.deepEqual(await mirrored(local, customer), await mirrored(upstream.database, customer));

    // cinema-a is removed, cinema-b's token is now refused, cinema-c is added.
    await upstreamsFile([line('cinema-b', upstream.url, 'mq_not_a_token'), line('cinema-c')], file);
    await waitFor(() => synced(sync.lines, 'cinema-c'), 30_000, said);
    await waitFor(() => sync.lines.some((text) => /^sync: customer 'cinema-b': http:\/\/127\.0\.0\.1:\d+\/v4\/film answered 401 Unauthorized \(check the token\); its catalogue was left as it was; next sync in/.test(text)), 30_000);
    assert.ok(sync.lines.includes('sync: no longer syncing cinema-a: not listed; their catalogues stay as they are.'), sync.lines.join('\n'));
    assert.deepEqual(await mirrored(local, 'cinema-c'), await mirrored(upstream.database, 'cinema-c'));
    assert.deepEqual(await mirrored(local, 'cinema-b'), await mirrored(upstream.database, 'cinema-b'));
    const { customers } = await syncStatus(local);
    assert.deepEqual(Object.keys(customers), ['cinema-b', 'cinema-c']);
    assert.ok(Number(customers['cinema-b']?.['failures']) >= 1);
    assert.equal(customers['cinema-c']?.['failures'], 0);

    // A list with a bad line is not taken: the upstreams listed before go on being synced.
    await writeFile(file, `cinema-c\t${upstream.url}\n`);
    const refused = `sync: ${file}: line 1: must be customer<TAB>url<TAB>token ('-' for no token), got 2 fields; still syncing the upstreams listed before`;
    await waitFor(() => sync.lines.includes(refused), 30_000);
    assert.equal(await sync.stop(), 0);
  });

  test('a bad line is reported with its number, and nothing starts', { timeout: 60_000 }, async () => {
    const local = await emptyDatabase();
    const file = join(await tempDir(), 'upstreams.tsv');
    await writeFile(file, `cinema-a\t${upstream.url}\t${upstream.tokens['cinema-a']}\n\n# cinema-b below\ncinema-b\t${upstream.url}/?key=x\t-\n`);
    const result = await runCli(['sync', '--database', local, '--upstreams', file]);
    assert.equal(result.status, 1);
    assert.equal(result.stderr, `marquee: ${file}: line 4: the URL must be an http(s) URL without credentials, query or fragment (a token goes apart), got '${upstream.url}/…'; nothing was changed\n`);
    assert.equal((await runCli(['sync', 'status', '--database', local])).stdout, 'No customer is synced.\n');
    assert.equal((await exportCatalogue(local, 'json', 'cinema-a')).films, '[]');
  });

  test('sessions are read every --sessions-every and the other lists every --every, each conditionally, and a changed list is written alone', { timeout: 120_000 }, async () => {
    const watched = await upstreamServer(upstream.url);
    const local = await freshDatabase();
    const [token = ''] = Object.values(await issueTokens(local, ['cinema-a']));
    const downstream = await serve(['--database', local]);
    const ask = async (path: string): Promise<Response> => fetch(downstream.url + path, { headers: { veeziaccesstoken: token } });
    const sync = startSync(['--database', local, '--upstreams', await upstreamsFile([line('cinema-a', watched.url)]), '--every', '1h', '--sessions-every', '2s']);
    await waitFor(() => synced(sync.lines, 'cinema-a'), 30_000);

    // Unchanged: a 304 for each session list every interval, nothing else read, nothing written.
    const sessionReads = (): number => requestsFor(watched, '/v1/session').length;
    await waitFor(() => sessionReads() >= 4, 30_000);
    for (const path of ['/v1/session', '/v1/websession']) {
      const later = requestsFor(watched, path).slice(1).filter((request) => request.status !== 0);
      assert.ok(later.length >= 2 && later.every((request) => request.status === 304), `${path}: ${later.map((request) => request.status).join(' ')}`);
    }
    assert.equal(requestsFor(watched, '/v4/film').length, 1);
    assert.equal(sync.lines.filter((text) => text.startsWith('Synced')).length, 1);

    // Seats sold: the sessions alone are read and written, and served.
    await changeSeats(upstream.database, 'cinema-a', 7);
    await waitFor(async () => ((await (await ask('/v1/session/1001')).json()) as Json)['SeatsAvailable'] === 7, 30_000);
    // The sync's line may reach this process after the change it reports is served.
    await waitFor(() => synced(sync.lines, 'cinema-a', /in [\d.]+ s: sessions 0 added, 1 changed, 0 removed, 111 unchanged; catalogue version 2\.$/), 30_000);

    // A film retitled waits for --every: the sessions' syncs do not read the films.
    const films = JSON.parse(await readFile(join(DEMO, 'films.json'), 'utf8')) as Json[];
    const film = join(await tempDir(), 'film.json');
    await writeFile(film, JSON.stringify({ ...films[1], Title: 'Retitled upstream' }));
    assert.equal((await runCli(['import', '--database', upstream.database, '--customer', 'cinema-a', film])).status, 0);
    const reads = sessionReads();
    await waitFor(() => sessionReads() >= reads + 2, 30_000);
    assert.equal(requestsFor(watched, '/v4/film').length, 1);
    assert.equal(((await (await ask(`/v4/film/${String(films[1]?.['Id'])}`)).json()) as Json)['Title'], films[1]?.['Title'], 'the mirror keeps the title it had');

    // A new session of a new film: the sessions name a film not yet mirrored, so the other lists are read too.
    const [session] = JSON.parse(await readFile(join(DEMO, 'sessions.json'), 'utf8')) as Json[];
    const premiere = await tempDir();
    await writeFile(join(premiere, 'film.json'), JSON.stringify({ ...films[0], Id: 'PREMIERE', Title: 'Premiere' }));
    await writeFile(join(premiere, 'session.json'), JSON.stringify({ ...session, Id: 9001, FilmId: 'PREMIERE', Title: 'Premiere' }));
    assert.equal((await runCli(['import', '--database', upstream.database, '--customer', 'cinema-a', premiere])).status, 0);
    await waitFor(async () => (await ask('/v1/session/9001')).status === 200, 30_000);
    assert.equal((await ask('/v4/film/PREMIERE')).status, 200);
    assert.equal(requestsFor(watched, '/v4/film').length, 2);
    assert.deepEqual(await mirrored(local, 'cinema-a'), await mirrored(upstream.database, 'cinema-a'));

    // Seats changed here, behind the sync's back: its next sync compares with what is stored now, not with what it wrote.
    await changeSeats(local, 'cinema-a', 99);
    await waitFor(async () => isDeepStrictEqual(await mirrored(local, 'cinema-a'), await mirrored(upstream.database, 'cinema-a')), 30_000);
    assert.equal(await sync.stop(), 0);
  });

  test('a list the database could not take up while another writer held it is taken up once it can', { timeout: 120_000 }, async () => {
    const local = await freshDatabase();
    const file = await upstreamsFile([line('cinema-a')]);
    const sync = startSync(['--database', local, '--upstreams', file, '--every', '1h', '--sessions-every', '1s', '--lock-timeout', '300']);
    const said = (): string => sync.lines.join('\n');
    await waitFor(() => synced(sync.lines, 'cinema-a'), 30_000, said);
    const notTaken = /^sync: another writer held the database for longer than 0\.3 s.*; still syncing the upstreams listed before$/;
    await withDatabase(local, (db) =>
      db.transaction(async () => {
        await upstreamsFile([line('cinema-a'), line('cinema-b')], file);
        await waitFor(() => sync.lines.some((text) => notTaken.test(text)), 30_000, said);
      }),
    );
    await waitFor(() => synced(sync.lines, 'cinema-b'), 30_000, said);
    assert.deepEqual(Object.keys((await syncStatus(local)).customers), ['cinema-a', 'cinema-b']);
    assert.equal(await sync.stop(), 0);
  });

  test("a URL moved by one process while another syncs from the old one is read whole at once, not at the other's next --every", { timeout: 120_000 }, async () => {
    const local = await freshDatabase();
    const before = await upstreamServer(upstream.url);
    const syncing = startSync(['--database', local, '--upstreams', await upstreamsFile([line('cinema-a', before.url)]), '--every', '1h', '--sessions-every', '1s']);
    await waitFor(() => synced(syncing.lines, 'cinema-a'), 30_000, () => syncing.lines.join('\n'));
    // Its next sync is held as it reads the sessions.
    let release: (() => void) | undefined;
    before.intercept = (request, response) => {
      if (request.url !== '/v1/session' || release !== undefined) return false;
      release = () => passOn(upstream.url, request, response);
      return true;
    };
    await waitFor(() => release !== undefined, 30_000);
    // Another process, listing the cinema at a new URL, moves it meanwhile.
    const after = await upstreamServer(upstream.url);
    const moving = startSync(['--database', local, '--upstreams', await upstreamsFile([line('cinema-a', after.url)]), '--every', '1h', '--sessions-every', '1s']);
    await waitFor(() => moving.lines.some((text) => text.startsWith('Syncing 1 upstream')), 30_000, () => moving.lines.join('\n'));
    release?.();
    await waitFor(() => requestsFor(after, '/v4/film').length > 0, 30_000, () => [...syncing.lines, ...moving.lines].join('\n'));
    assert.deepEqual(await mirrored(local, 'cinema-a'), await mirrored(upstream.database, 'cinema-a'));
    assert.equal(await syncing.stop(), 0);
    assert.equal(await moving.stop(), 0);
  });
});
