/**
 * The programme (CONTRACT §12) through HTTP: `/programme` and its filters, cinema days, times
 * across daylight-saving changes in each hemisphere, the clock, and the rules of §5 and §9.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { before, describe, test } from 'node:test';
import { importFiles } from '../src/import/import-files.js';
import { appWithSessions, DEMO_FILES, DEMO_ZONE, demoRecords, laterBy, nonEmpty, sessionStarting, startTestApp, tempDir, varyOf, wallClockIn, type TestApp } from './helpers.js';

type Json = Record<string, unknown>;

/** The demo's fortnight, whose sessions are all past: `sessions=all` shows each, none on sale. */
const FORTNIGHT = '/programme?from=2025-01-06&days=14&sessions=all';
const SITE_KEYS = ['name', 'address', 'country', 'phone', 'timeZone', 'screens'];
const FEATURE_KEYS = ['kind', 'id', 'title', 'synopsis', 'genre', 'rating', 'runtimeMinutes', 'openingDate', 'poster', 'posterThumbnail', 'backdrop', 'trailer', 'images'];
const SESSION_KEYS = [
  'id', 'day', 'start', 'featureStart', 'end', 'salesCutOff', 'startUtc', 'screen', 'attributes', 'access', 'subtitleLanguage',
  'format', 'audioLanguage', 'seating', 'onSale', 'bookingUrl', 'soldOut', 'fewTicketsLeft', 'seatsAvailable', 'status',
];
/** What a cinema keeps to itself, by the names of §11 and as the programme would write them. */
const NEVER_SHOWN = ['SeatsSold', 'SeatsHeld', 'SeatsHouse', 'PriceCardName', 'AreComplimentariesAllowed', 'LegalName', 'NationalCode', 'SalesTaxRegistration', 'Fax', 'TicketMessage', 'ReceiptMessage'];

let demo: TestApp;
let sessions: Json[];

before(async () => {
  demo = await startTestApp(DEMO_FILES);
  sessions = await demoRecords('sessions');
});

const get = (t: TestApp, url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });

async function programme(t: TestApp, url: string): Promise<Json> {
  const response = await get(t, url);
  assert.equal(response.statusCode, 200, `${url}: ${response.body}`);
  assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
  const answer = response.json<Json>();
  // Joined from kept texts of its features and sessions, it is still what JSON.stringify writes of it.
  assert.equal(response.body, JSON.stringify(answer), `${url}: the text JSON.stringify writes`);
  return answer;
}

const features = (answer: Json): Json[] => answer['features'] as Json[];
const sessionsOf = (answer: Json): Json[] => features(answer).flatMap((feature) => feature['sessions'] as Json[]);
const ids = (answer: Json): number[] => sessionsOf(answer).map((session) => session['id'] as number).sort((a, b) => a - b);

describe('GET /programme', () => {
  test('answers the site and its films and packages, each with its sessions, in the fields and order of the contract', async () => {
    const answer = await programme(demo, FORTNIGHT);
    assert.deepEqual(Object.keys(answer), ['site', 'from', 'days', 'features']);
    assert.deepEqual(answer['site'], {
      name: 'Marquee Picture House',
      address: ['12 Cuba Street', 'Te Aro', 'Wellington', '6011'],
      country: 'New Zealand',
      phone: '+64 4 555 0100',
      timeZone: 'Pacific/Auckland',
      screens: [{ id: 1, name: 'The Grand' }, { id: 2, name: 'Studio' }, { id: 3, name: 'The Salon' }],
    });
    assert.deepEqual(Object.keys(answer['site'] as Json), SITE_KEYS);
    assert.deepEqual([answer['from'], answer['days']], ['2025-01-06', 14]);

    const publicSessions = sessions.filter((session) => session['ShowType'] === 'Public');
    assert.ok(publicSessions.length < sessions.length, 'the demo has private sessions');
    assert.deepEqual(ids(answer), publicSessions.map((session) => session['Id']).sort((a, b) => Number(a) - Number(b)), 'every public session once, no private one');

    for (const feature of features(answer)) {
      const own = feature['kind'] === 'film' ? 'people' : 'films';
      assert.deepEqual(Object.keys(feature), [...FEATURE_KEYS, own, 'sessions'], String(feature['title']));
      for (const session of feature['sessions'] as Json[]) assert.deepEqual(Object.keys(session), SESSION_KEYS);
      const starts = (feature['sessions'] as Json[]).map((session) => session['startUtc'] as string);
      assert.deepEqual(starts, [...starts].sort(), `${String(feature['title'])}: sessions by start`);
    }
    const firsts = features(answer).map((feature) => (feature['sessions'] as Json[])[0]?.['startUtc'] as string);
    assert.deepEqual(firsts, [...firsts].sort(), 'features by their first session');

    const body = JSON.stringify(answer).toLowerCase();
    for (const name of NEVER_SHOWN) assert.ok(!body.includes(`"${name.toLowerCase()}`), `${name} is never shown`);
  });

  test('a session carries its times with the offset of their instant, its screen, attributes and sale', async () => {
    const answer = await programme(demo, FORTNIGHT);
    const byId = new Map(sessionsOf(answer).map((session) => [session['id'], session]));
    for (const source of nonEmpty(sessions.filter((session) => session['ShowType'] === 'Public'), 'public demo session')) {
      const session = byId.get(source['Id']) as Json;
      const pairs = [['start', 'PreShowStartTime'], ['featureStart', 'FeatureStartTime'], ['end', 'FeatureEndTime'], ['salesCutOff', 'SalesCutOffTime']] as const;
      for (const [name, field] of pairs) {
        const wallClock = String(source[field]);
        assert.equal(String(session[name]).slice(0, 19), wallClock, `${String(source['Id'])} ${name}: the site's wall clock`);
        assert.match(String(session[name]), /[+-]1[23]:00$/, 'with New Zealand\'s offset, +13:00 in January');
        assert.equal(wallClockIn(DEMO_ZONE, Date.parse(String(session[name]))), wallClock, `${String(source['Id'])} ${name}: the instant`);
      }
      assert.equal(Date.parse(String(session['startUtc'])), Date.parse(String(session['start'])));
      assert.equal((session['screen'] as Json)['id'], source['ScreenId']);
      assert.deepEqual((session['attributes'] as Json[]).map((attribute) => attribute['id']), source['Attributes']);
      assert.deepEqual([session['onSale'], session['bookingUrl']], [false, null], 'past its cut-off');
      assert.deepEqual(
        [session['format'], session['audioLanguage'], session['seating'], session['soldOut'], session['fewTicketsLeft'], session['seatsAvailable'], session['status']],
        [source['FilmFormat'], source['AudioLanguage'], source['Seating'], source['TicketsSoldOut'], source['FewTicketsLeft'], source['SeatsAvailable'], source['Status']],
      );
    }
    const subtitled = sessionsOf(answer).find((session) => (session['attributes'] as Json[]).length > 0) as Json;
    assert.deepEqual(Object.keys((subtitled['attributes'] as Json[])[0] as Json), ['id', 'name', 'shortName', 'fontColor', 'backgroundColor']);
  });

  test('a film carries its details and people; a package its films, running time and no details of its own', async () => {
    const answer = await programme(demo, FORTNIGHT);
    const nosferatu = features(answer).find((feature) => feature['id'] === 'HO00000101') as Json;
    assert.equal(nosferatu['kind'], 'film');
    assert.equal(nosferatu['runtimeMinutes'], 94);
    assert.match(String(nosferatu['openingDate']), /^\d{4}-\d\d-\d\d$/);
    assert.ok(nonEmpty(nosferatu['people'] as Json[], 'person of Nosferatu').every((person) => typeof person['name'] === 'string' && ['Actor', 'Director', 'Producer'].includes(String(person['role']))));
    const double = features(answer).find((feature) => feature['kind'] === 'package' && feature['id'] === 1) as Json;
    assert.deepEqual(double['films'], [{ id: 'HO00000106', title: 'Sherlock Jr.' }, { id: 'HO00000107', title: 'Safety Last!' }]);
    assert.equal(double['runtimeMinutes'], 45 + 73);
    assert.deepEqual(
      [double['synopsis'], double['genre'], double['rating'], double['openingDate'], double['poster'], double['posterThumbnail'], double['backdrop'], double['trailer']],
      [null, null, null, null, null, null, null, null],
    );
  });

  test('filters: cinema days, films (and the packages that show them), screens, attributes', async () => {
    const all = await programme(demo, FORTNIGHT);
    const byId = new Map(sessions.map((session) => [session['Id'], session]));
    const expect = (url: string, keep: (session: Json) => boolean) =>
      programme(demo, url).then((answer) => assert.deepEqual(ids(answer), ids(all).filter((id) => keep(byId.get(id) as Json)), url));

    const dayOf = (session: Json): string => {
      const start = String(session['PreShowStartTime']);
      return start.slice(11) < '03:00:00' ? laterBy(start, -24 * 60).slice(0, 10) : start.slice(0, 10);
    };
    await expect('/programme?from=2025-01-08&days=2&sessions=all', (session) => ['2025-01-08', '2025-01-09'].includes(dayOf(session)));
    await expect('/programme?from=2025-01-08&days=1&sessions=all', (session) => dayOf(session) === '2025-01-08');
    // The packages that show Sherlock Jr. are in, with the film's own sessions.
    await expect(`${FORTNIGHT}&film=HO00000106`, (session) => session['FilmId'] === 'HO00000106' && session['FilmPackageId'] === null || session['FilmPackageId'] === 1);
    await expect(`${FORTNIGHT}&film=HO00000106&film=HO00000101`, (session) =>
      (session['FilmPackageId'] === null && ['HO00000106', 'HO00000101'].includes(String(session['FilmId']))) || [1, 2].includes(Number(session['FilmPackageId'])),
    );
    await expect(`${FORTNIGHT}&film=NO-SUCH-FILM`, () => false);
    await expect(`${FORTNIGHT}&screen=2&screen=3`, (session) => [2, 3].includes(Number(session['ScreenId'])));
    await expect(`${FORTNIGHT}&attribute=0000000001`, (session) => (session['Attributes'] as string[]).includes('0000000001'));
    await expect(`${FORTNIGHT}&attribute=0000000001&attribute=0000000002`, (session) =>
      ['0000000001', '0000000002'].every((id) => (session['Attributes'] as string[]).includes(id)),
    );
    await expect(`${FORTNIGHT}&screen=1&attribute=0000000002&film=HO00000106`, (session) =>
      session['ScreenId'] === 1 && (session['Attributes'] as string[]).includes('0000000002') && (session['FilmId'] === 'HO00000106' || session['FilmPackageId'] === 1),
    );
    // The demo's sessions are past: none is on sale.
    assert.deepEqual(features(await programme(demo, '/programme?from=2025-01-06&days=14')), []);
    assert.deepEqual(await programme(demo, `${FORTNIGHT}&format=xml&unknown=1`), all, 'unknown parameters are ignored');
  });

  test('a bad filter value is a 400 problem naming the parameter, whatever else the request asks', async () => {
    const cases: [string, string][] = [
      ['from=2025-02-30', "The from parameter must be a date written YYYY-MM-DD, in the years 1900 to 9900, got '2025-02-30'."],
      ['from=tomorrow', "The from parameter must be a date written YYYY-MM-DD, in the years 1900 to 9900, got 'tomorrow'."],
      ['from=2025-01-06&from=2025-01-07', 'The from parameter must be given once.'],
      ['days=0', "The days parameter must be a whole number of days from 1 to 62, got '0'."],
      ['days=63', "The days parameter must be a whole number of days from 1 to 62, got '63'."],
      ['sessions=some', "The sessions parameter must be on-sale or all, got 'some'."],
      ['film=', "The film parameter must be a film id of 1 to 64 characters, got ''."],
      ['screen=first', "The screen parameter must be a screen id, a whole number from 1 to 2147483647, got 'first'."],
      ['attribute=&screen=1', "The attribute parameter must be an attribute id of 1 to 64 characters, got ''."],
    ];
    for (const path of ['/programme', '/programme.ics', '/programme.jsonld']) {
      for (const [query, detail] of cases) {
        const response = await get(demo, `${path}?${query}`);
        assert.equal(response.statusCode, 400, `${path}?${query}`);
        assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8');
        assert.deepEqual(response.json(), { type: 'about:blank', title: 'Bad Request', status: 400, detail });
      }
    }
    const xml = await get(demo, '/programme?days=x', { accept: 'application/xml' });
    assert.match(xml.body, /^<problem xmlns="urn:ietf:rfc:7807">.*<detail>The days parameter must be a whole number of days from 1 to 62, got 'x'\.<\/detail><\/problem>$/);
  });

  test('a cinema day runs from 03:00 to 02:59: a 00:30 screening belongs to the evening before', async () => {
    const t = await appWithSessions([
      sessionStarting(1, '2026-11-27T23:30:00'),
      sessionStarting(2, '2026-11-28T00:30:00'),
      sessionStarting(3, '2026-11-28T02:59:00'),
      sessionStarting(4, '2026-11-28T03:00:00'),
      sessionStarting(5, '2026-11-27T02:00:00'),
    ]);
    const friday = await programme(t, '/programme?from=2026-11-27&days=1&sessions=all');
    assert.deepEqual(ids(friday), [1, 2, 3]);
    assert.deepEqual(sessionsOf(friday).map((session) => session['day']), ['2026-11-27', '2026-11-27', '2026-11-27']);
    assert.deepEqual(ids(await programme(t, '/programme?from=2026-11-28&days=1&sessions=all')), [4]);
    assert.deepEqual(ids(await programme(t, '/programme?from=2026-11-26&days=1&sessions=all')), [5]);
  });

  test('a week across a daylight-saving change keeps each time at its own offset, in each hemisphere', async () => {
    // New Zealand's clocks go back at 03:00 on 5 April 2026 and forward at 02:00 on 27 September;
    // the United Kingdom's go forward at 01:00 on 29 March 2026 and back at 02:00 on 25 October.
    const cases = [
      { windowsZone: 'New Zealand Standard Time', zone: 'Pacific/Auckland', from: '2026-04-02', change: '2026-04-05', before: '+13:00', after: '+12:00' },
      { windowsZone: 'New Zealand Standard Time', zone: 'Pacific/Auckland', from: '2026-09-24', change: '2026-09-27', before: '+12:00', after: '+13:00' },
      { windowsZone: 'GMT Standard Time', zone: 'Europe/London', from: '2026-03-26', change: '2026-03-29', before: '+00:00', after: '+01:00' },
      { windowsZone: 'GMT Standard Time', zone: 'Europe/London', from: '2026-10-22', change: '2026-10-25', before: '+01:00', after: '+00:00' },
    ];
    for (const { windowsZone, zone, from, change, before, after } of cases) {
      const days = Array.from({ length: 7 }, (_, day) => laterBy(`${from}T19:30:00`, day * 24 * 60));
      const t = await appWithSessions(days.map((start, day) => sessionStarting(day + 1, start)), { windowsZone });
      const answer = await programme(t, `/programme?from=${from}&sessions=all`);
      assert.equal((answer['site'] as Json)['timeZone'], zone);
      const shown = sessionsOf(answer);
      assert.equal(shown.length, 7, `${zone} ${from}`);
      for (const [day, session] of shown.entries()) {
        const wallClock = days[day] as string;
        const offset = wallClock.slice(0, 10) < change ? before : after;
        assert.equal(session['start'], `${wallClock}${offset}`, `${zone}: ${wallClock}`);
        assert.equal(session['day'], wallClock.slice(0, 10));
        assert.equal(Date.parse(String(session['start'])), Date.parse(String(session['startUtc'])), 'the offset and UTC times agree');
        assert.equal(wallClockIn(zone, Date.parse(String(session['startUtc']))), wallClock, 'the instant is the imported time in the site\'s zone');
        // A feature that ends after midnight keeps the offset of its own instant.
        assert.equal(wallClockIn(zone, Date.parse(String(session['end']))), laterBy(wallClock, 109));
      }
    }
  });

  test('a time the change repeats is its first occurrence, one it skips is read at the change', async () => {
    const t = await appWithSessions([sessionStarting(1, '2026-04-05T02:30:00'), sessionStarting(2, '2026-09-27T02:30:00')]);
    const [repeated, skipped] = [...sessionsOf(await programme(t, '/programme?from=2026-04-04&days=1&sessions=all')), ...sessionsOf(await programme(t, '/programme?from=2026-09-26&days=1&sessions=all'))];
    assert.equal(repeated?.['start'], '2026-04-05T02:30:00+13:00');
    assert.equal(repeated?.['startUtc'], '2026-04-04T13:30:00Z');
    assert.equal(skipped?.['start'], '2026-09-27T03:00:00+13:00');
    assert.equal(skipped?.['startUtc'], '2026-09-26T14:00:00Z');
  });

  test('follows the clock: a cut-off passing and the day turning change the answer and its ETag, with no import', async () => {
    // 10:00 on Friday 27 November 2026 in Wellington.
    let now = Date.parse('2026-11-26T21:00:00Z');
    const t = await appWithSessions(
      [
        sessionStarting(1, '2026-11-27T12:00:00'),
        sessionStarting(2, '2026-11-27T18:00:00'),
        sessionStarting(3, '2026-12-04T12:00:00'),
        sessionStarting(4, '2026-11-27T20:00:00', { Status: 'Planned' }),
        sessionStarting(5, '2026-11-27T20:30:00', { Url: null }),
      ],
      { now: () => now },
    );
    const answer = async (url = '/programme') => {
      const response = await get(t, url);
      assert.equal(response.statusCode, 200);
      return { body: response.json<Json>(), etag: String(response.headers['etag']) };
    };
    const morning = await answer();
    assert.equal(morning.body['from'], '2026-11-27');
    assert.deepEqual(ids(morning.body), [1, 2], 'on sale: open, with a Url, sold on the web, in the week');
    assert.deepEqual(sessionsOf(morning.body).map((session) => session['bookingUrl']), ['https://tickets.example/1', 'https://tickets.example/2']);
    const all = await answer('/programme?sessions=all');
    assert.deepEqual(sessionsOf(all.body).map((session) => [session['id'], session['onSale']]), [[1, true], [2, true], [4, false], [5, false]]);
    assert.equal((await answer()).etag, morning.etag, 'the same answer while the clock leaves it');

    now = Date.parse('2026-11-26T23:30:01Z'); // 12:30:01, past session 1's cut-off
    const afternoon = await answer();
    assert.deepEqual(ids(afternoon.body), [2]);
    assert.notEqual(afternoon.etag, morning.etag);
    const allAfternoon = await answer('/programme?sessions=all');
    assert.deepEqual(sessionsOf(allAfternoon.body).slice(0, 1).map((session) => [session['id'], session['onSale'], session['bookingUrl']]), [[1, false, null]]);
    assert.notEqual(allAfternoon.etag, all.etag);

    now = Date.parse('2026-11-27T13:59:59Z'); // 02:59:59 on Saturday: still Friday's cinema day
    assert.equal((await answer()).body['from'], '2026-11-27');
    now = Date.parse('2026-11-27T14:00:00Z'); // 03:00 on Saturday
    const saturday = await answer();
    assert.equal(saturday.body['from'], '2026-11-28');
    assert.deepEqual(ids(saturday.body), [3]);
    assert.notEqual(saturday.etag, afternoon.etag);
  });

  test('carries a strong ETag, revalidates with 304, answers HEAD, and compresses', async () => {
    const response = await get(demo, FORTNIGHT);
    const etag = String(response.headers['etag']);
    assert.match(etag, /^"[A-Za-z0-9_-]+"$/);
    assert.equal(response.headers['cache-control'], 'no-cache', 'as --cache-control to a secret token or the open service');
    assert.equal(varyOf(response), 'Accept-Encoding, Authorization, Origin, VeeziAccessToken');
    assert.equal(response.headers['access-control-allow-origin'], '*');
    const revalidated = await get(demo, FORTNIGHT, { 'if-none-match': etag });
    assert.equal(revalidated.statusCode, 304);
    assert.equal(revalidated.body, '');
    const head = await demo.app.inject({ method: 'HEAD', url: FORTNIGHT });
    assert.equal(head.statusCode, 200);
    assert.equal(head.headers['etag'], etag);
    assert.equal(head.body, '');
    // An answer of a few days is compressed on its first request (a larger one in the background).
    const days = '/programme?from=2025-01-06&days=2&sessions=all';
    const gzip = await get(demo, days, { 'accept-encoding': 'gzip' });
    assert.equal(gzip.headers['content-encoding'], 'gzip');
    assert.notEqual(gzip.headers['etag'], (await get(demo, days)).headers['etag']);
    assert.equal(gunzipSync(gzip.rawPayload).toString('utf8'), (await get(demo, days)).body);
    assert.equal((await demo.app.inject({ method: 'POST', url: '/programme' })).statusCode, 405);
  });

  test('its ETag changes with the seats of one session, and is the same again with the same bytes', async () => {
    // 10:00 on Friday 27 November 2026 in Wellington.
    const now = Date.parse('2026-11-26T21:00:00Z');
    const seated = (seats: number) => [sessionStarting(1, '2026-11-27T12:00:00'), sessionStarting(2, '2026-11-27T18:00:00', { SeatsAvailable: seats })];
    const t = await appWithSessions(seated(40), { now: () => now });
    const dir = await tempDir();
    const importSeats = async (seats: number) => {
      const file = join(dir, `seats-${seats}.json`);
      await writeFile(file, JSON.stringify(seated(seats)));
      await importFiles(t.db, { customer: 'default', files: [file], replace: false });
      await t.live.refresh();
      const response = await get(t, '/programme');
      assert.equal(response.statusCode, 200);
      return { body: response.body, etag: String(response.headers['etag']) };
    };
    const before = await importSeats(40);
    const changed = await importSeats(12);
    assert.notEqual(changed.body, before.body);
    assert.notEqual(changed.etag, before.etag, 'another seat count, another ETag');
    assert.equal((await get(t, '/programme', { 'if-none-match': before.etag })).statusCode, 200);
    const back = await importSeats(40);
    assert.equal(back.body, before.body);
    assert.equal(back.etag, before.etag, 'the same bytes, the same ETag');
  });

  test('with no site imported, each format answers a 404 problem', async () => {
    const bare = await startTestApp();
    for (const path of ['/programme', '/programme.ics', '/programme.jsonld']) {
      const response = await get(bare, path);
      assert.equal(response.statusCode, 404, path);
      assert.equal(response.json<Json>()['detail'], 'No site has been imported.');
    }
  });
});
