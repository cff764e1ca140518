/**
 * The programme beside films and packages, through HTTP (CONTRACT §11): the site, screens,
 * attributes, sessions, the web sessions on sale, and the older film of /v1/film, in JSON and in
 * XML read back by a strict parser.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { before, describe, test } from 'node:test';
import { issueToken } from '../src/access/manage-tokens.js';
import { compareCodePoints } from '../src/catalogue/code-points.js';
import { importFiles } from '../src/import/import-files.js';
import { FILM_V1_SHAPE, WEB_SESSION_SHAPE, type WireShape } from '../src/formats/wire-shape.js';
import { appWithSessions, DEMO_FILES, demoRecords, nonEmpty, parseXmlAnswer, sessionAt, startTestApp, tempDir, varyOf, waitFor, type TestApp } from './helpers.js';
import { ATTRIBUTE, FILM_V1, SCREEN, SESSION, SITE, WEB_SESSION } from './wire-properties.js';

type Json = Record<string, unknown>;

const DATA_CONTRACT = 'http://schemas.datacontract.org/2004/07/Vista.Online.BackOffice.Api.Models.V1';
const ARRAYS = 'http://schemas.microsoft.com/2003/10/Serialization/Arrays';
const HOUR = 3_600_000;

let demo: TestApp;
let site: Json;
let screens: Json[];
let attributes: Json[];
let sessions: Json[];

before(async () => {
  demo = await startTestApp(DEMO_FILES);
  [site = {}] = await demoRecords('site');
  screens = await demoRecords('screens');
  attributes = await demoRecords('attributes');
  sessions = await demoRecords('sessions');
});

async function get(t: TestApp, url: string, headers: Record<string, string> = {}) {
  return t.app.inject({ method: 'GET', url, headers });
}

const withoutUrl = ({ Url: _url, ...session }: Json): Json => session;

/** The JSON answer of `url`, checked to equal its XML answer read back strictly. */
async function answer(t: TestApp, url: string, shape?: WireShape<unknown>): Promise<unknown> {
  const json = await get(t, url);
  assert.equal(json.statusCode, 200, url);
  const xml = await get(t, url, { accept: 'application/xml' });
  assert.equal(xml.statusCode, 200, url);
  const parsed = parseXmlAnswer(xml.body, shape);
  assert.equal(parsed.namespace, DATA_CONTRACT, url);
  assert.deepEqual(parsed.value, json.json(), `${url}: the XML holds what the JSON does`);
  return json.json();
}

describe('GET /v1/site', () => {
  test('answers the one site, its screens by Id, in JSON and XML', async () => {
    const value = (await answer(demo, '/v1/site')) as Json;
    assert.deepEqual(Object.keys(value), SITE);
    assert.deepEqual(Object.keys(value), Object.keys(site), 'in the order of the demo file');
    assert.deepEqual(Object.keys((value['Screens'] as Json[])[0] ?? {}), ['Id']);
    assert.deepEqual(value, site);
    const xml = (await get(demo, '/v1/site?format=xml')).body;
    assert.match(xml, /^<Site xmlns:i="http:\/\/www\.w3\.org\/2001\/XMLSchema-instance" xmlns="[^"]+"><Address1>/);
    assert.match(xml, /<Screens><Screen><Id>1<\/Id><\/Screen><Screen><Id>2<\/Id><\/Screen><Screen><Id>3<\/Id><\/Screen><\/Screens>/);
    assert.match(xml, /<Phone2 i:nil="true"\/>/);
    assert.match(xml, /<TicketMessage2\/>/);
  });

  test('answers a 404 problem when no site was imported, and the lists are empty', async () => {
    const bare = await startTestApp();
    for (const accept of ['application/json', 'application/xml']) {
      const response = await get(bare, '/v1/site', { accept });
      assert.equal(response.statusCode, 404);
      assert.equal(response.headers['content-type'], `application/problem+${accept.split('/')[1]}; charset=utf-8`);
      assert.match(response.body, /No site has been imported\./);
    }
    for (const url of ['/v1/screen', '/v1/attribute', '/v1/session', '/v1/websession']) {
      assert.deepEqual(await answer(bare, url), [], url);
    }
  });
});

describe('GET /v1/screen and /v1/attribute', () => {
  test('list screens by Id and answer each, in JSON and XML', async () => {
    const list = (await answer(demo, '/v1/screen')) as Json[];
    assert.deepEqual(list, [...screens].sort((a, b) => (a['Id'] as number) - (b['Id'] as number)));
    for (const screen of nonEmpty(list, 'screen')) {
      assert.deepEqual(Object.keys(screen), SCREEN);
      assert.deepEqual(await answer(demo, `/v1/screen/${String(screen['Id'])}`), screen);
    }
    assert.equal(parseXmlAnswer((await get(demo, '/v1/screen?format=xml')).body).root, 'ArrayOfScreen');
    assert.equal(parseXmlAnswer((await get(demo, '/v1/screen/1?format=xml')).body).root, 'Screen');
    assert.equal((await get(demo, '/v1/screen/001')).json<Json>()['Id'], 1, 'leading zeros, as .NET binds an int');
    for (const id of ['9', 'abc', '0', '-1', '2147483648']) {
      const missing = await get(demo, `/v1/screen/${id}`);
      assert.equal(missing.statusCode, 404, id);
      assert.equal(missing.json<Json>()['detail'], `No screen has the id '${id}'.`);
    }
  });

  test('list attributes by Id, by code point, colours in the case imported', async () => {
    const list = (await answer(demo, '/v1/attribute')) as Json[];
    assert.deepEqual(list.map((a) => a['Id']), attributes.map((a) => a['Id'] as string).sort(compareCodePoints));
    assert.ok(list.some((a) => a['BackgroundColor'] === '#f2c14e'), 'a lower-case colour stays lower case');
    for (const attribute of nonEmpty(list, 'attribute')) {
      assert.deepEqual(Object.keys(attribute), ATTRIBUTE);
      assert.deepEqual(await answer(demo, `/v1/attribute/${encodeURIComponent(String(attribute['Id']))}`), attribute);
    }
    assert.equal((await get(demo, '/v1/attribute/1')).statusCode, 404, 'a string id is matched exactly');
  });
});

describe('GET /v1/session', () => {
  test('lists every session, past ones too, by PreShowStartTime then Id, as imported less Url', async () => {
    const list = (await answer(demo, '/v1/session')) as Json[];
    const expected = sessions
      .map(withoutUrl)
      .sort((a, b) => compareCodePoints(a['PreShowStartTime'] as string, b['PreShowStartTime'] as string) || (a['Id'] as number) - (b['Id'] as number));
    assert.deepEqual(list, expected);
    for (const session of nonEmpty(list, 'session')) assert.deepEqual(Object.keys(session), SESSION);
    assert.ok(list.some((s) => s['FilmPackageId'] !== null && s['FilmId'] === null), 'a package session');
    assert.ok(list.some((s) => s['FilmPackageId'] !== null && s['FilmId'] !== null), 'a package session naming one of its films');
  });

  test('answers each session, and 404 for an unknown or malformed id', async () => {
    for (const session of nonEmpty(sessions.slice(0, 20), 'demo session')) {
      assert.deepEqual(await answer(demo, `/v1/session/${String(session['Id'])}`), withoutUrl(session));
    }
    for (const id of ['1', 'x', '1.5']) assert.equal((await get(demo, `/v1/session/${id}`)).statusCode, 404, id);
  });

  test('writes SalesVia as SalesChannel elements and Attributes as .NET strings, empty lists as empty elements', async () => {
    const withAttribute = sessions.find((s) => (s['Attributes'] as unknown[]).length > 0) as Json;
    const without = sessions.find((s) => (s['Attributes'] as unknown[]).length === 0) as Json;
    const xmlOf = async (session: Json): Promise<string> => (await get(demo, `/v1/session/${String(session['Id'])}?format=xml`)).body;
    const attributeId = (withAttribute['Attributes'] as string[])[0] as string;
    assert.match(await xmlOf(withAttribute), new RegExp(`<Attributes xmlns:d2p1="${ARRAYS}"><d2p1:string>${attributeId}</d2p1:string>`));
    assert.match(await xmlOf(without), new RegExp(`<Attributes xmlns:d2p1="${ARRAYS}"/>`));
    assert.match(await xmlOf(withAttribute), /<SalesVia><SalesChannel>WWW<\/SalesChannel><SalesChannel>POS<\/SalesChannel>/);
    const noChannels = await appWithSessions([sessionAt(5, Date.now() + HOUR, { SalesVia: [] })]);
    assert.match((await get(noChannels, '/v1/session/5?format=xml')).body, /<SalesVia\/>/);
    assert.deepEqual((await get(noChannels, '/v1/session/5')).json<Json>()['SalesVia'], []);
  });
});

describe('GET /v1/websession', () => {
  test('lists only open, public sessions sold on the web with a Url and a cut-off ahead, Url first', async () => {
    const now = Date.now();
    const started = sessionAt(0, now - HOUR);
    const records = [
      sessionAt(1, now + 2 * HOUR),
      sessionAt(2, now + HOUR, { Status: 'Closed' }),
      sessionAt(3, now + HOUR, { Status: 'Planned' }),
      sessionAt(4, now + HOUR, { ShowType: 'Private' }),
      sessionAt(5, now + HOUR, { SalesVia: ['POS', 'KIOSK'] }),
      sessionAt(6, now + HOUR, { Url: null }),
      sessionAt(7, now - HOUR),
      sessionAt(8, now + HOUR, { TicketsSoldOut: true, SeatsAvailable: 0, SalesVia: ['POS', 'WWW'] }),
      sessionAt(9, now + HOUR, { PreShowStartTime: started['PreShowStartTime'], FeatureStartTime: started['FeatureStartTime'] }),
    ];
    const t = await appWithSessions(records);
    const list = (await answer(t, '/v1/websession', WEB_SESSION_SHAPE as WireShape<unknown>)) as Json[];
    assert.deepEqual(list.map((s) => s['Id']), [9, 8, 1], 'ordered as sessions; sold out and started sessions stay on sale');
    for (const session of list) assert.deepEqual(Object.keys(session), WEB_SESSION);
    assert.deepEqual(list[2], records[0]);
    const xml = (await get(t, '/v1/websession?format=xml')).body;
    assert.match(xml, /^<ArrayOfSession [^>]*><Session><AreComplimentariesAllowed>/);
    assert.match(xml, /<Title>Nosferatu<\/Title><Url>https:\/\/tickets\.example\/9<\/Url><\/Session>/);
    assert.deepEqual(await answer(t, '/v1/websession/1', WEB_SESSION_SHAPE as WireShape<unknown>), records[0]);
    for (const id of [2, 3, 4, 5, 6, 7]) {
      const response = await get(t, `/v1/websession/${id}`);
      assert.equal(response.statusCode, 404, String(id));
      assert.equal(response.json<Json>()['detail'], `No session on sale has the id '${id}'.`);
      assert.equal((await get(t, `/v1/session/${id}`)).statusCode, 200, `session ${id} is served all the same`);
    }
  });

  test('the list changes as a sales cut-off passes, with no import, to the millisecond, with a new ETag', async () => {
    // The app's clock is the test's: the cut-off passes when the test says, however busy the machine.
    const cutOff = Date.UTC(2026, 10, 27, 7, 0, 0);
    let clock = cutOff - HOUR;
    const t = await appWithSessions([sessionAt(1, cutOff), sessionAt(2, cutOff + HOUR)], { now: () => clock });
    const ids = async (): Promise<{ ids: unknown[]; etag: string }> => {
      const response = await get(t, '/v1/websession');
      return { ids: response.json<Json[]>().map((s) => s['Id']), etag: String(response.headers['etag']) };
    };
    const before = await ids();
    assert.deepEqual(before.ids, [1, 2]);
    clock = cutOff - 1;
    assert.deepEqual(await ids(), before, 'on sale until the cut-off, the same bytes');
    clock = cutOff;
    const after = await ids();
    assert.deepEqual(after.ids, [2], 'off sale once the cut-off is reached');
    assert.notEqual(after.etag, before.etag, 'the ETag changes with the list');
    assert.equal((await get(t, '/v1/websession', { 'if-none-match': before.etag })).statusCode, 200);
    assert.equal((await get(t, '/v1/websession/1')).statusCode, 404);
    assert.equal((await get(t, '/v1/websession/2')).statusCode, 200);
    assert.deepEqual((await get(t, '/v1/session')).json<Json[]>().map((s) => s['Id']), [1, 2], 'every session stays in /v1/session');
  });
});

describe('GET /v1/film', () => {
  test('answers the same films as /v4/film, in its order, in the older 19-property shape', async () => {
    const v4 = (await get(demo, '/v4/film')).json<Json[]>();
    const v1 = (await answer(demo, '/v1/film', FILM_V1_SHAPE as WireShape<unknown>)) as Json[];
    assert.equal(FILM_V1.length, 19);
    assert.deepEqual(v1, v4.map((film) => Object.fromEntries(FILM_V1.map((name) => [name, film[name]]))));
    for (const film of nonEmpty(v1.slice(0, 10), 'film')) {
      assert.deepEqual(Object.keys(film), FILM_V1);
      assert.deepEqual(await answer(demo, `/v1/film/${encodeURIComponent(String(film['Id']))}`, FILM_V1_SHAPE as WireShape<unknown>), film);
    }
    assert.equal((await get(demo, '/v1/film/NOPE')).json<Json>()['detail'], "No film has the id 'NOPE'.");
  });

  test('wraps people in XML: <People><Person>, and <People/> for nobody', async () => {
    const films = (await get(demo, '/v1/film')).json<Json[]>();
    const withPeople = films.find((film) => (film['People'] as unknown[]).length > 1) as Json;
    const nobody = films.find((film) => (film['People'] as unknown[]).length === 0) as Json;
    const xmlOf = async (film: Json): Promise<string> => (await get(demo, `/v1/film/${encodeURIComponent(String(film['Id']))}?format=xml`)).body;
    assert.match(await xmlOf(withPeople), /<People><Person><FirstName>[^<]*<\/FirstName><Id>[^<]*<\/Id><LastName>[^<]*<\/LastName><Role>\w+<\/Role><\/Person><Person>/);
    assert.match(await xmlOf(nobody), /<People\/>/);
    assert.doesNotMatch(await xmlOf(withPeople), /<FilmPosterUrl|<LastModifiedDate/);
  });
});

describe('every new path follows the rules of every path', () => {
  const PATHS = ['/v1/film', '/v1/film/HO00000101', '/v1/screen', '/v1/screen/1', '/v1/attribute', '/v1/attribute/0000000001', '/v1/site', '/v1/session', '/v1/session/1001'];

  test('case-insensitive paths, HEAD, 405, 304 and compression', async () => {
    for (const path of PATHS) {
      const response = await get(demo, path);
      assert.equal(response.statusCode, 200, path);
      assert.equal((await get(demo, path.toUpperCase())).statusCode, 200, `${path} in capitals`);
      assert.equal((await get(demo, `${path}/`)).statusCode, 200, `${path} with a trailing slash`);
      const head = await demo.app.inject({ method: 'HEAD', url: path });
      assert.equal(head.statusCode, 200);
      assert.equal(head.body, '');
      assert.equal(head.headers['etag'], response.headers['etag'], path);
      const post = await demo.app.inject({ method: 'POST', url: path });
      assert.equal(post.statusCode, 405, path);
      assert.equal(post.headers['allow'], 'GET, HEAD');
      assert.equal((await get(demo, path, { 'if-none-match': String(response.headers['etag']) })).statusCode, 304, path);
      assert.match(varyOf(response), /^Accept/);
    }
    // A list this large is compressed in the background, from its second compressed request on.
    let list = await get(demo, '/v1/session', { 'accept-encoding': 'gzip' });
    await waitFor(async () => (list = await get(demo, '/v1/session', { 'accept-encoding': 'gzip' })).headers['content-encoding'] === 'gzip', 30_000);
    const identity = await get(demo, '/v1/session');
    assert.deepEqual(gunzipSync(list.rawPayload), identity.rawPayload);
    assert.notEqual(list.headers['etag'], identity.headers['etag']);
  });

  test('one customer is one site: a token sees its own customer\'s programme only', async () => {
    const t = await startTestApp(DEMO_FILES);
    const dir = await tempDir();
    const file = join(dir, 'other-site.json');
    await writeFile(file, JSON.stringify({ ...site, Name: 'The Other Cinema', Screens: [] }));
    await importFiles(t.db, { customer: 'other', files: [file], replace: true });
    await t.live.refresh();
    const mine = await issueToken(t.db, { customer: 'default', label: null });
    const theirs = await issueToken(t.db, { customer: 'other', label: null });
    await t.tokens.refresh();
    const siteFor = async (token: string) => (await get(t, '/v1/site', { veeziaccesstoken: token })).json<Json>()['Name'];
    assert.equal(await siteFor(mine.token), site['Name']);
    assert.equal(await siteFor(theirs.token), 'The Other Cinema');
    assert.deepEqual((await get(t, '/v1/session', { authorization: `Bearer ${theirs.token}` })).json(), []);
    assert.equal((await get(t, '/v1/site')).statusCode, 401);
  });
});
