/**
 * The programme's feeds, read by parsers this project did not write: `/programme.ics` by ical.js,
 * as calendar applications read it, each event's instant checked against the imported wall-clock
 * time and zone; `/programme.jsonld` expanded by the jsonld processor, every type and property
 * checked against schema.org's vocabulary as schema-dts packages it.
 */
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import ICAL from 'ical.js';
import jsonld from 'jsonld';
import { appWithSessions, DEMO_FILES, DEMO_ZONE, demoRecords, freshDatabase, runCli, sessionStarting, startTestApp, tempDir, wallClockIn, type TestApp } from './helpers.js';

type Json = Record<string, unknown>;

const FORTNIGHT = 'from=2025-01-06&days=14&sessions=all';
const SCHEMA = 'https://schema.org/';

let demo: TestApp;
let sessions: Json[];
let films: Map<unknown, Json>;

before(async () => {
  demo = await startTestApp(DEMO_FILES);
  sessions = (await demoRecords('sessions')).filter((session) => session['ShowType'] === 'Public');
  films = new Map((await demoRecords('films')).map((film) => [film['Id'], film]));
});

async function body(t: TestApp, url: string, contentType: string): Promise<string> {
  const response = await t.app.inject({ method: 'GET', url });
  assert.equal(response.statusCode, 200, `${url}: ${response.body}`);
  assert.equal(response.headers['content-type'], contentType);
  return response.body;
}

/** The programme's JSON sessions, in the order the feeds write them: by feature, then start. */
async function programmeSessions(t: TestApp, query: string): Promise<Json[]> {
  const answer = JSON.parse(await body(t, `/programme?${query}`, 'application/json; charset=utf-8')) as { features: Json[] };
  return answer.features.flatMap((feature) => (feature['sessions'] as Json[]).map((session) => ({ ...session, feature })));
}

function events(calendar: string): ICAL.Component[] {
  return new ICAL.Component(ICAL.parse(calendar)).getAllSubcomponents('vevent');
}

describe('GET /programme.ics', () => {
  test('is an iCalendar object of CRLF lines of at most 75 octets, which ical.js reads', async () => {
    const calendar = await body(demo, `/programme.ics?${FORTNIGHT}`, 'text/calendar; charset=utf-8');
    assert.ok(calendar.endsWith('\r\n'));
    const lines = calendar.slice(0, -2).split('\r\n');
    assert.ok(lines.every((line) => !line.includes('\n') && !line.includes('\r')), 'CRLF line ends only');
    assert.ok(lines.every((line) => Buffer.byteLength(line) <= 75), 'folded at 75 octets');
    const root = new ICAL.Component(ICAL.parse(calendar));
    assert.equal(root.name, 'vcalendar');
    assert.equal(root.getFirstPropertyValue('version'), '2.0');
    assert.match(String(root.getFirstPropertyValue('prodid')), /^-\/\/Marquee\/\/Marquee [\d.]+\/\/EN$/);
    assert.equal(root.getFirstPropertyValue('x-wr-calname'), 'Marquee Picture House');
    assert.equal(root.getFirstPropertyValue('x-wr-timezone'), DEMO_ZONE);
  });

  test('has an event per session at the instant of its imported wall-clock time in the site\'s zone', async () => {
    const calendar = await body(demo, `/programme.ics?${FORTNIGHT}`, 'text/calendar; charset=utf-8');
    const shown = await programmeSessions(demo, FORTNIGHT);
    const byId = new Map(sessions.map((session) => [session['Id'], session]));
    const found = events(calendar).map((component) => new ICAL.Event(component));
    assert.equal(found.length, sessions.length, 'every public session');
    assert.deepEqual(found.map((event) => event.uid), shown.map((session) => `${String(session['id'])}.default@marquee`), 'in the order of the programme, each UID its session\'s');
    assert.equal(new Set(found.map((event) => event.uid)).size, found.length, 'UIDs are unique');
    for (const [index, event] of found.entries()) {
      const session = shown[index] as Json;
      const source = byId.get(session['id']) as Json;
      assert.equal(wallClockIn(DEMO_ZONE, event.startDate.toJSDate().getTime()), source['PreShowStartTime'], `${event.uid} DTSTART`);
      assert.equal(wallClockIn(DEMO_ZONE, event.endDate.toJSDate().getTime()), source['FeatureEndTime'], `${event.uid} DTEND`);
      assert.equal(event.startDate.zone?.tzid, 'UTC', 'in UTC');
      const feature = session['feature'] as Json;
      assert.equal(event.summary, feature['title']);
      assert.equal(event.location, `Marquee Picture House, ${String((session['screen'] as Json)['name'])}`);
      // A calendar's text has one line break, as a synopsis's CRLF is read back.
      const synopsis = feature['kind'] === 'film' ? String((films.get(feature['id']) as Json)['Synopsis']).replace(/\r\n?/g, '\n') : null;
      assert.equal(event.description, synopsis);
      assert.equal(event.component.getFirstPropertyValue('url'), null, 'no booking link once sales are over');
      assert.match(String(event.component.getFirstPropertyValue('dtstamp')), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    }
  });

  test('escapes and folds any text, and links each session on sale to its booking page', async () => {
    const dir = await tempDir();
    const synopsis = 'Line one, with commas; semicolons \\ and a backslash.\nLine two: 狂った一頁 — Человек с киноаппаратом, '.repeat(3);
    const film = { ...((await demoRecords('films'))[0] as Json), Id: 'ODD', Title: 'Tom, Jerry; & Co. \\ "Friends" </script>', Synopsis: synopsis };
    await writeFile(join(dir, 'odd-film.json'), JSON.stringify(film));
    const now = Date.parse('2026-11-26T21:00:00Z');
    const sessionsFile = join(dir, 'sessions.json');
    const oddSession = (overrides: Json) => JSON.stringify([sessionStarting(1, '2026-11-27T19:30:00', { FilmId: 'ODD', Title: 'Odd', ...overrides })]);
    const files = [...DEMO_FILES.filter((file) => !file.endsWith('sessions.json')), join(dir, 'odd-film.json'), sessionsFile];
    // A line break would end the feed's line: such a Url is refused, as the URL parser would pass over it.
    await writeFile(sessionsFile, oddSession({ Url: 'https://tickets.example/1\r\nEND:VEVENT\r\nBEGIN:VEVENT\r\nSUMMARY:Free tickets' }));
    const refused = await runCli(['import', '--database', await freshDatabase(), ...files]);
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /Url: must be empty or an absolute http\(s\) URL/);
    // A session that ends as it starts, which the import allows, has no DTEND, which must come after DTSTART.
    const instant = '2026-11-27T19:30:00';
    await writeFile(sessionsFile, oddSession({ Url: 'https://tickets.example/1?seat="A 1"', SalesCutOffTime: instant, FeatureStartTime: instant, FeatureEndTime: instant }));
    const t = await startTestApp(files, { now: () => now });
    const calendar = await body(t, '/programme.ics', 'text/calendar; charset=utf-8');
    assert.ok(calendar.split('\r\n').every((line) => Buffer.byteLength(line) <= 75));
    assert.match(calendar, /\r\nSUMMARY:Tom\\, Jerry\\; & Co\. \\\\ "Friends" <\/script>\r\n/);
    const [event] = events(calendar).map((component) => new ICAL.Event(component));
    assert.equal(event?.summary, film.Title);
    assert.equal(event?.description, synopsis);
    assert.equal(event?.component.getFirstPropertyValue('url'), 'https://tickets.example/1?seat=%22A%201%22', 'a URI, what none may hold escaped');
    assert.equal(event?.component.getFirstPropertyValue('dtend'), null);
    assert.equal(event?.duration.toSeconds(), 0);
    // JSON-LD a page may paste into a <script> element as it is.
    const linkedData = await body(t, '/programme.jsonld', 'application/ld+json; charset=utf-8');
    assert.doesNotMatch(linkedData, /</);
    assert.equal(((JSON.parse(linkedData) as Json)['event'] as Json[])[0]?.['name'], film.Title);
  });

  test('keeps its bytes and ETag while nothing changes', async () => {
    const first = await demo.app.inject({ url: `/programme.ics?${FORTNIGHT}` });
    const second = await demo.app.inject({ url: `/programme.ics?${FORTNIGHT}` });
    assert.equal(second.body, first.body);
    assert.equal(second.headers['etag'], first.headers['etag']);
  });
});

/** The types and properties schema.org defines, as schema-dts, generated from its vocabulary, declares them. */
async function schemaOrgVocabulary(): Promise<{ readonly types: Set<string>; readonly properties: Set<string>; readonly text: string }> {
  const declarations = await readFile(createRequire(import.meta.url).resolve('schema-dts/dist/schema.d.ts'), 'utf8');
  return {
    types: new Set([...declarations.matchAll(/"@type": "(\w+)"/g)].map((match) => match[1] as string)),
    properties: new Set([...declarations.matchAll(/^\s+"(\w+)"\?: /gm)].map((match) => match[1] as string)),
    text: declarations,
  };
}

/** schema.org's context, as far as this document needs it: every term is schema.org's. No request leaves the test. */
const documentLoader = async (url: string) => {
  if (url !== 'https://schema.org' && url !== SCHEMA) throw new Error(`the document asked for the context ${url}`);
  return { contextUrl: undefined, documentUrl: url, document: { '@context': { '@vocab': SCHEMA } } };
};

async function expand(document: unknown): Promise<Json[]> {
  // safe: a term that does not expand, and would be dropped, is an error.
  const options = { documentLoader, safe: true } as Parameters<typeof jsonld.expand>[1] & { safe: boolean };
  return (await jsonld.expand(document as object, options)) as Json[];
}

/** Every node of an expanded document, with the path to it. */
function* nodes(value: unknown, path = '$'): Generator<[string, Json]> {
  if (Array.isArray(value)) for (const [index, item] of value.entries()) yield* nodes(item, `${path}[${index}]`);
  else if (typeof value === 'object' && value !== null) {
    yield [path, value as Json];
    for (const [key, item] of Object.entries(value)) if (!key.startsWith('@')) yield* nodes(item, `${path}.${key.slice(SCHEMA.length)}`);
  }
}

describe('GET /programme.jsonld', () => {
  test('expands, every term to schema.org, into the types and properties schema.org defines', async () => {
    const document = JSON.parse(await body(demo, `/programme.jsonld?${FORTNIGHT}`, 'application/ld+json; charset=utf-8')) as Json;
    assert.equal(document['@context'], 'https://schema.org');
    const expanded = await expand(document);
    const vocabulary = await schemaOrgVocabulary();
    let checked = 0;
    for (const [path, node] of nodes(expanded)) {
      if ('@value' in node) continue;
      for (const type of (node['@type'] as string[] | undefined) ?? []) {
        assert.ok(type.startsWith(SCHEMA) && vocabulary.types.has(type.slice(SCHEMA.length)), `${path}: ${type} is a schema.org type`);
      }
      for (const property of Object.keys(node).filter((key) => !key.startsWith('@'))) {
        assert.ok(property.startsWith(SCHEMA) && vocabulary.properties.has(property.slice(SCHEMA.length)), `${path}: ${property} is a schema.org property`);
        checked += 1;
      }
    }
    assert.ok(checked > sessions.length * 5, `${checked} properties checked`);
    const [theatre] = expanded;
    assert.deepEqual(theatre?.['@type'], [`${SCHEMA}MovieTheater`]);
    assert.equal((theatre?.[`${SCHEMA}event`] as Json[]).length, sessions.length, 'an event per public session');
    for (const status of [...JSON.stringify(document).matchAll(/"(https:\/\/schema\.org\/\w+)"/g)].map((match) => match[1])) {
      assert.ok(vocabulary.text.includes(`"${String(status)}"`), `${String(status)} is a schema.org enumeration member`);
    }
  });

  test('each event is a screening of its film, or its package\'s films, at the programme\'s times, with an offer while on sale', async () => {
    const now = Date.parse('2026-11-26T21:00:00Z');
    const t = await appWithSessions(
      [
        sessionStarting(1, '2026-11-27T19:30:00'),
        sessionStarting(2, '2026-11-27T20:00:00', { FewTicketsLeft: true }),
        sessionStarting(3, '2026-11-27T20:30:00', { TicketsSoldOut: true, SeatsAvailable: 0 }),
        sessionStarting(4, '2026-11-27T21:00:00', { Status: 'Planned' }),
        sessionStarting(5, '2026-11-27T21:30:00', { FilmId: null, FilmPackageId: 1, Title: 'Double' }),
      ],
      { now: () => now },
    );
    const document = JSON.parse(await body(t, '/programme.jsonld?sessions=all', 'application/ld+json; charset=utf-8')) as Json;
    await expand(document);
    const shown = await programmeSessions(t, 'sessions=all');
    const events = document['event'] as Json[];
    assert.deepEqual(events.map((event) => [event['startDate'], event['endDate']]), shown.map((session) => [session['start'], session['end']]));
    assert.deepEqual(
      events.map((event) => (event['offers'] as Json | undefined)?.['availability'] ?? null),
      shown.map((session) => ({ 1: `${SCHEMA}InStock`, 2: `${SCHEMA}LimitedAvailability`, 3: `${SCHEMA}SoldOut`, 4: null, 5: `${SCHEMA}InStock` })[session['id'] as 1]),
    );
    const single = events.find((event) => event['name'] === 'Nosferatu') as Json;
    const poster = `images/${Buffer.from(String(films.get('HO00000101')?.['FilmPosterUrl'])).toString('base64url')}/320/`;
    assert.ok(String((single['workPresented'] as Json)['image']).startsWith(poster), 'its poster, resized');
    assert.deepEqual({ ...(single['workPresented'] as Json), image: poster }, {
      '@type': 'Movie',
      name: 'Nosferatu',
      duration: 'PT94M',
      contentRating: 'M',
      image: poster,
      trailer: { '@type': 'VideoObject', name: 'Nosferatu (trailer)', contentUrl: films.get('HO00000101')?.['FilmTrailerUrl'] },
    });
    assert.deepEqual((single['offers'] as Json)['url'], 'https://tickets.example/1');
    assert.deepEqual(single['location'], { '@type': 'MovieTheater', name: 'Marquee Picture House', address: document['address'] });
    const double = events.find((event) => event['name'] !== 'Nosferatu') as Json;
    assert.deepEqual((double['workPresented'] as Json[]).map((movie) => movie['name']), ['Sherlock Jr.', 'Safety Last!']);
    assert.deepEqual(document['address'], { '@type': 'PostalAddress', streetAddress: '12 Cuba Street, Te Aro, Wellington', postalCode: '6011', addressCountry: 'New Zealand' });
    assert.deepEqual([document['telephone'], document['screenCount']], ['+64 4 555 0100', 3]);
  });
});
