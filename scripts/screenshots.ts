/**
 * The README's pictures of the programme's page, made from the demo:
 *
 *     npm run screenshots
 *
 * serves the demo cinema as `npm start` does (its sessions moved to start today), on a fresh
 * database and a free port, opens /whats-on in headless Chromium at a phone's width and at a
 * desktop's, and writes docs/screenshots/whats-on-phone.png and whats-on-desktop.png. The posters
 * are the demo's own (demo/images), served resized by Marquee as any catalogue's are; nothing is
 * asked of another site. Prints each page's time to first contentful paint, the page's size as
 * sent, and the bytes of pictures it loaded.
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
      tab.on('request', (sent) => void (new URL(sent.url()).origin === server.url ? sent.continue() : sent.abort()));
      await tab.goto(page, { waitUntil: 'networkidle0', timeout: STEP_MS });
      const paint = await tab.evaluate(`performance.getEntriesByName('first-contentful-paint')[0]?.startTime`);
      const pictures = await tab.evaluate(`performance.getEntriesByType('resource').filter((entry) => entry.initiatorType === 'img').reduce((sum, entry) => sum + entry.encodedBodySize, 0)`);
      console.log(`${view.width} px wide: first contentful paint ${Number(paint).toFixed(0)} ms; ${Number(pictures)} bytes of posters loaded`);
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
