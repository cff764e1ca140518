import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { DEMO, exportCatalogue, freshDatabase, runCli, tempDir, waitFor } from './helpers.js';
import { demoUpstream, startSync, upstreamServer, upstreamsFile, type Intercept, type Json } from './upstreams.js';

const CUSTOMER = 'cinema-live';
const demoSessions = JSON.parse(await readFile(join(DEMO, 'sessions.json'), 'utf8')) as Json[];

const byId = (sessions: Json[]): Json[] => sessions.sort((a, b) => Number(a['Id']) - Number(b['Id']));

/** The upstream's two session lists, as the test sets them: each answered with an ETag of its own. */
class SessionLists {
  sessions: Json[] = demoSessions.map(({ Url: _url, ...session }) => session);
  webSessions: Json[] = demoSessions.slice(0, 60);
  /** How the record of an id is written in each list, where the upstream writes it otherwise than JSON.stringify. */
  readonly rewrites = { sessions: new Map<number, (record: string) => string>(), webSessions: new Map<number, (record: string) => string>() };
  /** Run once before the session list is next answered, and then let go. */
  beforeSessions: (() => Promise<void>) | undefined;

  readonly intercept: Intercept = (request, response) => {
    const before = request.url === '/v1/session' ? this.beforeSessions : undefined;
    if (before !== undefined) {
      this.beforeSessions = undefined;
      void before().then(() => this.intercept(request, response));
      return true;
    }
    const list = request.url === '/v1/session' ? this.sessions : request.url === '/v1/websession' ? this.webSessions : undefined;
    if (list === undefined) return false;
    const body = SessionLists.written(list, this.rewrites[list === this.sessions ? 'sessions' : 'webSessions']);
    const etag = `"${createHash('sha1').update(body).digest('hex')}"`;
    if (request.headers['if-none-match'] === etag) response.writeHead(304, { etag }).end();
    else response.writeHead(200, { 'content-type': 'application/json', etag }).end(body);
    return true;
  };

  /** The sessions a mirror holds of these lists: each with the Url of its web session, or none. */
  mirrored(): Json[] {
    const urls = new Map(this.webSessions.map((session) => [session['Id'], session['Url']]));
    return byId(this.sessions.map((session): Json => ({ ...session, Url: urls.get(session['Id']) ?? null })));
  }

  /** The list with the session of `id` changed as `change` says. */
  static changed(list: readonly Json[], id: number, change: Json): Json[] {
    return list.map((session) => (session['Id'] === id ? { ...session, ...change } : session));
  }

  /** The list as JSON, the record of each id in `rewrites` written as its function rewrites it. */
  private static written(list: readonly Json[], rewrites: ReadonlyMap<number, (record: string) => string>): string {
    return rewrites.size === 0 ? JSON.stringify(list) : `[${list.map((session) => (rewrites.get(session['Id'] as number) ?? String)(JSON.stringify(session))).join(',')}]`;
  }
}

/** A sync of the sessions every second into `local` (a fresh database by default), from a demo upstream whose session lists are `lists`; once it has synced. */
async function startMirror(lists: SessionLists, local?: string) {
  const upstream = await demoUpstream(await freshDatabase(), [CUSTOMER]);
  const server = await upstreamServer(upstream.url, lists.intercept);
  local ??= await freshDatabase();
  const file = await upstreamsFile([[CUSTOMER, server.url, upstream.tokens[CUSTOMER] ?? '-']]);
  const sync = startSync(['--database', local, '--upstreams', file, '--every', '1h', '--sessions-every', '1s', '--retry-delay', '200']);
  const log = (): string => sync.lines.join('\n');
  const synced = (): number => sync.lines.filter((line) => line.startsWith(`Synced customer '${CUSTOMER}'`)).length;
  /** The sessions the mirror holds. */
  const exported = async (): Promise<Json[]> => {
    const { sessions = '[]' } = await exportCatalogue(local, 'json', CUSTOMER);
    return byId(JSON.parse(sessions) as Json[]);
  };
  await waitFor(() => synced() === 1, 60_000, log);
  /** The sessions a sync that reads the lists whole mirrors of them now, into a database of its own. */
  const readWhole = async (): Promise<Json[]> => {
    const whole = await freshDatabase();
    const synced = await runCli(['sync', '--database', whole, '--from', server.url, '--token', upstream.tokens[CUSTOMER] ?? '-', '--customer', CUSTOMER]);
    assert.equal(synced.status, 0, synced.stderr);
    const { sessions = '[]' } = await exportCatalogue(whole, 'json', CUSTOMER);
    return byId(JSON.parse(sessions) as Json[]);
  };
  return { upstream, local, sync, log, synced, exported, readWhole };
}

describe('a sync that finds some sessions changed', () => {
  test('mirrors exactly what the upstream answers, whichever sessions and web sessions changed, and names a bad session by its place in the list', { timeout: 120_000 }, async () => {
    const lists = new SessionLists();
    const { sync, log, synced, exported } = await startMirror(lists);
    assert.deepEqual(await exported(), lists.mirrored());

    const steps: [string, () => void][] = [
      ['the seats of one session', () => {
        lists.sessions = SessionLists.changed(lists.sessions, 1002, { SeatsAvailable: 3 });
        lists.webSessions = SessionLists.changed(lists.webSessions, 1002, { SeatsAvailable: 3 });
      }],
      ['the Url of one web session alone', () => (lists.webSessions = SessionLists.changed(lists.webSessions, 1003, { Url: 'https://elsewhere.example/1003' }))],
      ['a session gone, from both lists', () => {
        lists.sessions = lists.sessions.filter((session) => session['Id'] !== 1004);
        lists.webSessions = lists.webSessions.filter((session) => session['Id'] !== 1004);
      }],
      ['a session new', () => {
        lists.sessions = [...lists.sessions, { ...lists.sessions[0], Id: 9001 }];
        lists.webSessions = [...lists.webSessions, { ...lists.webSessions[0], Id: 9001, Url: 'https://tickets.example/9001' }];
      }],
      ['a session off sale on the web', () => (lists.webSessions = lists.webSessions.filter((session) => session['Id'] !== 1005))],
      ['the lists in another order, one session changed', () => {
        lists.sessions = SessionLists.changed(lists.sessions, 1006, { SeatsSold: 90 }).toReversed();
        lists.webSessions = lists.webSessions.toReversed();
      }],
    ];
    for (const [name, step] of steps) {
      const before = synced();
      step();
      await waitFor(() => synced() > before, 30_000, log);
      assert.deepEqual(await exported(), lists.mirrored(), name);
    }

    // A session that breaks a rule is named by its place in the whole list, and nothing is written.
    const stored = await exported();
    const valid = lists.sessions;
    const place = lists.sessions.findIndex((session) => session['Id'] === 1010) + 1;
    lists.sessions = SessionLists.changed(lists.sessions, 1010, { SeatsAvailable: -1 });
    const failure = new RegExp(`/v1/session: record ${place} \\(id "1010"\\): SeatsAvailable`);
    await waitFor(() => failure.test(log()), 30_000, log);
    assert.deepEqual(await exported(), stored);
    // So is one too deep to read. A retry of the list above may still be failing as it changes:
    // the failure looked for is the one that says how deep.
    const failures = (): string[] => sync.lines.filter((line) => line.startsWith(`sync: customer '${CUSTOMER}'`));
    const failed = failures().length;
    lists.sessions = valid;
    lists.rewrites.sessions.set(1010, (record) => record.replace('"Id":1010,', `"Id":1010,"Deep":${'['.repeat(200)}${']'.repeat(200)},`));
    await waitFor(() => failures().slice(failed).some((line) => line.includes('nested deeper')), 30_000, log);
    const deep = failures().slice(failed).find((line) => line.includes('nested deeper'));
    assert.match(deep ?? '', new RegExp(`/v1/session: record ${place}: `));
    lists.rewrites.sessions.delete(1010);
    assert.deepEqual(await exported(), stored);
    // A session twice, byte for byte, is refused as a whole read refuses it.
    lists.sessions = [...valid, valid[0] as Json];
    await waitFor(() => /record \d+ \(id "\d+"\): Id: must be unique, but record 1 of/.test(log()), 30_000, log);
    assert.deepEqual(await exported(), stored);

    const before = synced();
    lists.sessions = SessionLists.changed(valid, 1011, { SeatsHeld: 1 });
    await waitFor(() => synced() > before, 30_000, log);
    assert.deepEqual(await exported(), lists.mirrored());
    assert.equal(await sync.stop(), 0);
  });

  test('mirrors what a whole read of the lists gives however they are written: names escaped, an Id twice, a web session read as none', { timeout: 120_000 }, async () => {
    const lists = new SessionLists();
    const { sync, log, synced, exported, readWhole } = await startMirror(lists);
    /** Each step changes the seats of a session of its own besides, so that the sync writes something and says so. */
    const steps: [string, (seats: (id: number) => void) => void][] = [
      ['two sessions each written with the Id of the other, then their own escaped', (seats) => {
        seats(1012);
        lists.rewrites.sessions.set(1010, (record) => record.replace('"Id":1010,', '"Id":1011,"I\\u0064":1010,'));
        lists.rewrites.sessions.set(1011, (record) => record.replace('"Id":1011,', '"Id":1010,"I\\u0064":1011,'));
      }],
      ['the Url of one of them', () => (lists.webSessions = SessionLists.changed(lists.webSessions, 1010, { Url: 'https://elsewhere.example/1010' }))],
      ["a web session with a film's member, which the import does not read as a session", (seats) => {
        seats(1013);
        lists.webSessions = SessionLists.changed(lists.webSessions, 1007, { Rating: 'PG' });
      }],
      ['a Url whose name is escaped, changed', (seats) => {
        seats(1014);
        lists.webSessions = SessionLists.changed(lists.webSessions, 1008, { Url: 'https://elsewhere.example/1008' });
        lists.rewrites.webSessions.set(1008, (record) => record.replace('"Url":', '"Ur\\u006c":'));
      }],
      ['a Url moved into a __proto__ member', (seats) => {
        seats(1015);
        lists.rewrites.webSessions.set(1009, (record) => record.replace(/"Url":("[^"]*")/, '"__proto__":{"Url":$1}'));
      }],
    ];
    const seats = (id: number): void => {
      lists.sessions = SessionLists.changed(lists.sessions, id, { SeatsAvailable: 7 });
      lists.webSessions = SessionLists.changed(lists.webSessions, id, { SeatsAvailable: 7 });
    };
    for (const [name, step] of steps) {
      const before = synced();
      // Made as the session list is next asked for: a sync reads both lists of one edition.
      lists.beforeSessions = async () => step(seats);
      await waitFor(() => synced() > before, 30_000, log);
      assert.deepEqual(await exported(), await readWhole(), name);
    }
    assert.equal(await sync.stop(), 0);
  });

  test('a film the first sync removed is one no session may name after it', { timeout: 120_000 }, async () => {
    const local = await freshDatabase();
    const [film] = JSON.parse(await readFile(join(DEMO, 'films.json'), 'utf8')) as Json[];
    const localFilm = join(await tempDir(), 'film.json');
    await writeFile(localFilm, JSON.stringify({ ...film, Id: 'LOCAL-ONLY', Title: 'Local only' }));
    const imported = await runCli(['import', '--database', local, '--customer', CUSTOMER, localFilm]);
    assert.equal(imported.status, 0, imported.stderr);
    const lists = new SessionLists();
    // The first sync reads every list, and the upstream's films replace the one imported here.
    const { sync, log, exported } = await startMirror(lists, local);
    const stored = await exported();

    lists.sessions = [...lists.sessions, { ...lists.sessions[0], Id: 9003, FilmId: 'LOCAL-ONLY' }];
    await waitFor(() => /record \d+ \(id "9003"\): FilmId: must name a film of the catalogue/.test(log()), 30_000, log);
    assert.deepEqual(await exported(), stored);
    assert.equal(await sync.stop(), 0);
  });

  test('a local import while it reads the sessions sends it back to what is stored, not to a failure', { timeout: 120_000 }, async () => {
    const lists = new SessionLists();
    const { upstream, local, sync, log, synced, exported } = await startMirror(lists);
    // A sync of the sessions alone, which keeps what they may name for the next.
    lists.sessions = SessionLists.changed(lists.sessions, 1002, { SeatsAvailable: 3 });
    await waitFor(() => synced() === 2, 30_000, log);

    // A new film upstream, with a session of it; the same film imported here while the sync reads that session.
    const [film] = JSON.parse(await readFile(join(DEMO, 'films.json'), 'utf8')) as Json[];
    const newFilm = join(await tempDir(), 'film.json');
    await writeFile(newFilm, JSON.stringify({ ...film, Id: 'ARRIVING', Title: 'Arriving' }));
    const importFilm = async (database: string): Promise<void> => {
      const result = await runCli(['import', '--database', database, '--customer', CUSTOMER, newFilm]);
      assert.equal(result.status, 0, result.stderr);
    };
    await importFilm(upstream.database);
    lists.beforeSessions = () => importFilm(local);
    lists.sessions = [...lists.sessions, { ...lists.sessions[0], Id: 9002, FilmId: 'ARRIVING', Title: 'Arriving' }];
    await waitFor(() => synced() === 3, 30_000, log);
    assert.deepEqual(await exported(), lists.mirrored());
    assert.equal(lists.beforeSessions, undefined, 'the local import ran');
    assert.doesNotMatch(log(), /^sync: customer/m);
    assert.equal(await sync.stop(), 0);
  });
});
