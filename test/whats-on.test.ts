/**
 * The programme's page (`/whats-on`) through HTTP: what it shows and links to, what it escapes, its
 * content security policy and framing, the embedded form, its caching and its files. What a
 * visitor sees in a browser is tested in whats-on-browser.test.ts.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { issueToken, type TokenTerms } from '../src/access/manage-tokens.js';
import { appWithSessions, DEMO_FILES, demoRecords, laterBy, nonEmpty, sessionStarting, startTestApp, tempDir, type TestApp, type TestAppOptions } from './helpers.js';

type Json = Record<string, unknown>;

/** 10:00 on Friday 27 November 2026 in Wellington. */
const FRIDAY_MORNING = Date.parse('2026-11-26T21:00:00Z');
const TIMEOUT = { timeout: 60_000 };

/** The sessions of the page's week: on sale, after midnight, sold out, few left, a package, and some not on sale. */
const WEEK = [
  sessionStarting(1, '2026-11-27T19:30:00', { Attributes: ['0000000001'] }),
  sessionStarting(2, '2026-11-28T00:30:00'),
  sessionStarting(3, '2026-11-28T14:00:00', { TicketsSoldOut: true }),
  sessionStarting(4, '2026-11-29T18:00:00', { FilmId: 'HO00000102', Title: 'Metropolis', FewTicketsLeft: true, FilmFormat: '3D Digital', Attributes: ['0000000002', '0000000001'] }),
  sessionStarting(5, '2026-11-30T17:30:00', { FilmId: null, FilmPackageId: 1, Title: 'Silent Comedy Double' }),
  sessionStarting(6, '2026-12-01T20:00:00', { Status: 'Planned' }),
  sessionStarting(7, '2026-11-27T09:00:00'),
  sessionStarting(8, '2026-12-04T19:30:00'),
];

/** What Chromium and Firefox send for a page. */
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

const get = (t: TestApp, url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });

async function page(t: TestApp, url: string, headers: Record<string, string> = {}): Promise<string> {
  const response = await get(t, url, headers);
  assert.equal(response.statusCode, 200, `${url}: ${response.body.slice(0, 300)}`);
  assert.equal(response.headers['content-type'], 'text/html; charset=utf-8');
  return response.body;
}

/** Each element `<tag …>…</tag>` of `html` whose opening tag holds `marker`, as written. */
function elements(html: string, tag: string, marker = ''): string[] {
  return [...html.matchAll(new RegExp(`<${tag}\\b[^>]*${marker}[^>]*>[\\s\\S]*?</${tag}>`, 'g'))].map((match) => match[0]);
}

/** The text of some HTML, tags removed and the page's few entities read. */
function text(html: string): string {
  return html
    .replace(/<[^>]+>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

/** The film or package whose heading reads `title`. */
function feature(html: string, title: string): string {
  const found = elements(html, 'article').find((article) => text(elements(article, 'h2')[0] ?? '') === title);
  assert.ok(found, `the page shows ${title}`);
  return found;
}

/** Each cinema day of a feature: its heading, and what each of its sessions reads. */
function days(article: string): [string, string[]][] {
  return [...article.matchAll(/<h3>(.*?)<\/h3><ul class="sessions">(.*?)<\/ul>/g)].map((match) => [text(match[1] ?? ''), elements(match[2] ?? '', 'li').map(text)]);
}

function hrefs(html: string): string[] {
  return [...html.matchAll(/href="([^"]*)"/g)].map((match) => text(match[1] ?? ''));
}

/** The directives of a content security policy, by name. */
function directives(policy: unknown): Map<string, string> {
  return new Map(String(policy).split(/;\s*/).map((directive) => [directive.split(' ')[0] ?? '', directive.split(' ').slice(1).join(' ')]));
}

async function closed(t: TestApp, terms: Partial<TokenTerms> = {}): Promise<string> {
  await issueToken(t.db, { customer: 'default', label: 'closes the service' });
  const { token } = await issueToken(t.db, { customer: 'default', label: 'page', kind: 'publishable', ...terms });
  await t.tokens.refresh();
  return token;
}

/** An app holding the demo catalogue with `films` added and `sessions` in place of the demo's. */
async function appWith(films: readonly Json[], sessions: readonly Json[], options: TestAppOptions = {}): Promise<TestApp> {
  const dir = await tempDir();
  const files = { films: join(dir, 'more-films.json'), sessions: join(dir, 'sessions.json') };
  await writeFile(files.films, JSON.stringify(films));
  await writeFile(files.sessions, JSON.stringify(sessions));
  return startTestApp([...DEMO_FILES.filter((file) => !file.endsWith('sessions.json')), files.films, files.sessions], options);
}

describe('GET /whats-on', () => {
  test('shows the week: the cinema, each film and package with its details, its sessions under their cinema days at the cinema\'s own times', TIMEOUT, async () => {
    const t = await appWithSessions(WEEK, { now: () => FRIDAY_MORNING });
    const html = await page(t, '/whats-on');
    assert.match(html, /^<!doctype html>\n<html lang="en" dir="ltr" class="page">/);
    assert.equal(text(elements(html, 'title')[0] ?? ''), 'What’s on at Marquee Picture House');
    assert.match(html, /<meta name="description" content="Films and session times at Marquee Picture House, 12 Cuba Street, Te Aro, Wellington 6011: Friday 27 November to Thursday 3 December.">/);
    assert.deepEqual(elements(html, 'h1').map(text), ['What’s on at Marquee Picture House'], 'one heading names the cinema');
    const header = elements(html, 'header')[0] ?? '';
    assert.match(text(header), /12 Cuba Street, Te Aro, Wellington 6011/);
    assert.ok(hrefs(header).includes('tel:+6445550100'));
    assert.deepEqual(['header', 'nav', 'main', 'footer'].map((tag) => elements(html, tag).length), [1, 1, 1, 1], 'landmarks');
    assert.match(text(elements(html, 'nav')[0] ?? ''), /^Today 27 NovSat 28 NovSun 29 NovMon 30 NovTue 1 DecWed 2 DecThu 3 DecAll week/);

    assert.deepEqual(elements(html, 'h2').map(text), ['Nosferatu', 'Metropolis', 'Silent Comedy Double: Sherlock Jr. & Safety Last!'], 'by first session');
    const nosferatu = feature(html, 'Nosferatu');
    assert.deepEqual(days(nosferatu), [
      ['Today, Friday 27 November', ['Nosferatu, Friday 27 November, 19:30 The Grand SUBSEnglish subtitles English subtitles', 'Nosferatu, Friday 27 November, 00:30 The Grand']],
      ['Tomorrow, Saturday 28 November', ['14:00 The Grand Sold out']],
    ]);
    assert.match(html, /A time after midnight is listed under the evening before\./);
    assert.match(nosferatu, /<a class="session" href="https:\/\/tickets\.example\/1"><span class="visually-hidden">Nosferatu, Friday 27 November, <\/span><time datetime="2026-11-27T19:30:00\+13:00">19:30<\/time>/);
    assert.ok(hrefs(nosferatu).includes('https://tickets.example/2'));
    assert.ok(!hrefs(html).includes('https://tickets.example/3'), 'a sold-out session is shown, not linked');
    assert.match(text(nosferatu), /Rated M1 hr 34 minHorror/);
    assert.match(text(nosferatu), /An estate agent travels to the Carpathians/);
    assert.match(text(nosferatu), /Directed by F\. W\. Murnau\. With Max Schreck, Gustav von Wangenheim and Greta Schröder\./);
    const nosferatuPoster = `images/${Buffer.from('https://images.marquee.example/posters/nosferatu-1922.jpg').toString('base64url')}/`;
    assert.match(nosferatu, /<img class="poster" src="([\w/-]+)\/320\/[\w-]+" srcset="\1\/160\/[\w-]+ 160w, [^"]+ 1280w" sizes="\(min-width: 40rem\) 8rem, 5rem" alt="" width="120" height="180" fetchpriority="high" decoding="async">/);
    assert.ok(nosferatu.includes(`src="${nosferatuPoster}320/`), 'its poster, resized');
    assert.ok(hrefs(nosferatu).includes('https://media.marquee.example/trailers/nosferatu-1922.mp4'));

    const metropolis = feature(html, 'Metropolis');
    assert.deepEqual(days(metropolis), [['Sunday 29 November', ['Metropolis, Sunday 29 November, 18:00 The Grand 3D PIANOLive piano accompaniment SUBSEnglish subtitles English subtitles Few tickets left']]]);
    const style = elements(html, 'style')[0] ?? '';
    assert.equal(style, '<style>.badge-0{color:#FFFFFF;background:#1F4E79}.badge-1{color:#000000;background:#f2c14e}</style>', 'the badges\' colours');
    assert.match(metropolis, /<span class="badge badge-1" title="Live piano accompaniment">.*<span class="badge badge-0" title="English subtitles">/);

    const double = feature(html, 'Silent Comedy Double: Sherlock Jr. & Safety Last!');
    assert.match(text(double), /1 hr 58 min.*A double bill: Sherlock Jr\. and Safety Last!\./);
    assert.ok(double.includes(`<img class="poster" src="images/${Buffer.from('https://images.marquee.example/posters/sherlock-jr-1924.jpg').toString('base64url')}/320/`), 'its first film\'s poster');

    // Past its cut-off (7), planned (6) and next week (8): not on the page of what is on sale.
    for (const id of [6, 7, 8]) assert.ok(!html.includes(`tickets.example/${id}"`), `session ${id}`);
    const all = await page(t, '/whats-on?sessions=all');
    assert.deepEqual(days(feature(all, 'Nosferatu')).map(([day, sessions]) => [day, sessions.map((session) => session.replace(/^.*?, \w+ \d+ \w+, /, ''))]), [
      ['Today, Friday 27 November', ['09:00 The Grand Not on sale online', '19:30 The Grand SUBSEnglish subtitles English subtitles', '00:30 The Grand']],
      ['Tomorrow, Saturday 28 November', ['14:00 The Grand Sold out']],
      ['Tuesday 1 December', ['20:00 The Grand Not yet on sale']],
    ]);
  });

  test('times are the cinema\'s wall clock, each with its own offset, across a daylight-saving change', TIMEOUT, async () => {
    // New Zealand's clocks go back an hour at 03:00 on Sunday 5 April 2026.
    const starts = ['2026-04-03T19:30:00', '2026-04-04T19:30:00', '2026-04-05T19:30:00', '2026-04-06T01:00:00'];
    const t = await appWithSessions(starts.map((start, index) => sessionStarting(index + 1, start)), { now: () => Date.parse('2026-04-02T21:00:00Z') });
    const html = await page(t, '/whats-on');
    assert.deepEqual(days(feature(html, 'Nosferatu')).map(([day, sessions]) => [day, sessions.map((session) => session.replace(/^Nosferatu, \w+ \d+ \w+, /, ''))]), [
      ['Today, Friday 3 April', ['19:30 The Grand']],
      ['Tomorrow, Saturday 4 April', ['19:30 The Grand']],
      ['Sunday 5 April', ['19:30 The Grand', '01:00 The Grand']],
    ]);
    const datetimes = [...html.matchAll(/<time datetime="([^"]+)">/g)].map((match) => match[1]);
    assert.deepEqual(datetimes, ['2026-04-03T19:30:00+13:00', '2026-04-04T19:30:00+13:00', '2026-04-05T19:30:00+12:00', '2026-04-06T01:00:00+12:00']);
    assert.match(html, /Times are the cinema’s local times, in New Zealand \(Pacific\/Auckland\)\./);
  });

  test('escapes what the catalogue holds: a title holding <script> shows as text, in the page and in its JSON-LD', TIMEOUT, async () => {
    const [nosferatu = {}] = await demoRecords('films');
    const hostile = '</script><script>alert("title")</script> & <b>bold</b>';
    const film = {
      ...nosferatu,
      Id: 'HOSTILE',
      Title: hostile,
      Synopsis: '<img src=x onerror=alert(1)>',
      Genre: '"><script>alert(2)</script>',
      Rating: "R18' onmouseover='alert(3)",
      People: [{ Id: 'P1', FirstName: '<i>', LastName: 'Evil', Role: 'Director' }],
    };
    const t = await appWith([film], [sessionStarting(1, '2026-11-27T19:30:00', { FilmId: 'HOSTILE', Title: hostile, Url: 'https://tickets.example/1?a="b"&c=<d>' })], { now: () => FRIDAY_MORNING });
    const html = await page(t, '/whats-on');
    const scripts = [...html.matchAll(/<script[^>]*>/g)].map((match) => match[0]);
    assert.deepEqual(scripts, ['<script type="application/ld+json">'], 'no script but the JSON-LD data block');
    assert.equal([...html.matchAll(/<img /g)].length, 1, 'the poster alone');
    assert.doesNotMatch(html, /<[^>]*\son\w+=|<b>|<i>/, 'no markup of the catalogue\'s');
    assert.equal(text(elements(html, 'h2')[0] ?? ''), hostile, 'the title reads as it was written');
    assert.equal(text(elements(await page(t, '/whats-on?film=HOSTILE'), 'title')[0] ?? ''), `${hostile} at Marquee Picture House`);
    assert.match(html, /<p>&lt;img src=x onerror=alert\(1\)&gt;<\/p>/);
    assert.ok(hrefs(html).includes('https://tickets.example/1?a="b"&c=<d>'), 'the booking link, escaped in its attribute');
    const block = /<script type="application\/ld\+json">(.*?)<\/script>/s.exec(html)?.[1] ?? '';
    assert.ok(!block.includes('<'), 'no < in the data block, which could end it');
    const linked = JSON.parse(block) as { event: { name: string }[] };
    assert.equal(linked.event[0]?.name, hostile);
  });

  test('holds the JSON-LD of /programme.jsonld for the same sessions, a canonical address, and a title naming the film it is narrowed to', TIMEOUT, async () => {
    const t = await appWithSessions(WEEK, { now: () => FRIDAY_MORNING });
    const key = await closed(t);
    for (const query of ['', '&from=2026-11-28&days=3', '&film=HO00000102', '&screen=1&sessions=all']) {
      const html = await page(t, `/whats-on?key=${key}${query}`);
      const block = /<script type="application\/ld\+json">(.*?)<\/script>/s.exec(html)?.[1] ?? '';
      assert.deepEqual(JSON.parse(block), (await get(t, `/programme.jsonld?key=${key}${query}`)).json(), query);
      assert.match(html, new RegExp(`<link rel="canonical" href="http://localhost:80/whats-on\\?key=${key}${query.replace(/[?&]/g, '&amp;')}">`), query);
    }
    const metropolis = await page(t, `/whats-on?key=${key}&film=HO00000102`);
    assert.equal(text(elements(metropolis, 'title')[0] ?? ''), 'Metropolis at Marquee Picture House');
    const framed = await page(t, `/whats-on?key=${key}&embed=1&days=3`);
    assert.match(framed, new RegExp(`<link rel="canonical" href="http://localhost:80/whats-on\\?key=${key}&amp;days=3">`), 'the framed page names the whole page');
    // Behind a trusted proxy, its scheme is the page's, if it is one of the web's.
    const proxied = await appWithSessions(WEEK, { now: () => FRIDAY_MORNING, trustedProxies: ['127.0.0.1'] });
    const proxiedKey = await closed(proxied);
    for (const [proto, scheme] of [['https', 'https'], ['javascript', 'http']] as const) {
      const html = await page(proxied, `/whats-on?key=${proxiedKey}`, { 'x-forwarded-proto': proto });
      assert.match(html, new RegExp(`<link rel="canonical" href="${scheme}://localhost:80/whats-on\\?key=${proxiedKey}">`), proto);
    }
  });

  test('days and weeks are plain links keeping the key and the filters; film= narrows the page to one film', TIMEOUT, async () => {
    const t = await appWithSessions(WEEK, { now: () => FRIDAY_MORNING });
    const key = await closed(t);
    const html = await page(t, `/whats-on?key=${key}&screen=1&attribute=0000000001`);
    const nav = elements(html, 'nav')[0] ?? '';
    assert.deepEqual(hrefs(nav), [
      ...['2026-11-27', '2026-11-28', '2026-11-29', '2026-11-30', '2026-12-01', '2026-12-02', '2026-12-03'].map((day) => `/whats-on?key=${key}&from=${day}&days=1&screen=1&attribute=0000000001`),
      `/whats-on?key=${key}&screen=1&attribute=0000000001`,
      `/whats-on?key=${key}&from=2026-12-04&screen=1&attribute=0000000001`,
    ]);
    assert.match(nav, /<a href="[^"]+screen=1&amp;attribute=0000000001" aria-current="page">All week/, 'the week shown is the current page');
    assert.deepEqual(elements(html, 'h2').map(text), ['Nosferatu', 'Metropolis'], 'the screen and attribute filters hold');
    assert.ok(hrefs(html).includes(`/whats-on?key=${key}&film=HO00000101&screen=1&attribute=0000000001`), 'a film\'s title links to its page');
    assert.deepEqual(hrefs(elements(html, 'footer')[0] ?? ''), [`webcal://localhost:80/programme.ics?key=${key}&screen=1&attribute=0000000001`], 'the same sessions as a calendar');

    const saturday = await page(t, `/whats-on?key=${key}&from=2026-11-28&days=1`);
    assert.equal(text(/<p class="window">(.*?)<\/p>/.exec(saturday)?.[1] ?? ''), 'Saturday 28 November');
    assert.match(elements(saturday, 'nav')[0] ?? '', /<a href="[^"]+from=2026-11-28&amp;days=1" aria-current="page"><span>Sat<\/span>/);
    assert.deepEqual(elements(saturday, 'h2').map(text), ['Nosferatu']);

    const nextWeek = await page(t, `/whats-on?key=${key}&from=2026-12-04`);
    assert.deepEqual(hrefs(elements(nextWeek, 'nav')[0] ?? '').slice(-3), [`/whats-on?key=${key}`, `/whats-on?key=${key}&from=2026-12-04`, `/whats-on?key=${key}&from=2026-12-11`], 'the weeks either side');
    assert.match(text(elements(nextWeek, 'nav')[0] ?? ''), /^Fri 4 Dec/);

    const film = await page(t, `/whats-on?key=${key}&film=HO00000106`);
    assert.deepEqual(elements(film, 'h2').map(text), ['Silent Comedy Double: Sherlock Jr. & Safety Last!'], 'a film\'s page shows the packages that show it');
    assert.ok(hrefs(film).includes(`/whats-on?key=${key}`), 'and links back to every film');
    assert.ok(nonEmpty(hrefs(elements(film, 'nav')[0] ?? ''), 'link among the film\'s days').every((href) => href.includes('film=HO00000106')), 'its days keep to the film');
    assert.match(await page(t, `/whats-on?key=${key}&film=HO00000110`), /<p class="empty">No session of this film is on sale on these days\.<\/p>/);
    assert.match(await page(t, `/whats-on?key=${key}&from=2027-01-01`), /<p class="empty">No session is on sale on these days\.<\/p>/);
  });

  test('embed=1 answers the programme alone for a frame, with the script that tells the frame its height; links out open in the framing window', TIMEOUT, async () => {
    const t = await appWithSessions(WEEK, { now: () => FRIDAY_MORNING });
    const key = await closed(t);
    const framed = await page(t, `/whats-on?key=${key}&embed=1`);
    assert.deepEqual(['header', 'footer', 'nav', 'main'].map((tag) => elements(framed, tag).length), [0, 0, 1, 1]);
    assert.deepEqual(elements(framed, 'h1'), ['<h1 class="visually-hidden">What’s on at Marquee Picture House</h1>'], 'a heading for screen readers alone');
    assert.match(framed, /<html lang="en" dir="ltr" class="embed">/);
    assert.deepEqual([...framed.matchAll(/<script[^>]*>/g)].map((match) => match[0]), [`<script src="/whats-on/embed.js?v=${/embed\.js\?v=([\w-]+)/.exec(framed)?.[1]}" defer>`]);
    assert.ok(nonEmpty(hrefs(elements(framed, 'nav')[0] ?? ''), 'link among the framed days').every((href) => href.startsWith(`/whats-on?key=${key}&`) && href.endsWith('&embed=1')), 'its days stay framed');
    assert.match(framed, /<a class="session" href="https:\/\/tickets\.example\/1" target="_top">/);
    assert.match(framed, /<a href="https:\/\/media\.marquee\.example\/trailers\/nosferatu-1922\.mp4" target="_top">/);
    const whole = await page(t, `/whats-on?key=${key}&embed=0`);
    assert.equal(whole, await page(t, `/whats-on?key=${key}`), 'embed=0 is the whole page');
    assert.ok(!whole.includes('target='), 'the whole page opens links in place');
  });

  test('loads nothing but its own files and the posters, and may be framed by its key\'s origins alone', TIMEOUT, async () => {
    const t = await appWithSessions(WEEK, { now: () => FRIDAY_MORNING });
    const open = await get(t, '/whats-on');
    const policy = directives(open.headers['content-security-policy']);
    const badges = /<style>(.*?)<\/style>/.exec(open.body)?.[1] ?? '';
    assert.deepEqual([...policy.keys()], ['default-src', 'style-src', 'img-src', 'connect-src', 'base-uri', 'form-action', 'frame-ancestors']);
    assert.equal(policy.get('default-src'), "'none'");
    assert.equal(policy.get('style-src'), `'self' 'sha256-${createHash('sha256').update(badges).digest('base64')}'`, 'the stylesheet, and the badges\' by their digest');
    assert.equal(policy.get('img-src'), "'self'", 'the posters, which Marquee serves');
    assert.equal(policy.get('connect-src'), "'self'", 'a crawler\'s script may read /robots.txt');
    assert.deepEqual([policy.get('base-uri'), policy.get('form-action')], ["'none'", "'none'"]);
    assert.equal(policy.get('frame-ancestors'), '*', 'while the service is open, any site may frame it');
    assert.doesNotMatch(String(open.headers['content-security-policy']), /unsafe/);
    assert.equal(open.headers['referrer-policy'], 'strict-origin-when-cross-origin', 'the key in its address goes to no other site');
    const loaded = [...open.body.matchAll(/<link rel="(?:stylesheet|icon)" href="([^"]+)"| src="([^"]+)"/g)].map((match) => match[1] ?? match[2] ?? '');
    assert.deepEqual(loaded.map((url) => url.replace(/\?v=[\w-]+$/, '?v=').replace(/^images\/.+$/, 'images/')), ['/whats-on/page.css?v=', '/whats-on/icon.svg?v=', 'images/', 'images/', 'images/'], 'its stylesheet, its icon and the posters');
    assert.equal((await get(t, loaded[0] ?? '')).statusCode, 200);

    const locked = await closed(t, { origins: ['https://cinema.example', 'http://localhost:3000'] });
    const anywhere = (await issueToken(t.db, { customer: 'default', label: 'any', kind: 'publishable' })).token;
    await t.tokens.refresh();
    const framed = await get(t, `/whats-on?key=${locked}&embed=1`);
    assert.equal(directives(framed.headers['content-security-policy']).get('frame-ancestors'), 'https://cinema.example http://localhost:3000');
    assert.equal(directives(framed.headers['content-security-policy']).get('script-src'), "'self'", 'the framed page runs its one script');
    assert.equal(directives((await get(t, `/whats-on?key=${anywhere}`)).headers['content-security-policy']).get('frame-ancestors'), '*');
    assert.equal((await get(t, `/whats-on?key=${locked}`, { origin: 'https://elsewhere.example' })).statusCode, 403, 'another origin\'s page cannot fetch it');
    assert.equal((await get(t, '/whats-on')).statusCode, 401, 'once closed, it needs a key');
    const unknown = await get(t, '/whats-on?key=mq_pub_nothing&embed=1', { accept: BROWSER_ACCEPT });
    assert.equal(unknown.statusCode, 401);
    assert.equal(unknown.headers['content-type'], 'text/html; charset=utf-8', 'a frame whose key is refused shows why');
    assert.equal(text(elements(unknown.body, 'p', 'class="lead"')[0] ?? ''), 'The key is not known.');
    assert.equal(directives(unknown.headers['content-security-policy']).get('frame-ancestors'), '*');
  });

  test('is answered from what the catalogue prepared: an ETag, 304, compression, the key\'s caching; it follows the clock', TIMEOUT, async () => {
    let now = FRIDAY_MORNING;
    const t = await appWithSessions(WEEK, { now: () => now });
    const key = await closed(t);
    const first = await get(t, `/whats-on?key=${key}`);
    assert.equal(first.headers['cache-control'], 'public, max-age=60');
    const etag = String(first.headers['etag']);
    assert.equal((await get(t, `/whats-on?key=${key}`, { 'if-none-match': etag })).statusCode, 304);
    const gzip = await get(t, `/whats-on?key=${key}`, { 'accept-encoding': 'gzip' });
    assert.equal(gzip.headers['content-encoding'], 'gzip');
    assert.equal(gunzipSync(gzip.rawPayload).toString('utf8'), first.body);
    const other = await closed(t);
    const theirs = await get(t, `/whats-on?key=${other}`);
    assert.notEqual(theirs.headers['etag'], etag, 'a page carries its own key in its links');
    assert.equal(theirs.body, first.body.replaceAll(key, other));

    // 20:05: the 19:30 session's cut-off (20:00) has passed.
    now = Date.parse('2026-11-27T07:05:00Z');
    const evening = await get(t, `/whats-on?key=${key}`);
    assert.notEqual(evening.headers['etag'], etag);
    assert.ok(!hrefs(evening.body).includes('https://tickets.example/1'));
    assert.ok(hrefs(evening.body).includes('https://tickets.example/2'));
    // 03:00 on Saturday: another cinema day, and its week.
    now = Date.parse('2026-11-27T14:00:00Z');
    const saturday = await get(t, `/whats-on?key=${key}`);
    assert.match(saturday.body, /<p class="window">Saturday 28 November to Friday 4 December<\/p>/);
    assert.match(elements(saturday.body, 'nav')[0] ?? '', /<span>Today<\/span> <span>28 Nov<\/span>/);
  });

  test('a bad filter, or embed, answers 400 naming it: as a page to a browser, as a problem to a program asking for JSON', TIMEOUT, async () => {
    const t = await appWithSessions(WEEK, { now: () => FRIDAY_MORNING });
    for (const [query, detail] of [
      ['days=0', "The days parameter must be a whole number of days from 1 to 62, got '0'."],
      ['embed=yes', "The embed parameter must be 1 (framed) or 0, got 'yes'."],
      ['embed=1&embed=1', 'The embed parameter must be given once.'],
    ]) {
      const response = await get(t, `/whats-on?${query}`, { accept: 'application/json' });
      assert.equal(response.statusCode, 400, query);
      assert.equal(response.json<Json>()['detail'], detail);
      const shown = await get(t, `/whats-on?${query}`, { accept: BROWSER_ACCEPT });
      assert.equal(shown.statusCode, 400, query);
      assert.equal(shown.headers['content-type'], 'text/html; charset=utf-8');
      assert.equal(text(elements(shown.body, 'p', 'class="lead"')[0] ?? ''), detail);
    }
    const page = await get(t, '/whats-on?from=<script>alert(1)</script>', { accept: BROWSER_ACCEPT });
    assert.equal(page.statusCode, 400);
    assert.match(page.body, /<html lang="en" dir="ltr"/);
    assert.match(page.body, /<title>Bad Request<\/title>/);
    assert.match(page.body, /<meta name="robots" content="noindex">/);
    assert.doesNotMatch(page.body, /<script/, 'what the link held is shown as text');
    assert.match(page.body, /got &#39;&lt;script&gt;alert\(1\)&lt;\/script&gt;&#39;/);
    const policy = directives(page.headers['content-security-policy']);
    assert.equal(policy.get('default-src'), "'none'");
    assert.equal(policy.get('style-src'), "'self'", 'its only file is the page stylesheet');
    assert.equal((await get(t, '/whats-on?days=0&format=xml', { accept: BROWSER_ACCEPT })).headers['content-type'], 'application/problem+xml; charset=utf-8');
    assert.equal((await get(t, '/programme?days=0', { accept: BROWSER_ACCEPT })).headers['content-type'], 'application/problem+xml; charset=utf-8', 'the API answers problems as it did');
    assert.equal((await get(t, '/whats-on?colour=blue')).statusCode, 200, 'unknown parameters are ignored');
    assert.equal((await t.app.inject({ method: 'POST', url: '/whats-on' })).statusCode, 405);
  });

  test('its files need no key: the stylesheet and the scripts, kept a year when asked for with their version', TIMEOUT, async () => {
    const t = await appWithSessions(WEEK, { now: () => FRIDAY_MORNING });
    await closed(t);
    const html = await page(t, `/whats-on?key=${await closed(t)}&embed=1`);
    const stylesheet = /href="(\/whats-on\/page\.css\?v=[\w-]+)"/.exec(html)?.[1] ?? '';
    const script = /src="(\/whats-on\/embed\.js\?v=[\w-]+)"/.exec(html)?.[1] ?? '';
    for (const [url, type] of [[stylesheet, 'text/css; charset=utf-8'], [script, 'text/javascript; charset=utf-8'], ['/whats-on/frame.js', 'text/javascript; charset=utf-8']] as const) {
      const response = await get(t, url);
      assert.equal(response.statusCode, 200, url);
      assert.equal(response.headers['content-type'], type);
      assert.equal(response.headers['cache-control'], url.includes('?v=') ? 'public, max-age=31536000, immutable' : 'no-cache', url);
      assert.equal((await get(t, url, { 'if-none-match': String(response.headers['etag']) })).statusCode, 304);
      const path = url.split('?')[0] ?? '';
      assert.equal((await get(t, `${path}?v=old`)).headers['cache-control'], 'no-cache', `${path}: an old version is checked again`);
    }
    const css = await get(t, stylesheet, { 'accept-encoding': 'br' });
    assert.equal(css.headers['content-encoding'], 'br');
    assert.match(brotliDecompressSync(css.rawPayload).toString('utf8'), /prefers-color-scheme: dark/);
  });

  test('40 films and 300 sessions make a page under 100 KB compressed', { timeout: 120_000 }, async (context) => {
    const films = (await demoRecords('films')).slice(0, 8);
    const forty = Array.from({ length: 40 }, (_, index) => ({ ...films[index % films.length], Id: `WEEK${String(index).padStart(3, '0')}`, Title: `${String(films[index % films.length]?.['Title'])} ${index}` }));
    const sessions = Array.from({ length: 300 }, (_, index) =>
      sessionStarting(index + 1, laterBy('2026-11-27T11:00:00', Math.floor(index / 43) * 24 * 60 + (index % 43) * 17), {
        FilmId: `WEEK${String(index % 40).padStart(3, '0')}`,
        Title: 'A film',
        ScreenId: (index % 3) + 1,
        Attributes: index % 4 === 0 ? ['0000000001'] : [],
        FewTicketsLeft: index % 11 === 0,
      }),
    );
    const t = await appWith(forty, sessions, { now: () => FRIDAY_MORNING });
    const html = await page(t, '/whats-on');
    assert.equal(elements(html, 'article').length, 40);
    assert.equal([...html.matchAll(/<time /g)].length, 300);
    const sizes: Record<string, number> = {};
    for (const coding of ['br', 'gzip']) {
      // Written for this request, the page is compressed before it is sent, even the first time.
      const compressed = await get(t, '/whats-on', { 'accept-encoding': coding });
      assert.equal(compressed.headers['content-encoding'], coding);
      sizes[coding] = compressed.rawPayload.length;
      assert.ok((sizes[coding] ?? Infinity) < 100 * 1024, `${coding}: ${sizes[coding]} bytes`);
    }
    context.diagnostic(`40 films, 300 sessions: ${html.length} bytes of HTML, ${sizes['br']} br, ${sizes['gzip']} gzip`);
  });
});
