/**
 * The programme for every visitor (CONTRACT §15) through HTTP: each session's access terms and
 * subtitle language read from the demo cinema's attributes, the access filter on every path of
 * the programme, the calendar's CATEGORIES and the JSON-LD's subtitleLanguage, and the films
 * coming soon as the clock moves. One app, its clock moved by the tests.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { issueToken } from '../src/access/manage-tokens.js';
import { appWithSessions, sessionStarting, type TestApp } from './helpers.js';

type Json = Record<string, unknown>;

/** 10:00 on Monday 6 January 2025 in Wellington (NZDT, +13). */
const MONDAY = Date.parse('2025-01-05T21:00:00Z');
/** 20:00 on Sunday 12 January, half an hour after Metropolis's only session began. */
const SUNDAY_EVENING = Date.parse('2025-01-12T07:00:00Z');
const WEEK = 'from=2025-01-06&days=7&sessions=all';

const AD = '0000000005';
const CC = '0000000006';
const SESSIONS = [
  sessionStarting(1, '2025-01-06T19:30:00', { Attributes: [AD, CC] }),
  sessionStarting(2, '2025-01-07T19:30:00', { Attributes: ['0000000001'] }),
  sessionStarting(3, '2025-01-08T14:00:00', { Attributes: ['0000000003', CC] }),
  sessionStarting(4, '2025-01-08T11:00:00', { Attributes: ['0000000007'] }),
  sessionStarting(5, '2025-01-09T13:00:00', { Attributes: ['0000000008'] }),
  sessionStarting(6, '2025-01-10T19:30:00', { Attributes: ['0000000002', '0000000004'] }),
  sessionStarting(7, '2025-01-12T19:30:00', { FilmId: 'HO00000102', Title: 'Metropolis', Status: 'Planned' }),
  sessionStarting(8, '2025-01-13T19:30:00', { FilmId: 'HO00000117', Title: 'Detour', Status: 'Planned' }),
  sessionStarting(9, '2025-01-14T19:30:00', { FilmId: 'HO00000106', Title: 'Sherlock Jr.', Status: 'Planned' }),
  sessionStarting(10, '2025-01-07T17:30:00', { FilmId: null, FilmPackageId: 1, Title: 'Silent Comedy Double' }),
  sessionStarting(11, '2025-01-15T19:30:00', { FilmId: 'navigator_1924', Title: 'The Navigator', Status: 'Planned' }),
  sessionStarting(12, '2025-01-05T19:30:00', { FilmId: 'HO00000111', Title: 'Charade', Status: 'Planned' }),
];

let t: TestApp;
let now = MONDAY;
let key: string;

before(async () => {
  t = await appWithSessions(SESSIONS, { now: () => now });
  await issueToken(t.db, { customer: 'default', label: 'closes the service' });
  key = (await issueToken(t.db, { customer: 'default', label: 'site', kind: 'publishable' })).token;
  await t.tokens.refresh();
});

async function get(url: string): Promise<{ status: number; body: string; headers: Json }> {
  const separator = url.includes('?') ? '&' : '?';
  const response = await t.app.inject({ method: 'GET', url: `${url}${separator}key=${key}` });
  return { status: response.statusCode, body: response.body, headers: response.headers };
}

/** The sessions of `/programme?query` by id: their access terms and subtitle language. */
async function sessions(query: string): Promise<Map<number, { access: string[]; subtitleLanguage: string | null }>> {
  const answer = await get(`/programme?${query}`);
  assert.equal(answer.status, 200, answer.body);
  const features = (JSON.parse(answer.body) as { features: { sessions: Json[] }[] }).features;
  return new Map(
    features.flatMap((feature) => feature.sessions).map((session) => [session['id'] as number, { access: session['access'] as string[], subtitleLanguage: session['subtitleLanguage'] as string | null }]),
  );
}

describe('access terms on the programme', () => {
  test('each session says its terms and its subtitles\' language, read from the names of its attributes', async () => {
    const week = await sessions(WEEK);
    assert.deepEqual(week.get(1), { access: ['audio-description', 'captioned'], subtitleLanguage: null }, 'Audio described (AD) and Captioned for deaf and hard of hearing viewers (CC)');
    assert.deepEqual(week.get(2), { access: ['subtitled'], subtitleLanguage: 'en' }, 'English subtitles');
    assert.deepEqual(week.get(3), { access: ['captioned', 'relaxed'], subtitleLanguage: null });
    assert.deepEqual(week.get(4), { access: ['parent-and-baby'], subtitleLanguage: null }, 'Parent & Baby');
    assert.deepEqual(week.get(5), { access: ['dementia-friendly'], subtitleLanguage: null });
    assert.deepEqual(week.get(6), { access: [], subtitleLanguage: null }, 'Live piano accompaniment and Members only say nothing of access');
    assert.deepEqual(week.get(10), { access: [], subtitleLanguage: null });
  });

  test('access=TERM keeps the sessions that have it; repeated, the sessions that have them all', async () => {
    for (const [query, ids] of [
      ['access=captioned', [1, 3]],
      ['access=captioned&access=relaxed', [3]],
      ['access=relaxed&access=captioned', [3]],
      ['access=audio-description', [1]],
      ['access=subtitled', [2]],
      ['access=parent-and-baby', [4]],
      ['access=dementia-friendly', [5]],
      ['access=parent-and-baby&access=dementia-friendly', []],
    ] as const) {
      assert.deepEqual([...(await sessions(`${WEEK}&${query}`)).keys()].sort((a, b) => a - b), ids, query);
    }
  });

  test('a term outside the vocabulary answers 400 naming the parameter, on every path of the programme', async () => {
    for (const path of ['/programme', '/programme.ics', '/programme.jsonld', '/whats-on']) {
      const response = await t.app.inject({ method: 'GET', url: `${path}?access=subtitles&key=${key}`, headers: { accept: 'application/json' } });
      assert.equal(response.statusCode, 400, path);
      assert.equal(
        (JSON.parse(response.body) as Json)['detail'],
        "The access parameter must be one of audio-description, captioned, subtitled, relaxed, parent-and-baby, dementia-friendly, got 'subtitles'.",
        path,
      );
    }
  });

  test('the calendar gives each event its terms as CATEGORIES, and the filter keeps its events', async () => {
    const calendar = await get(`/programme.ics?${WEEK}&access=captioned`);
    assert.equal(calendar.status, 200);
    const events = calendar.body.split('BEGIN:VEVENT').slice(1);
    assert.deepEqual(
      events.map((event) => [/UID:(\d+)\./.exec(event)?.[1], /CATEGORIES:(.*)\r\n/.exec(event)?.[1]]),
      [
        ['1', 'audio-description,captioned'],
        ['3', 'captioned,relaxed'],
      ],
    );
    const all = await get(`/programme.ics?${WEEK}`);
    assert.equal(all.body.match(/CATEGORIES:/g)?.length, 5, 'a session with no term has no CATEGORIES');
  });

  test('the JSON-LD gives each ScreeningEvent its subtitleLanguage and its terms as keywords', async () => {
    const linked = await get(`/programme.jsonld?${WEEK}&access=subtitled`);
    const events = (JSON.parse(linked.body) as { event: Json[] }).event;
    assert.equal(events.length, 1);
    assert.equal(events[0]?.['subtitleLanguage'], 'en');
    assert.deepEqual(events[0]?.['keywords'], ['subtitled']);
    const relaxed = (JSON.parse((await get(`/programme.jsonld?${WEEK}&access=relaxed`)).body) as { event: Json[] }).event;
    assert.deepEqual([relaxed[0]?.['keywords'], 'subtitleLanguage' in (relaxed[0] ?? {})], [['captioned', 'relaxed'], false], 'no subtitleLanguage when none is known');
  });

  test('the page says each time\'s terms in words, links to each term, and keeps only those screenings', async () => {
    const page = await get(`/whats-on?${WEEK}&access=captioned`);
    assert.equal(page.status, 200);
    assert.deepEqual(page.body.match(/<span class="access">[^<]*<\/span>/g), ['<span class="access">Audio described, captioned</span>', '<span class="access">Captioned, relaxed</span>']);
    const nav = /<ul class="access-list"[\s\S]*?<\/ul>/.exec(page.body)?.[0] ?? '';
    const links = [...nav.matchAll(/<a href="([^"]*)"( aria-current="page")?>([^<]*)<\/a>/g)].map(([, href = '', current, text]) => {
      const query = new URLSearchParams(href.replace(/&amp;/g, '&').split('?')[1]);
      return [text, current !== undefined, query.getAll('access'), query.get('from')];
    });
    assert.deepEqual(links, [
      ['Audio described', false, ['audio-description'], '2025-01-06'],
      ['Captioned', true, ['captioned'], '2025-01-06'],
      ['Subtitled', false, ['subtitled'], '2025-01-06'],
      ['Relaxed', false, ['relaxed'], '2025-01-06'],
      ['Parent and baby', false, ['parent-and-baby'], '2025-01-06'],
      ['Dementia friendly', false, ['dementia-friendly'], '2025-01-06'],
      ['All screenings', false, [], '2025-01-06'],
    ], 'a link per term, keeping the days, and one back to every screening');
    assert.match(page.body, /<a href="\/whats-on\?key=[^"]*&amp;from=2025-01-07&amp;days=1&amp;access=captioned&amp;sessions=all"/, 'the days keep the term');
  });
});

describe('GET /programme/coming-soon', () => {
  test('lists the films not on sale now that will be, by opening date then title, with their first session', async () => {
    const answer = await get('/programme/coming-soon');
    assert.equal(answer.status, 200);
    assert.equal(answer.headers['content-type'], 'application/json; charset=utf-8');
    const films = (JSON.parse(answer.body) as { films: Json[] }).films;
    assert.equal(answer.body, JSON.stringify({ films }), 'the text JSON.stringify writes');
    assert.deepEqual(
      films.map((film) => [film['id'], film['openingDate'], film['firstSession']]),
      [
        ['HO00000102', '2024-04-12', '2025-01-12T19:30:00+13:00'],
        ['NAF-0002', '2025-02-14', null],
        ['HO00000117', null, '2025-01-13T19:30:00+13:00'],
      ],
      'Metropolis by its Planned session, Hamlet by its opening date, Detour (no opening date) last; never Nosferatu, on sale, Sherlock Jr., on sale in a package, a Deleted film, or a Planned session past',
    );
    assert.deepEqual(Object.keys(films[0] ?? {}), [
      'kind', 'id', 'title', 'synopsis', 'genre', 'rating', 'runtimeMinutes', 'openingDate', 'poster', 'posterThumbnail', 'backdrop', 'trailer', 'images', 'people', 'firstSession',
    ]);

    const page = await get('/whats-on');
    const section = /<section class="coming-soon"[\s\S]*<\/section>/.exec(page.body)?.[0] ?? '';
    assert.ok(page.body.indexOf('<section class="coming-soon"') > page.body.lastIndexOf('<article class="feature">'), 'after the week');
    assert.deepEqual([...section.matchAll(/<h3>([^<]*)<\/h3>/g)].map(([, title]) => title), ['Metropolis', 'Hamlet — A Staged Reading', 'Detour']);
    assert.match(section, /Opens Friday 14 February\./);
    assert.match(section, /First session Sunday 12 January, <time datetime="2025-01-12T19:30:00\+13:00">19:30<\/time>\./);
  });

  test('follows the clock: a film leaves when its last session to come starts, and one comes when its last session on sale passes', async () => {
    const before = await get('/programme/coming-soon');
    now = SUNDAY_EVENING;
    try {
      const after = await get('/programme/coming-soon');
      assert.notEqual(after.headers['etag'], before.headers['etag']);
      assert.deepEqual(
        (JSON.parse(after.body) as { films: Json[] }).films.map((film) => [film['title'], film['firstSession']]),
        [
          ['Sherlock Jr.', '2025-01-14T19:30:00+13:00'],
          ['Hamlet — A Staged Reading', null],
          ['Detour', '2025-01-13T19:30:00+13:00'],
        ],
      );
    } finally {
      now = MONDAY;
    }
  });

  test('is read with the programme\'s keys and tokens, and refused without one', async () => {
    const bare = await t.app.inject({ method: 'GET', url: '/programme/coming-soon' });
    assert.equal(bare.statusCode, 401);
    const head = await t.app.inject({ method: 'HEAD', url: `/programme/coming-soon?key=${key}` });
    assert.equal(head.statusCode, 200);
    assert.equal(head.headers['cache-control'], 'public, max-age=60');
    const post = await t.app.inject({ method: 'POST', url: `/programme/coming-soon?key=${key}` });
    assert.equal(post.statusCode, 405);
  });
});

describe('/openapi.json', () => {
  test('describes /programme/coming-soon with its schema and keys, and the access filter and fields of the programme', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json<{ paths: Record<string, Record<string, Json>>; components: { schemas: Record<string, Json> } }>();
    const coming = doc.paths['/programme/coming-soon']?.['get'] as Json;
    assert.equal(coming['operationId'], 'getComingSoon');
    assert.deepEqual(coming['security'], [{ ProgrammeKey: [] }, { VeeziAccessToken: [] }, { BearerToken: [] }]);
    const ok = (coming['responses'] as Record<string, Json>)['200'] as { content: Record<string, { schema: Json }> };
    assert.deepEqual(ok.content['application/json']?.schema, { $ref: '#/components/schemas/ComingSoon' });
    assert.deepEqual(Object.keys((doc.components.schemas['ComingFilm'] as { properties: Json }).properties).slice(-2), ['people', 'firstSession']);
    const access = ((doc.paths['/programme']?.['get'] as { parameters: Json[] }).parameters.find((parameter) => parameter['name'] === 'access') as { schema: { items: Json } }).schema;
    assert.deepEqual(access.items['enum'], ['audio-description', 'captioned', 'subtitled', 'relaxed', 'parent-and-baby', 'dementia-friendly']);
    const session = (doc.components.schemas['ProgrammeSession'] as { properties: Json }).properties;
    assert.ok('access' in session && 'subtitleLanguage' in session);
  });
});
