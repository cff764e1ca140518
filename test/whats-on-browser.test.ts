/**
 * The programme's page in headless Chromium (Debian's, as the /docs test uses), as a visitor in
 * another zone sees it: a week across New Zealand's daylight-saving change, read with and without
 * JavaScript, checked by axe-core in light and dark, at a phone's width and a desktop's, and
 * framed by a cinema's page with the one line the README gives.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { before, describe, test } from 'node:test';
import type { Browser, Frame, Page } from 'puppeteer-core';
import { issueToken } from '../src/access/manage-tokens.js';
import { appWithSessions, atEnd, sessionStarting } from './helpers.js';
import { launchChromium, NO_CHROMIUM } from '../scripts/chromium.js';

/** Every wait in the browser; a test's steps together stay well under its timeout. */
const STEP_MS = 20_000;
const TIMEOUT = { timeout: 120_000 };
/** The zone of the visitor, far from the cinema's. */
const VISITOR_ZONE = 'America/New_York';

/** 10:00 on Friday 3 April 2026 in Wellington; New Zealand's clocks go back an hour at 03:00 on Sunday. */
const NOW = Date.parse('2026-04-02T21:00:00Z');
const SESSIONS = [
  sessionStarting(1, '2026-04-03T19:30:00', { Attributes: ['0000000001'] }),
  sessionStarting(2, '2026-04-04T19:30:00', { TicketsSoldOut: true }),
  sessionStarting(3, '2026-04-05T19:30:00', { FewTicketsLeft: true }),
  sessionStarting(4, '2026-04-06T00:30:00'),
  sessionStarting(5, '2026-04-05T14:00:00', { FilmId: 'HO00000102', Title: 'Metropolis', Attributes: ['0000000002'] }),
  sessionStarting(6, '2026-04-06T17:30:00', { FilmId: null, FilmPackageId: 1, Title: 'Silent Comedy Double' }),
];

/** What a visitor sees of a session: its time, where it leads, its marks and badges. */
interface SeenSession {
  readonly time: string;
  readonly href: string | null;
  readonly marks: string[];
  readonly badges: string[];
}

/** What a visitor sees of the page: films with their days and sessions, and the days to choose. */
interface Seen {
  readonly heading: string;
  readonly days: string[];
  readonly films: { readonly title: string; readonly days: { readonly day: string; readonly sessions: SeenSession[] }[] }[];
}

/** What the page shows, read from the rendered document; as text, since this project is compiled without the DOM's types. */
const SEEN = `(() => ({
  heading: document.querySelector('h1').innerText.replace(/\\s+/g, ' '),
  days: [...document.querySelectorAll('nav .day-list a')].map((a) => a.innerText.replace(/\\s+/g, ' ')),
  films: [...document.querySelectorAll('article')].map((article) => ({
    title: article.querySelector('h2').innerText,
    days: [...article.querySelectorAll('h3')].map((h3) => ({
      day: h3.innerText,
      sessions: [...h3.nextElementSibling.querySelectorAll('li')].map((li) => ({
        time: li.querySelector('time').innerText,
        href: li.querySelector('a') && li.querySelector('a').href,
        marks: [...li.querySelectorAll('.mark')].map((mark) => mark.innerText),
        badges: [...li.querySelectorAll('.badge')].map((badge) => badge.querySelector('[aria-hidden]').innerText + ' ' + getComputedStyle(badge).color + ' on ' + getComputedStyle(badge).backgroundColor),
      })),
    })),
  })),
}))()`;

const SUBS = 'SUBS rgb(255, 255, 255) on rgb(31, 78, 121)';
const PIANO = 'PIANO rgb(0, 0, 0) on rgb(242, 193, 78)';
const EXPECTED: Seen = {
  heading: 'What’s on at Marquee Picture House',
  days: ['Today 3 Apr', 'Sat 4 Apr', 'Sun 5 Apr', 'Mon 6 Apr', 'Tue 7 Apr', 'Wed 8 Apr', 'Thu 9 Apr'],
  films: [
    {
      title: 'Nosferatu',
      days: [
        { day: 'Today, Friday 3 April', sessions: [{ time: '19:30', href: 'https://tickets.example/1', marks: [], badges: [SUBS] }] },
        { day: 'Tomorrow, Saturday 4 April', sessions: [{ time: '19:30', href: null, marks: ['Sold out'], badges: [] }] },
        {
          day: 'Sunday 5 April',
          sessions: [
            { time: '19:30', href: 'https://tickets.example/3', marks: ['Few tickets left'], badges: [] },
            { time: '00:30', href: 'https://tickets.example/4', marks: [], badges: [] },
          ],
        },
      ],
    },
    { title: 'Metropolis', days: [{ day: 'Sunday 5 April', sessions: [{ time: '14:00', href: 'https://tickets.example/5', marks: [], badges: [PIANO] }] }] },
    {
      title: 'Silent Comedy Double: Sherlock Jr. & Safety Last!',
      days: [{ day: 'Monday 6 April', sessions: [{ time: '17:30', href: 'https://tickets.example/6', marks: [], badges: [] }] }],
    },
  ],
};

interface Visit {
  readonly page: Page;
  /** Addresses asked for outside Marquee and the framing pages. */
  readonly elsewhere: string[];
  /** The posters' renditions asked for. */
  readonly posters: string[];
  /** What the content security policy of any document blocked. */
  readonly violations: string[];
}

interface VisitOptions {
  readonly width?: number;
  readonly dark?: boolean;
  readonly javaScript?: boolean;
}


let browser: Browser;
let base: string;
let key: string;
/** The cinema's own site, whose page frames the programme, and another site with the same page. */
let cinema: string;
let elsewhere: string;

/**
 * A site serving `page` at every path, on the loopback address as Marquee is: a page of a public
 * site may not frame a loopback address, which a real deployment never is.
 */
async function site(page: () => string): Promise<string> {
  const server = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  atEnd(() => new Promise((resolve) => server.close(resolve)));
  const address = server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
}

before(async () => {
  if (NO_CHROMIUM !== false) return;
  cinema = await site(cinemaPage);
  elsewhere = await site(cinemaPage);
  const t = await appWithSessions(SESSIONS, { now: () => NOW });
  await issueToken(t.db, { customer: 'default', label: 'closes the service' });
  key = (await issueToken(t.db, { customer: 'default', label: 'cinema', kind: 'publishable', origins: [cinema] })).token;
  await t.tokens.refresh();
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  browser = await launchChromium(STEP_MS);
  // Closed first, so that no connection of the browser's keeps the servers waiting as they close.
  atEnd(() => browser.close());
});

/** Opens `url` in a new tab as a visitor in VISITOR_ZONE, any site but the test's refused. */
async function visit(url: string, options: VisitOptions = {}): Promise<Visit> {
  const page = await browser.newPage();
  page.setDefaultTimeout(STEP_MS);
  await page.setViewport({ width: options.width ?? 1280, height: 800 });
  await page.emulateTimezone(VISITOR_ZONE);
  await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: options.dark === true ? 'dark' : 'light' }]);
  await page.setJavaScriptEnabled(options.javaScript ?? true);
  const visited: Visit = { page, elsewhere: [], posters: [], violations: [] };
  await page.setRequestInterception(true);
  page.on('request', (request) => {
    const address = request.url();
    if (address.startsWith(`${base}/images/`)) visited.posters.push(address);
    if ([base, cinema, elsewhere].some((origin) => address.startsWith(`${origin}/`))) void request.continue();
    else {
      visited.elsewhere.push(address);
      void request.abort();
    }
  });
  await page.exposeFunction('reportViolation', (violation: string) => visited.violations.push(violation));
  await page.evaluateOnNewDocument(`document.addEventListener('securitypolicyviolation', (event) => reportViolation(event.violatedDirective + ' ' + event.blockedURI))`);
  await page.goto(url, { waitUntil: 'networkidle0', timeout: STEP_MS });
  return visited;
}

/** The serious and critical violations axe-core finds in the document of `frame`, by rule and element. */
async function axeViolations(frame: Page | Frame): Promise<string[]> {
  const source = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  await frame.evaluate(source);
  const found = (await frame.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((results) =>
    results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').flatMap((v) => v.nodes.map((n) => v.id + ': ' + n.target.join(' '))))`)) as string[];
  return found;
}

/** How far the document of `frame` is wider than its window: 0 when nothing scrolls sideways. */
async function overflow(frame: Page | Frame): Promise<number> {
  return Number(await frame.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'));
}

/** The one line a cinema pastes into its page (README), for this server and key. */
function embedLine(): string {
  return `<iframe src="${base}/whats-on?key=${key}&embed=1" title="What’s on" width="100%" height="600" style="border:0"></iframe><script src="${base}/whats-on/frame.js" async></script>`;
}

function cinemaPage(): string {
  return `<!doctype html><html lang="en"><head><meta name="viewport" content="width=device-width, initial-scale=1"><title>Our cinema</title></head><body style="margin:0"><h1>Our cinema</h1>${embedLine()}<p>Find us on Cuba Street.</p></body></html>`;
}

describe('/whats-on in headless Chromium', { skip: NO_CHROMIUM }, () => {
  test('a visitor in another zone sees the cinema\'s days and times, links to book, sold out and few left, badges in their colours; with no JavaScript too', TIMEOUT, async () => {
    const seen = await visit(`${base}/whats-on?key=${key}`);
    assert.equal(await seen.page.evaluate('Intl.DateTimeFormat().resolvedOptions().timeZone'), VISITOR_ZONE, 'the visitor is in New York');
    assert.deepEqual(await seen.page.evaluate(SEEN), EXPECTED);
    assert.deepEqual(await seen.page.evaluate('[document.documentElement.lang, document.documentElement.dir, document.title]'), ['en', 'ltr', 'What’s on at Marquee Picture House']);
    assert.deepEqual(await seen.page.evaluate(`[...document.querySelectorAll('a.session > .visually-hidden:first-child')].map((hidden) => hidden.textContent)`), [
      'Nosferatu, Friday 3 April, ',
      'Nosferatu, Sunday 5 April, ',
      'Nosferatu, Sunday 5 April, ',
      'Metropolis, Sunday 5 April, ',
      'Silent Comedy Double: Sherlock Jr. & Safety Last!, Monday 6 April, ',
    ], 'each time names its film and day to a screen reader');
    assert.deepEqual(seen.elsewhere, [], 'nothing asked of another site');
    assert.deepEqual(seen.violations, []);
    await seen.page.close();

    const plain = await visit(`${base}/whats-on?key=${key}`, { javaScript: false });
    assert.deepEqual(await plain.page.evaluate(SEEN), EXPECTED, 'the same without JavaScript');
    await plain.page.click('nav .day-list li:nth-child(3) a');
    await plain.page.waitForSelector('nav a[aria-current="page"]');
    assert.equal(new URL(plain.page.url()).search, `?key=${key}&from=2026-04-05&days=1`);
    assert.deepEqual(((await plain.page.evaluate(SEEN)) as Seen).films.map((film) => film.title), ['Metropolis', 'Nosferatu'], 'Sunday\'s films, by their first session');
    await plain.page.close();
  });

  test('axe-core finds no serious or critical violation, light or dark, whole or framed; at 360 px nothing scrolls sideways; focus shows', TIMEOUT, async () => {
    for (const [url, options] of [
      [`${base}/whats-on?key=${key}`, { width: 360 }],
      [`${base}/whats-on?key=${key}`, { width: 360, dark: true }],
      [`${base}/whats-on?key=${key}&sessions=all`, { width: 1280 }],
      [`${base}/whats-on?key=${key}&embed=1`, { width: 360, dark: true }],
    ] as const) {
      const label = `${url.replace(base, '').replace(key, 'KEY')} ${JSON.stringify(options)}`;
      const seen = await visit(url, options);
      assert.deepEqual(await axeViolations(seen.page), [], label);
      assert.equal(await overflow(seen.page), 0, `${label}: no sideways scrolling`);
      assert.deepEqual(seen.elsewhere, [], label);
      assert.deepEqual(seen.violations, [], label);
      assert.ok(seen.posters.length >= 1, `${label}: the posters load`);
      const paint = Number(await seen.page.evaluate(`performance.getEntriesByName('first-contentful-paint')[0]?.startTime`));
      assert.ok(paint > 0, `${label}: first contentful paint measured (${paint} ms)`);
      await seen.page.close();
    }

    const seen = await visit(`${base}/whats-on?key=${key}`, { width: 360 });
    await seen.page.keyboard.press('Tab');
    const skipLink = (await seen.page.evaluate(`(() => { const a = document.activeElement; const box = a.getBoundingClientRect(); return [a.innerText, box.top >= 0 && box.left >= 0 && box.width > 0, getComputedStyle(a).backgroundColor]; })()`)) as [string, boolean, string];
    assert.deepEqual(skipLink, ['Skip to the programme', true, 'rgb(255, 221, 0)'], 'the first Tab shows a link past the header, focused in yellow');
    await seen.page.keyboard.press('Enter');
    assert.equal(await seen.page.evaluate('document.activeElement.id'), 'programme');
    await seen.page.keyboard.press('Tab');
    assert.equal(await seen.page.evaluate('getComputedStyle(document.activeElement).backgroundColor'), 'rgb(255, 221, 0)', 'each link shows its focus');
    await seen.page.close();
  });

  test('a link with a bad filter, or a frame whose key is refused, shows a page that says why, styled and accessible', TIMEOUT, async () => {
    for (const [url, detail] of [
      [`${base}/whats-on?key=${key}&days=99`, "The days parameter must be a whole number of days from 1 to 62, got '99'."],
      [`${base}/whats-on?key=mq_pub_unknown&embed=1`, 'The key is not known.'],
    ] as const) {
      const seen = await visit(url, { width: 360, dark: true });
      assert.deepEqual(await seen.page.evaluate(`[document.querySelector('h1').textContent, document.querySelector('main p').textContent]`), [url.includes('days') ? 'Bad Request' : 'Unauthorized', detail]);
      assert.match(String(await seen.page.evaluate('getComputedStyle(document.body).fontFamily')), /system-ui/, 'in the page\'s own style');
      assert.deepEqual(await axeViolations(seen.page), [], url);
      assert.equal(await overflow(seen.page), 0);
      assert.deepEqual(seen.violations, []);
      assert.deepEqual(seen.elsewhere, []);
      await seen.page.close();
    }
  });

  test('framed by the cinema\'s page with the README\'s line, it fits its frame; another site\'s page cannot frame it', TIMEOUT, async () => {
    const host = await visit(`${cinema}/`, { width: 360 });
    const frame = host.page.frames().find((candidate) => candidate.url().startsWith(`${base}/whats-on?`));
    assert.ok(frame, 'the frame holds the programme');
    assert.deepEqual(await frame.evaluate(`['header', 'footer', 'article'].map((tag) => document.querySelectorAll(tag).length)`), [0, 0, 3]);
    assert.equal(await overflow(frame), 0, 'nothing scrolls sideways in the frame');
    const height = Number(await frame.evaluate('Math.ceil(document.documentElement.getBoundingClientRect().height)'));
    assert.ok(height > 600, `the programme (${height} px) is taller than the frame's first height`);
    await host.page.waitForFunction(`document.querySelector('iframe').getBoundingClientRect().height === ${height}`, { timeout: STEP_MS });
    assert.deepEqual(host.elsewhere, []);
    assert.deepEqual(host.violations, []);
    assert.equal(await frame.evaluate(`document.querySelector('a.session').target`), '_top', 'booking opens in the cinema\'s window');
    await host.page.close();

    const other = await visit(`${elsewhere}/`, { width: 360 });
    const blocked = other.page.frames().find((candidate) => candidate !== other.page.mainFrame());
    assert.ok(blocked);
    assert.ok(!blocked.url().startsWith(base), `another site's frame shows no programme (${blocked.url()})`);
    await other.page.close();
  });
});
