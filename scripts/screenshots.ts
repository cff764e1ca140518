/**
 * The README's pictures of the programme's page, made from the demo:
 *
 *     npm run screenshots
 *
 * serves the demo cinema as `npm start` does (its sessions moved to start today), on a fresh
 * database and a free port, opens /whats-on in headless Chromium at a phone's width and at a
 * desktop's, and writes docs/screenshots/whats-on-phone.png and whats-on-desktop.png. The demo's
 * posters are at example addresses, which answer nothing: the browser is given a plain picture in
 * place of each. Prints each page's time to first contentful paint, and the page's size as sent.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { launchChromium } from './chromium.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const OUT = join(ROOT, 'docs', 'screenshots');
/** Every wait; starting a server and a browser on a busy machine takes seconds, never this long. */
const STEP_MS = 30_000;

const VIEWS = [
  // Tall enough to show a film with its sessions below the cinema and its days.
  { name: 'whats-on-phone.png', width: 360, height: 1100 },
  { name: 'whats-on-desktop.png', width: 1280, height: 900 },
] as const;

/** Starts `marquee serve` on the demo and resolves with its address once it listens. */
async function serveDemo(database: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'marquee.js'), 'serve', '--seed', join(ROOT, 'demo'), '--seed-today', '--database', database, '--port', '0'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = once(child, 'exit');
  const lines = createInterface({ input: child.stdout });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not listen within ${STEP_MS} ms`)), STEP_MS);
    void exited.then(([code]) => reject(new Error(`the server exited with ${String(code)}`)));
    lines.on('line', (line) => {
      const address = /listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(line)?.[1];
      if (address === undefined) return;
      clearTimeout(timer);
      resolve(address);
    });
  });
  return {
    url,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The bytes of `url` as sent to a client taking `coding`, and the coding it was sent in. */
function sent(url: string, coding: string): Promise<{ readonly bytes: number; readonly coding: string }> {
  return new Promise((resolve, reject) => {
    request(url, { headers: { 'accept-encoding': coding } }, (response) => {
      let bytes = 0;
      response.on('data', (chunk: Buffer) => (bytes += chunk.length));
      response.on('end', () => resolve({ bytes, coding: response.headers['content-encoding'] ?? 'identity' }));
      response.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

/**
 * The bytes of `url` sent in `coding`: a large answer goes out as it is until its compressed form,
 * begun by the first request for it, is made.
 */
async function compressedBytes(url: string, coding: string): Promise<number> {
  const deadline = Date.now() + STEP_MS;
  for (;;) {
    const answer = await sent(url, coding);
    if (answer.coding === coding) return answer.bytes;
    if (Date.now() > deadline) throw new Error(`${url} was not sent in ${coding} within ${STEP_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A plain poster in place of one the demo names: a colour of its address, and its name. */
function standInPoster(url: string): string {
  const name = (url.split('/').pop() ?? '').replace(/\.\w+$/, '').replace(/-\d{4}$/, '').replace(/-/g, ' ').toUpperCase();
  let hue = 0;
  for (const character of url) hue = (hue * 31 + character.charCodeAt(0)) % 360;
  const words = name.split(' ').map((word, line) => `<text x="60" y="${96 + line * 22}" text-anchor="middle">${word.replace(/[<&]/g, '')}</text>`).join('');
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="120" height="180" viewBox="0 0 120 180">` +
    `<defs><linearGradient id="g" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="hsl(${hue} 45% 35%)"/><stop offset="1" stop-color="hsl(${hue} 55% 12%)"/></linearGradient></defs>` +
    `<rect width="120" height="180" fill="url(#g)"/><g fill="#fff" font-family="Georgia, serif" font-size="14" font-weight="700">${words}</g></svg>`
  );
}

async function main(): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'marquee-screenshots-'));
  const server = await serveDemo(join(work, 'marquee.db'));
  const browser = await launchChromium(STEP_MS);
  try {
    const page = `${server.url}/whats-on`;
    const identity = (await sent(page, 'identity')).bytes;
    console.log(`the demo's week: ${identity} bytes of HTML, ${await compressedBytes(page, 'br')} in br, ${await compressedBytes(page, 'gzip')} in gzip`);
    await mkdir(OUT, { recursive: true });
    for (const view of VIEWS) {
      const tab = await browser.newPage();
      tab.setDefaultTimeout(STEP_MS);
      await tab.setViewport({ width: view.width, height: view.height });
      await tab.setRequestInterception(true);
      tab.on('request', (sent) => {
        const url = new URL(sent.url());
        if (url.origin === server.url) void sent.continue();
        else if (url.pathname.includes('/posters/')) void sent.respond({ status: 200, contentType: 'image/svg+xml', body: standInPoster(sent.url()) });
        else void sent.abort();
      });
      await tab.goto(page, { waitUntil: 'networkidle0', timeout: STEP_MS });
      const paint = await tab.evaluate(`performance.getEntriesByName('first-contentful-paint')[0]?.startTime`);
      console.log(`${view.width} px wide: first contentful paint ${Number(paint).toFixed(0)} ms`);
      await tab.screenshot({ path: join(OUT, view.name) as `${string}.png` });
      await tab.close();
    }
    console.log(`wrote ${VIEWS.map((view) => join('docs', 'screenshots', view.name)).join(' and ')}`);
  } finally {
    await browser.close();
    await server.stop();
    await rm(work, { recursive: true, force: true });
  }
}

await main();
