import assert from 'node:assert/strict';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { before, describe, test } from 'node:test';
import { countRoundTrips } from '../bench/round-trips.js';
import { DEMO, exportCatalogue, freshDatabase, runCli, serve, type ServerProcess, tempDir, waitFor } from './helpers.js';
import { skippedByDesign } from './skipped-by-design.js';
import { changeSeats, FAILING, mirrored, requestsFor, startSync, syncStatus, upstreamServer, type Intercept, type Json } from './upstreams.js';

/** The URL of a server in front of the upstream that answers what `intercept` decides, or passes the request on. */
async function passing(intercept: Intercept): Promise<string> {
  return (await upstreamServer(upstream.url, intercept)).url;
}

let upstreamDatabase: string;
let upstream: ServerProcess;
let demoFilms: Json[];

before(async () => {
  upstreamDatabase = await freshDatabase();
  upstream = await serve(['--database', upstreamDatabase, '--seed', DEMO]);
  demoFilms = JSON.parse(await readFile(join(DEMO, 'films.json'), 'utf8')) as Json[];
});

/** Changes one film upstream and waits until the upstream server answers with it. */
async function retitleUpstream(title: string): Promise<void> {
  const file = join(await tempDir(), 'retitle.json');
  await writeFile(file, JSON.stringify({ ...demoFilms[0], Title: title }));
  assert.equal((await runCli(['import', '--database', upstreamDatabase, file])).status, 0);
  await waitFor(async () => (await (await fetch(`${upstream.url}/v4/film/HO00000101`)).json() as Json)['Title'] === title, 3000);
}

describe('marquee sync', () => {
  test('mirrors an upstream exactly, costs nothing when it is unchanged, and follows its changes', { timeout: 60_000 }, async () => {
    const local = await freshDatabase();
    const first = await runCli(['sync', '--database', local, '--from', upstream.url]);
    assert.equal(first.status, 0, first.stderr);
    assert.match(first.stdout, /films 36 added, 0 changed, 0 removed, 0 unchanged; packages 8 added/);
    assert.deepEqual(await mirrored(local), await mirrored(upstreamDatabase));

    const again = await runCli(['sync', '--database', local, '--from', `${upstream.url}/`]);
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stdout, /the upstream has not changed\./);

    await retitleUpstream('Nosferatu (synced)');
    const changed = await runCli(['sync', '--database', local, '--from', upstream.url]);
    assert.equal(changed.status, 0, changed.stderr);
    assert.match(changed.stdout, /films 0 added, 1 changed, 0 removed, 35 unchanged/);
    assert.deepEqual(await mirrored(local), await mirrored(upstreamDatabase));
  });

  test('a local import since the last sync is not hidden behind an unchanged upstream', { timeout: 60_000 }, async () => {
    const local = await freshDatabase();
    assert.equal((await runCli(['sync', '--database', local, '--from', upstream.url])).status, 0);
    const extra = join(await tempDir(), 'extra.json');
    await writeFile(extra, JSON.stringify({ ...demoFilms[0], Id: 'LOCAL-ONLY' }));
    assert.equal((await runCli(['import', '--database', local, extra])).status, 0);
    const result = await runCli(['sync', '--database', local, '--from', upstream.url]);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /films 0 added, 0 changed, 1 removed/);
    assert.deepEqual(await mirrored(local), await mirrored(upstreamDatabase));
  });

  test('an upstream that breaks off half-way leaves the catalogue as it was, and says why', { timeout: 60_000 }, async () => {
    const local = await freshDatabase();
    assert.equal((await runCli(['import', '--database', local, DEMO])).status, 0);
    const before = await mirrored(local);
    await retitleUpstream('Nosferatu (broken off)');
    const broken = await passing((request, response) => {
      if (!request.url?.startsWith('/v1/filmpackage')) return false;
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100000' });
      response.write('[{"Id":1,"Title":"Half');
      setTimeout(() => response.destroy(), 20);
      return true;
    });
    const result = await runCli(['sync', '--database', local, '--from', broken, '--retries', '2', '--retry-delay', '10']);
    assert.equal(result.status, 1);
    assert.match(result.stderr, /\/v1\/filmpackage: the answer broke off/);
    assert.match(result.stderr, /trying again in/);
    assert.match(result.stderr, /the catalogue was left as it was/);
    assert.deepEqual(await mirrored(local), before);
  });

  test('films listed without DisplaySequence, as the original service lists them, are read one by one', { timeout: 60_000 }, async () => {
    const singles: string[] = [];
    const original = await passing((request, response) => {
      if (request.url?.startsWith('/v4/film/')) singles.push(request.url);
      if (request.url !== '/v4/film') return false;
      void fetch(`${upstream.url}/v4/film`).then(async (answer) => {
        const films = (await answer.json()) as Json[];
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(films.map(({ DisplaySequence: _omitted, ...film }) => film)));
      });
      return true;
    });
    const local = await freshDatabase();
    const result = await runCli(['sync', '--database', local, '--from', original]);
    assert.equal(result.status, 0, result.stderr);
    assert.equal(singles.length, 36);
    assert.deepEqual(await mirrored(local), await mirrored(upstreamDatabase));
  });

  test('transient failures are tried again with backoff', { timeout: 60_000 }, async () => {
    let failures = 3;
    const flaky = await passing((_request, response) => {
      if (failures-- <= 0) return false;
      response.writeHead(503).end();
      return true;
    });
    const local = await freshDatabase();
    const result = await runCli(['sync', '--database', local, '--from', flaky, '--retry-delay', '10']);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stderr, /answered 503 Service Unavailable; trying again in 0\.0 s/);
    assert.deepEqual(await mirrored(local), await mirrored(upstreamDatabase));
  });

  test('sends the token as VeeziAccessToken; a refused token is a clear failure', { timeout: 60_000 }, async () => {
    const seen: (string | undefined)[] = [];
    const watching = await passing((request) => {
      seen.push(request.headers['veeziaccesstoken'] as string | undefined);
      return false;
    });
    const local = await freshDatabase();
    assert.equal((await runCli(['sync', '--database', local, '--from', watching, '--token', 'mq_test'])).status, 0);
    assert.ok(seen.length >= 2 && seen.every((token) => token === 'mq_test'));

    const refusing = await passing((_request, response) => {
      response.writeHead(401, { 'www-authenticate': 'Bearer realm="marquee"' }).end();
      return true;
    });
    const refused = await runCli(['sync', '--database', local, '--from', refusing]);
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /answered 401 Unauthorized \(check the token\); the catalogue was left as it was/);
  });

  test('a redirect to another origin does not carry the token, and a redirect loop stops', { timeout: 60_000 }, async () => {
    const local = await freshDatabase();
    assert.equal((await runCli(['import', '--database', local, DEMO])).status, 0);
    const before = await exportCatalogue(local);
    const elsewhere: unknown[] = [];
    const other = await passing((request) => {
      elsewhere.push(request.headers['veeziaccesstoken'], request.headers['authorization']);
      return false;
    });
    const atHome: unknown[] = [];
    // Moved first within the same origin (a port is an origin), then to the other one.
    const home = await passing((request, response) => {
      atHome.push(request.headers['veeziaccesstoken']);
      const moved = request.url?.startsWith('/moved/') ?? false;
      response.writeHead(302, { location: moved ? other + (request.url ?? '').slice('/moved'.length) : `/moved${request.url ?? ''}` }).end();
      return true;
    });
    const result = await runCli(['sync', '--database', local, '--from', home, '--token', 'mq_secret']);
    assert.equal(result.status, 0, result.stderr);
    // Each of the 7 lists is asked twice at home, and once elsewhere with both token headers looked at.
    assert.deepEqual(atHome, Array<string>(14).fill('mq_secret'));
    assert.equal(elsewhere.length, 14);
    assert.ok(elsewhere.every((header) => header === undefined), String(elsewhere));
    assert.deepEqual(await mirrored(local), await mirrored(upstreamDatabase));

    const local2 = await freshDatabase();
    assert.equal((await runCli(['import', '--database', local2, DEMO])).status, 0);
    let requests = 0;
    const loop = await passing((request, response) => {
      requests++;
      response.writeHead(301, { location: request.url ?? '/' }).end();
      return true;
    });
    const looped = await runCli(['sync', '--database', local2, '--from', loop]);
    assert.equal(looped.status, 1);
    assert.match(looped.stderr, /^marquee: sync: http:\/\/127\.0\.0\.1:\d+(\/v\d\/[a-z]+): more than 5 redirects, the last to http:\/\/127\.0\.0\.1:\d+\1; the catalogue was left as it was$/m);
    // Each of the 7 lists is asked once and redirected five times: a loop is no transient failure.
    assert.ok(requests <= 42, `${requests} requests`);
    assert.deepEqual(await exportCatalogue(local2), before);
  });

  test('an endless answer, or a compressed bomb, stops at --max-download and leaves no file behind', { timeout: 60_000 }, async () => {
    const local = await freshDatabase();
    assert.equal((await runCli(['import', '--database', local, DEMO])).status, 0);
    const before = await exportCatalogue(local);
    const endless = await passing((request, response) => request.url === '/v4/film' && FAILING.endless()(request, response));
    // 64 MiB of spaces, 64 KiB or less on the wire.
    const spaces = Buffer.alloc(64 * 2 ** 20, ' ');
    const bombs = {
      gzip: gzipSync(spaces),
      br: brotliCompressSync(spaces, { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } }),
    };
    let encoding: keyof typeof bombs = 'gzip';
    const bombing = await passing((request, response) => {
      if (request.url !== '/v4/film') return false;
      response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': encoding }).end(bombs[encoding]);
      return true;
    });
    for (const [from, bomb] of [[endless, 'gzip'], [bombing, 'gzip'], [bombing, 'br']] as const) {
      encoding = bomb;
      const temporary = await tempDir();
      const started = performance.now();
      const result = await runCli(['sync', '--database', local, '--from', from, '--max-download', '1MB'], { TMPDIR: temporary });
      const seconds = (performance.now() - started) / 1000;
      assert.equal(result.status, 1, result.stderr);
      assert.match(result.stderr, /\/v4\/film.*: the answers of one sync are larger than 1MB, the limit of --max-download \(MARQUEE_MAX_DOWNLOAD\); the catalogue was left as it was/);
      assert.ok(seconds < 30, `${from}: ${seconds} s`);
      assert.deepEqual(await readdir(temporary), []);
    }
    assert.deepEqual(await exportCatalogue(local), before);
  });

  test('an answer in a content coding not asked for is refused, naming it', { timeout: 60_000 }, async () => {
    const local = await freshDatabase();
    let coding = '';
    const coded = await passing((request, response) => {
      if (request.url !== '/v4/film') return false;
      assert.equal(request.headers['accept-encoding'], 'br, gzip, deflate');
      response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': coding }).end('[]');
      return true;
    });
    for (coding of ['zstd', 'constructor']) {
      const result = await runCli(['sync', '--database', local, '--from', coded]);
      assert.equal(result.status, 1);
      assert.match(result.stderr, new RegExp(`^marquee: sync: http://127\\.0\\.0\\.1:\\d+/v4/film: answered in the content coding '${coding}', which was not asked for; the catalogue was left as it was$`, 'm'));
    }
  });

  test('an upstream answering XML nested 100,000 deep is refused at once, naming the address and line', { timeout: 60_000 }, async () => {
    const local = await freshDatabase();
    assert.equal((await runCli(['import', '--database', local, DEMO])).status, 0);
    const before = await exportCatalogue(local);
    const depth = 100_000;
    const deep = await passing((request, response) => {
      if (request.url !== '/v4/film') return false;
      response.writeHead(200, { 'content-type': 'application/xml' }).end(`<ArrayOfFilm>\n<Film>${'<People>'.repeat(depth)}${'</People>'.repeat(depth)}</Film></ArrayOfFilm>`);
      return true;
    });
    const started = performance.now();
    const result = await runCli(['sync', '--database', local, '--from', deep]);
    assert.equal(result.status, 1);
    assert.match(result.stderr, /^marquee: http:\/\/127\.0\.0\.1:\d+\/v4\/film: record 1, line 2: elements nested deeper than 32 levels; nothing was changed$/m);
    assert.ok((performance.now() - started) / 1000 < 30);
    assert.deepEqual(await exportCatalogue(local), before);
  });

  test('--every keeps syncing until stopped, on the intervals of the last process started', { timeout: 60_000 }, async () => {
    const local = await freshDatabase();
    const slow = startSync(['--database', local, '--from', upstream.url, '--every', '10m', '--sessions-every', '10m']);
    await waitFor(async () => slow.lines.some((line) => /^Synced customer 'default'/.test(line)), 30_000);
    assert.equal(await slow.stop(), 0);
    // Started again with a shorter interval, it does not wait out the ten minutes the first one set.
    const sync = startSync(['--database', local, '--from', upstream.url, '--every', '1s']);
    await retitleUpstream('Nosferatu (every second)');
    await waitFor(async () => sync.lines.some((line) => /films 0 added, 1 changed/.test(line)), 30_000);
    assert.equal(await sync.stop(), 0);
    assert.deepEqual(await mirrored(local), await mirrored(upstreamDatabase));
    assert.equal((await syncStatus(local)).status, 0);
  });

  test('an upstream that answers 429 is tried again no sooner than its Retry-After says', { timeout: 60_000 }, async () => {
    let limited = false;
    const limiting = await upstreamServer(upstream.url, (request, response) => {
      if (limited || request.url !== '/v4/film') return false;
      limited = true;
      response.writeHead(429, { 'retry-after': '2' }).end();
      return true;
    });
    const local = await freshDatabase();
    const result = await runCli(['sync', '--database', local, '--from', limiting.url, '--retry-delay', '10']);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stderr, /\/v4\/film answered 429 Too Many Requests; trying again in 2\.0 s/);
    const [refused, taken] = requestsFor(limiting, '/v4/film');
    assert.ok(refused && taken && taken.at - refused.at >= 1900, `tried again after ${taken && refused ? taken.at - refused.at : '?'} ms`);
    assert.deepEqual(await mirrored(local), await mirrored(upstreamDatabase));
  });

  test('an upstream that does not answer is given up after --upstream-timeout', { timeout: 60_000 }, async () => {
    const silent = await upstreamServer(undefined, FAILING.hang());
    const local = await freshDatabase();
    const started = performance.now();
    const result = await runCli(['sync', '--database', local, '--from', silent.url, '--upstream-timeout', '1s', '--retries', '1', '--retry-delay', '10']);
    const seconds = (performance.now() - started) / 1000;
    assert.equal(result.status, 1);
    assert.match(result.stderr, /\/v4\/film: no whole answer within 1 s \(--upstream-timeout\); trying again in 0\.0 s/);
    assert.match(result.stderr, /^marquee: sync: http:\/\/127\.0\.0\.1:\d+\/v4\/film: no whole answer within 1 s \(--upstream-timeout\); the catalogue was left as it was$/m);
    assert.equal(requestsFor(silent, '/v4/film').length, 2);
    assert.ok(seconds >= 2 && seconds < 30, `${seconds} s`);
  });

  test('--max-download bounds what one sync keeps, all its lists together, and lists too large for memory go through temporary files', { timeout: 60_000 }, async () => {
    // Two lists of 1.2 MB each, mostly blank: each over the 1 MiB a sync keeps in memory, so
    // written to a temporary file; under 2MB each, over it together.
    const padded = (json: string): string => json + ' '.repeat(1_200_000);
    const lists = await upstreamServer(undefined, (request, response) => {
      const body = request.url === '/v4/film' ? padded(JSON.stringify([demoFilms[0]])) : request.url === '/v1/filmpackage' ? padded('[]') : undefined;
      response.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/json' }).end(body);
      return true;
    });
    const local = await freshDatabase();
    const temporary = await tempDir();
    const refused = await runCli(['sync', '--database', local, '--from', lists.url, '--max-download', '2MB'], { TMPDIR: temporary });
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /\/v1\/filmpackage: the answers of one sync are larger than 2MB, the limit of --max-download \(MARQUEE_MAX_DOWNLOAD\); the catalogue was left as it was/);
    assert.deepEqual(await readdir(temporary), []);
    const taken = await runCli(['sync', '--database', local, '--from', lists.url, '--max-download', '3MB'], { TMPDIR: temporary });
    assert.equal(taken.status, 0, taken.stderr);
    assert.match(taken.stdout, /films 1 added/);
    assert.deepEqual(await readdir(temporary), []);
  });

  test('a film list that drops a film the sessions still show is refused, and the catalogue kept as it was', { timeout: 60_000 }, async () => {
    let dropping = false;
    // HO00000110 is shown by sessions and by no package.
    const films = await upstreamServer(upstream.url, (request, response) => {
      if (!dropping || request.url !== '/v4/film') return false;
      response.writeHead(200, { 'content-type': 'application/json', etag: '"dropped"' }).end(JSON.stringify(demoFilms.filter((film) => film['Id'] !== 'HO00000110')));
      return true;
    });
    const local = await freshDatabase();
    assert.equal((await runCli(['sync', '--database', local, '--from', films.url])).status, 0);
    const before = await exportCatalogue(local);
    dropping = true;
    const asked = films.requests.length;
    const result = await runCli(['sync', '--database', local, '--from', films.url]);
    assert.equal(result.status, 1);
    assert.match(result.stderr, /^the catalogue's sessions: record \d+ \(id "\d+"\): FilmId: must name a film of the catalogue, got "HO00000110"$/m);
    assert.match(result.stderr, /^marquee: the import has 6 problems; nothing was changed$/m);
    // Only the film list was read in full: the others had not changed.
    assert.deepEqual(films.requests.slice(asked).filter((request) => request.status === 200).map((request) => request.path), ['/v4/film']);
    assert.deepEqual(await exportCatalogue(local), before);
  });

  const roundTripsTest = 'on PostgreSQL, a sync of one changed session takes four round trips to the database more than one of an unchanged upstream';
  test(roundTripsTest, { timeout: 60_000, skip: skippedByDesign(roundTripsTest) }, async () => {
    const local = await freshDatabase();
    assert.equal((await runCli(['sync', '--database', local, '--from', upstream.url])).status, 0);
    const counter = await countRoundTrips(local);
    /** The round trips of one sync, the whole process, and what it printed. */
    const counted = async (): Promise<[roundTrips: number, stdout: string]> => {
      counter.reset();
      const result = await runCli(['sync', '--database', counter.url, '--from', upstream.url]);
      assert.equal(result.status, 0, result.stderr);
      return [counter.count(), result.stdout];
    };
    try {
      const [unchanged, nothing] = await counted();
      assert.match(nothing, /the upstream has not changed\./);
      await changeSeats(upstreamDatabase, 'default', 3);
      await waitFor(async () => (await (await fetch(`${upstream.url}/v1/session/1001`)).json() as Json)['SeatsAvailable'] === 3, 30_000);
      const [changed, one] = await counted();
      assert.match(one, /sessions 0 added, 1 changed, 0 removed, \d+ unchanged/);
      // Its transaction's seven (BEGIN with the writer's lock; what it compares with, in one read;
      // the session; the version; the change; the sync's state; the notification with COMMIT)
      // against the three with which an unchanged sync records its state.
      assert.ok(unchanged > 0, 'the unchanged sync went through the counter');
      assert.equal(changed - unchanged, 4, `${changed} round trips for the change, ${unchanged} for nothing`);
    } finally {
      await counter.close();
    }
  });

  test('bad usage is one line naming the flag', { timeout: 60_000 }, async () => {
    for (const [args, expected] of [
      [['sync'], /^marquee: sync: --from URL or --upstreams FILE is required$/],
      [['sync', '--from', 'ftp://x'], /^marquee: sync: --from must be an http\(s\) URL, got 'ftp:\/\/x'$/],
      [['sync', '--from', 'http://x', '--every', 'often'], /^marquee: sync: --every must be a duration such as 30s, 5m or 1h, got 'often'$/],
      [['sync', '--from', 'http://x', '--retries', 'many'], /^marquee: sync: --retries must be a whole number, got 'many'$/],
    ] as const) {
      const result = await runCli([...args]);
      assert.equal(result.status, 2, args.join(' '));
      assert.match(result.stderr.trim(), expected);
    }
  });
});
