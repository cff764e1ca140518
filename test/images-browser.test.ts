/**
 * The page's posters in headless Chromium (CONTRACT §13): a phone 360 px wide at a device pixel
 * ratio of 2, scrolled through nine films whose sources are posters of about 5 MB, downloads
 * less than 1 MB of pictures, the first posters first; a poster whose source cannot be read
 * leaves its tinted box, never a broken picture.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Browser } from 'puppeteer-core';
import { launchChromium, NO_CHROMIUM } from '../scripts/chromium.js';
import { atEnd, startTestApp } from './helpers.js';
import { catalogueNaming, heavyPosterJpeg, PICTURES_DAY, sendBytes, startPictureHost } from './picture-sources.js';

const STEP_MS = 30_000;
const TIMEOUT = { timeout: 180_000 };
const CARDS = 9;
/** 10:00 on the catalogue's day in Wellington. */
const NOW = Date.parse(`${PICTURES_DAY}T10:00:00+13:00`) - 24 * 3_600_000;

let browser: Browser;
let base: string;
let sourceBytes = 0;

before(async () => {
  if (NO_CHROMIUM !== false) return;
  const poster = await heavyPosterJpeg();
  const routes = Object.fromEntries(Array.from({ length: CARDS }, (_, place) => [`/poster-${place}.jpg`, sendBytes(poster, 'image/jpeg')]));
  const host = await startPictureHost(routes);
  sourceBytes = poster.length * CARDS;
  const sources = [...Object.keys(routes), '/missing.jpg'].map((path) => `${host.origin}${path}`);
  const t = await startTestApp(await catalogueNaming(sources), { now: () => NOW, images: { sources: [`${host.origin}/`] } });
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  browser = await launchChromium(STEP_MS);
  atEnd(() => browser.close());
});

describe('the page\'s posters in Chromium', { skip: NO_CHROMIUM }, () => {
  test('a phone showing nine cards of 5 MB sources downloads under 1 MB of pictures, the first posters first, and no broken picture', TIMEOUT, async (context) => {
    assert.ok(sourceBytes > CARDS * 4.5e6, `the sources weigh ${sourceBytes} bytes`);
    const page = await browser.newPage();
    page.setDefaultTimeout(STEP_MS);
    await page.setViewport({ width: 360, height: 740, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
    const pictures = new Map<string, number>();
    page.on('response', (response) => {
      if (!response.url().startsWith(`${base}/images/`) || !response.ok()) return;
      void response.buffer().then(
        (body) => pictures.set(response.url(), body.length),
        () => pictures.set(response.url(), 0),
      );
    });
    await page.goto(`${base}/whats-on?from=${PICTURES_DAY}&days=1&sessions=all`, { waitUntil: 'networkidle0', timeout: STEP_MS });
    const markup = (await page.evaluate(`[...document.querySelectorAll('img.poster')].map((img) => ({
      srcset: img.getAttribute('srcset'), sizes: img.getAttribute('sizes'), width: img.getAttribute('width'), height: img.getAttribute('height'),
      loading: img.getAttribute('loading'), priority: img.getAttribute('fetchpriority'), alt: img.getAttribute('alt') }))`)) as Record<string, string | null>[];
    assert.equal(markup.length, CARDS + 1);
    for (const [place, img] of markup.entries()) {
      assert.ok(img['srcset'] !== null && img['sizes'] !== null && img['width'] !== null && img['height'] !== null, `poster ${place}: srcset, sizes, width and height`);
      assert.deepEqual([img['loading'], img['priority']], place < 3 ? [null, 'high'] : ['lazy', null], `poster ${place}: ${place < 3 ? 'eager, first' : 'lazy'}`);
      assert.equal(img['alt'], '', 'the title beside it says what it is');
    }
    const firstLoaded = pictures.size;
    assert.ok(firstLoaded >= 1 && firstLoaded < CARDS, `only the posters near the first screen load at once (${firstLoaded})`);

    // Scrolled through, a screen at a time, each lazy poster loads as it comes near.
    const height = Number(await page.evaluate('document.documentElement.scrollHeight'));
    for (let top = 0; top < height; top += 600) {
      await page.evaluate(`window.scrollTo(0, ${top})`);
      await page.waitForNetworkIdle({ idleTime: 200, timeout: STEP_MS });
    }
    await page.waitForNetworkIdle({ idleTime: 200, timeout: STEP_MS });
    const loaded = [...pictures.entries()].filter(([, bytes]) => bytes > 0);
    assert.equal(loaded.length, CARDS, `each of the nine posters, once: ${JSON.stringify(loaded)}`);
    const total = loaded.reduce((sum, [, bytes]) => sum + bytes, 0);
    assert.ok(total < 1_000_000, `${total} bytes of pictures, against ${sourceBytes} of sources`);
    assert.ok(loaded.every(([url]) => url.includes('/160/')), 'a card 5rem wide at twice its pixels takes the 160 px rendition');
    context.diagnostic(`pictures downloaded: ${total} bytes (sources: ${sourceBytes})`);

    const broken = (await page.evaluate(`(() => {
      const img = [...document.querySelectorAll('img.poster')].at(-1);
      const box = img.getBoundingClientRect();
      return { complete: img.complete, natural: img.naturalWidth, width: box.width, height: box.height, background: getComputedStyle(img).backgroundColor };
    })()`)) as { complete: boolean; natural: number; width: number; height: number; background: string };
    assert.equal(broken.natural, 0, 'the missing source shows no picture');
    assert.ok(broken.width > 0 && broken.height > broken.width, `its box keeps a poster's place (${broken.width}×${broken.height})`);
    assert.notEqual(broken.background, 'rgba(0, 0, 0, 0)', 'tinted, with no alternative text to show');
    await page.close();
  });
});
