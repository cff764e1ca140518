/**
 * The programme's page for every visitor (CONTRACT §15) in headless Chromium, with no script: the
 * access terms in words beside each time, in what a screen reader reads of the booking link; a
 * link per term that keeps only those screenings; the films coming soon after the week; and
 * axe-core's check of the page so filtered, light and dark, at a phone's width.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { before, describe, test } from 'node:test';
import type { Browser, Page, SerializedAXNode } from 'puppeteer-core';
import { launchChromium, NO_CHROMIUM } from '../scripts/chromium.js';
import { appWithSessions, atEnd, sessionStarting } from './helpers.js';

const STEP_MS = 20_000;
const TIMEOUT = { timeout: 120_000 };
/** 10:00 on Monday 6 January 2025 in Wellington. */
const NOW = Date.parse('2025-01-05T21:00:00Z');
const SESSIONS = [
  sessionStarting(1, '2025-01-06T19:30:00', { Attributes: ['0000000005', '0000000006'] }),
  sessionStarting(2, '2025-01-07T19:30:00', { Attributes: ['0000000001'] }),
  sessionStarting(3, '2025-01-08T14:00:00', { Attributes: ['0000000003', '0000000006'] }),
  sessionStarting(4, '2025-01-08T11:00:00', { FilmId: 'HO00000102', Title: 'Metropolis', Attributes: ['0000000007'] }),
  sessionStarting(5, '2025-01-09T19:30:00'),
  sessionStarting(6, '2025-01-14T19:30:00', { FilmId: 'HO00000117', Title: 'Detour', Status: 'Planned' }),
];
const POSTER = '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="180"><rect width="120" height="180" fill="#345"/></svg>';

let browser: Browser;
let base: string;

before(async () => {
  if (NO_CHROMIUM !== false) return;
  const t = await appWithSessions(SESSIONS, { now: () => NOW });
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  browser = await launchChromium(STEP_MS);
  atEnd(() => browser.close());
});

/** Opens `url` without JavaScript, the posters given by the test, any other site refused. */
async function visit(url: string, options: { readonly width?: number; readonly dark?: boolean } = {}): Promise<Page> {
  const page = await browser.newPage();
  page.setDefaultTimeout(STEP_MS);
  await page.setViewport({ width: options.width ?? 1280, height: 800 });
  await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: options.dark === true ? 'dark' : 'light' }]);
  await page.setJavaScriptEnabled(false);
  await page.setRequestInterception(true);
  page.on('request', (request) => {
    if (request.url().startsWith(`${base}/`)) void request.continue();
    else if (request.url().startsWith('https://images.marquee.example/')) void request.respond({ status: 200, contentType: 'image/svg+xml', body: POSTER });
    else void request.abort();
  });
  await page.goto(url, { waitUntil: 'networkidle0', timeout: STEP_MS });
  return page;
}

/** What a screen reader is told of each booking link, from Chromium's accessibility tree. */
async function linkNames(page: Page): Promise<string[]> {
  const names: string[] = [];
  const walk = (node: SerializedAXNode | null): void => {
    if (node === null) return;
    if (node.role === 'link' && /\d\d:\d\d/.test(node.name ?? '')) names.push((node.name ?? '').replace(/\s+/g, ' ').trim());
    for (const child of node.children ?? []) walk(child);
  };
  walk(await page.accessibility.snapshot());
  return names;
}

/** The terms shown beside each time, as a visitor reads them. */
const SHOWN = `[...document.querySelectorAll('.sessions li')].map((li) => [li.querySelector('time').innerText, li.querySelector('.access') ? li.querySelector('.access').innerText : ''])`;

async function axeViolations(page: Page): Promise<string[]> {
  await page.setJavaScriptEnabled(true);
  await page.reload({ waitUntil: 'networkidle0', timeout: STEP_MS });
  await page.evaluate(await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8'));
  return (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((results) =>
    results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').flatMap((v) => v.nodes.map((n) => v.id + ': ' + n.target.join(' '))))`)) as string[];
}

describe('/whats-on for every visitor, in headless Chromium', { skip: NO_CHROMIUM }, () => {
  test('each time says its terms in words, which a screen reader reads with the time; a link per term keeps only those screenings, with no script', TIMEOUT, async () => {
    const page = await visit(`${base}/whats-on?from=2025-01-06`);
    assert.deepEqual(await page.evaluate(SHOWN), [
      ['19:30', 'Audio described, captioned'],
      ['19:30', 'English subtitles'],
      ['14:00', 'Captioned, relaxed'],
      ['19:30', ''],
      ['11:00', 'Parent and baby'],
    ]);
    const names = await linkNames(page);
    assert.ok(names.some((name) => name.startsWith('Nosferatu, Monday 6 January, 19:30') && name.endsWith('Audio described, captioned')), names.join(' | '));
    assert.ok(names.some((name) => name.startsWith('Metropolis, Wednesday 8 January, 11:00') && name.endsWith('Parent and baby')), names.join(' | '));
    assert.deepEqual(await page.evaluate(`[...document.querySelectorAll('.access-list a')].map((a) => a.innerText)`), ['Audio described', 'Captioned', 'Subtitled', 'Relaxed', 'Parent and baby']);

    await Promise.all([page.waitForNavigation({ timeout: STEP_MS }), page.click('.access-list a[href*="access=captioned"]')]);
    assert.deepEqual([...new URL(page.url()).searchParams], [['from', '2025-01-06'], ['access', 'captioned']]);
    assert.deepEqual(await page.evaluate(SHOWN), [
      ['19:30', 'Audio described, captioned'],
      ['14:00', 'Captioned, relaxed'],
    ], 'only the captioned screenings');
    assert.equal(await page.evaluate(`document.querySelector('.access-list a[aria-current="page"]').innerText`), 'Captioned');
    await Promise.all([page.waitForNavigation({ timeout: STEP_MS }), page.click('nav.days-nav .day-list li:nth-child(3) a')]);
    assert.deepEqual(await page.evaluate(SHOWN), [['14:00', 'Captioned, relaxed']], 'a day of the week keeps the term');
    assert.equal(await page.evaluate(`document.querySelector('.access-list li:last-child a').innerText`), 'All screenings');
    await Promise.all([page.waitForNavigation({ timeout: STEP_MS }), page.click('.access-list li:last-child a')]);
    assert.deepEqual([...new URL(page.url()).searchParams], [['from', '2025-01-08'], ['days', '1']], 'All screenings leaves the term and keeps the day');
    assert.equal((await page.evaluate(SHOWN) as unknown[]).length, 2, 'Wednesday\'s two screenings, whatever their terms');
    await page.close();
  });

  test('the films coming soon follow the week; the filtered page passes axe-core light and dark, and nothing scrolls sideways at 360 px', TIMEOUT, async () => {
    const page = await visit(`${base}/whats-on`);
    const coming = (await page.evaluate(`(() => {
      const section = document.querySelector('section.coming-soon');
      const last = [...document.querySelectorAll('article')].at(-1);
      return [section.querySelector('h2').innerText, [...section.querySelectorAll('h3')].map((h3) => h3.innerText), section.innerText.includes('First session Tuesday 14 January, 19:30.'),
        Boolean(last.compareDocumentPosition(section) & Node.DOCUMENT_POSITION_FOLLOWING)];
    })()`)) as [string, string[], boolean, boolean];
    assert.deepEqual(coming, ['Coming soon', ['Hamlet — A Staged Reading', 'Detour'], true, true]);
    await page.close();

    for (const dark of [false, true]) {
      const filtered = await visit(`${base}/whats-on?from=2025-01-06&access=relaxed`, { width: 360, dark });
      assert.equal(await filtered.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'), 0, 'no sideways scrolling');
      assert.deepEqual(await axeViolations(filtered), [], dark ? 'dark' : 'light');
      await filtered.close();
    }
  });
});
