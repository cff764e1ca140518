import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { startTestApp, tempDir } from './helpers.js';

const CHROMIUM = '/usr/bin/chromium';
const OPERATIONS = [
  ['listFilms', '/v4/film', 'List films'],
  ['getFilm', '/v4/film/{id}', 'Get a film'],
  ['listFilmPackages', '/v1/filmpackage', 'List film packages'],
  ['getFilmPackage', '/v1/filmpackage/{id}', 'Get a film package'],
] as const;

// Outside CI a machine without Chromium skips this test; in CI a missing browser is a failure.
const skip = existsSync(CHROMIUM) || process.env['CI'] ? false : `no Chromium at ${CHROMIUM} (apt-get install chromium; .ci/run installs it)`;

/** The DOM of a page as headless Chromium renders it, with no network beyond this machine. */
async function renderedDom(url: string): Promise<string> {
  const profile = await tempDir();
  const flags = [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    `--user-data-dir=${profile}`,
    // Any host name other than the loopback address resolves to nothing.
    '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
    '--dump-dom',
    url,
  ];
  return new Promise((resolve, reject) => {
    execFile(CHROMIUM, flags, { timeout: 60_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`Chromium failed: ${error.message}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

test('/docs rendered in headless Chromium shows the four operations, and loads nothing else', { skip }, async () => {
  assert.ok(existsSync(CHROMIUM), `CI needs Chromium at ${CHROMIUM}`);
  const { app } = await startTestApp();
  const base = await app.listen({ port: 0, host: '127.0.0.1' });

  const dom = await renderedDom(`${base}/docs`);
  assert.match(dom, /<title>Marquee API reference<\/title>/);
  for (const [id, path, summary] of OPERATIONS) {
    const article = new RegExp(`<article class="operation" id="${id}">(.*?)</article>`, 's').exec(dom)?.[1];
    assert.ok(article, `the page shows the operation ${id}`);
    assert.match(article, new RegExp(`<span class="method">GET</span> <code class="path">${path.replace(/[{}]/g, '\\$&')}</code> — ${summary}`));
    assert.match(article, /<strong>200<\/strong>/);
  }
  assert.match(dom, /id="schema-Film"/);

  assert.doesNotMatch(dom, /<script|<link|<img|<iframe|\ssrc=|url\(/i, 'the page refers to no resource to load');
  const response = await fetch(`${base}/docs`);
  assert.match(String(response.headers.get('content-security-policy')), /^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]+';/);
});
