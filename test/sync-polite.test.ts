import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { demoRecords, freshDatabase, waitFor } from './helpers.js';
import { requestsFor, startSync, upstreamServer, upstreamsFile, type Intercept, type Recorded, type TestUpstream } from './upstreams.js';

const [film] = await demoRecords('films');

/** An upstream whose every customer has one film and nothing else (no screens, site or sessions), each answer after `delayMs`. */
function oneFilmCatalogues(delayMs: number): Intercept {
  const lists: Readonly<Record<string, string>> = { '/v4/film': JSON.stringify([film]), '/v1/filmpackage': '[]' };
  return (request, response) => {
    const body = lists[request.url ?? ''];
    setTimeout(() => response.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/json', etag: '"one film"' }).end(body), delayMs);
    return true;
  };
}

/** The most requests that were being answered at one moment. */
function mostAtOnce(requests: readonly Recorded[]): number {
  const moments = requests.flatMap((request) => [
    { at: request.at, step: 1 },
    { at: request.ended, step: -1 },
  ]);
  // At one millisecond, an answer ends before the next request is counted.
  moments.sort((a, b) => a.at - b.at || a.step - b.step);
  let now = 0;
  let most = 0;
  for (const { step } of moments) most = Math.max(most, (now += step));
  return most;
}

/** Upstream hosts (each server its own port), each with `customers` customers: lines of an upstreams file. */
async function hostsOf(hosts: number, customers: number, delayMs: number): Promise<{ servers: TestUpstream[]; lines: [string, string, string][] }> {
  const servers = await Promise.all(Array.from({ length: hosts }, () => upstreamServer(undefined, oneFilmCatalogues(delayMs))));
  const lines = servers.flatMap((server, host) => Array.from({ length: customers }, (_, index): [string, string, string] => [`host${host}-cinema${index}`, server.url, `token-${host}-${index}`]));
  return { servers, lines };
}

describe('sync manners', () => {
  test('at most --concurrency syncs at once, at most --per-host to one host, and fewer when --max-temp holds fewer', { timeout: 120_000 }, async () => {
    for (const { flags, most, startLine } of [
      { flags: ['--concurrency', '4', '--per-host', '2'], most: 4, startLine: /; 4 at once, 2 to one host\.$/ },
      { flags: ['--concurrency', '4', '--per-host', '2', '--max-download', '1MB', '--max-temp', '2MB'], most: 2, startLine: /; 2 at once \(as many as --max-temp 2MB holds\), 2 to one host\.$/ },
    ]) {
      const { servers, lines } = await hostsOf(3, 4, 100);
      const sync = startSync(['--database', await freshDatabase(), '--upstreams', await upstreamsFile(lines), '--every', '1h', ...flags]);
      await waitFor(() => sync.lines.filter((line) => line.startsWith('Synced customer')).length === lines.length, 60_000);
      assert.equal(await sync.stop(), 0);
      assert.match(sync.lines[0] ?? '', startLine);
      for (const server of servers) assert.ok(server.inFlight.most <= 2, `${server.inFlight.most} at once to ${server.url}`);
      assert.equal(mostAtOnce(servers.flatMap((server) => server.requests)), most);
    }
  });

  test("syncs are spread over the interval, each customer's at its own moment, once an interval", { timeout: 120_000 }, async () => {
    const intervalMs = 4000;
    const { servers, lines } = await hostsOf(1, 10, 0);
    const [server] = servers as [TestUpstream];
    const sync = startSync(['--database', await freshDatabase(), '--upstreams', await upstreamsFile(lines), '--every', '1h', '--sessions-every', '4s']);
    await waitFor(() => sync.lines.filter((line) => line.startsWith('Synced customer')).length === lines.length, 60_000);
    // Three syncs of each customer once every first sync is over.
    const from = Date.now() + intervalMs;
    const steady = (token: string): number[] => requestsFor(server, '/v1/session', token).map((request) => request.at).filter((at) => at >= from);
    await waitFor(() => lines.every(([, , token]) => steady(token).length >= 3), 60_000);
    assert.equal(await sync.stop(), 0);
    // Once an interval: however long the three took on a busy machine, no customer was read more
    // often than the intervals that passed allow (one each, and one begun before).
    const allowed = Math.floor((Date.now() - from) / intervalMs) + 2;
    const firsts: number[] = [];
    for (const [customer, , token] of lines) {
      const reads = steady(token);
      assert.ok(reads.length <= allowed, `${customer}: ${reads.length} syncs in ${Date.now() - from} ms, at most ${allowed} once an interval`);
      firsts.push(reads[0] ?? 0);
    }
    // Where in the interval each sync fell: no half of the interval is without one.
    const moments = firsts.map((at) => at % intervalMs).sort((a, b) => a - b);
    const gaps = moments.map((moment, index) => ((moments[(index + 1) % moments.length] ?? moment) - moment + intervalMs) % intervalMs);
    assert.ok(Math.max(...gaps) < intervalMs / 2, `moments ${moments.join(' ')}`);
  });
});
