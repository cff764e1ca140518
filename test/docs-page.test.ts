import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'puppeteer-core';
import { issueToken } from '../src/access/manage-tokens.js';
import { DEMO_FILES, startTestApp } from './helpers.js';
import { launchChromium, NO_CHROMIUM } from '../scripts/chromium.js';

/** Every wait in the browser; the steps together stay well under the test's timeout. */
const STEP_MS = 15_000;

describe('/docs', () => {
  test('is Swagger UI under a strict content security policy, every asset served here', { timeout: 30_000 }, async () => {
    const { app } = await startTestApp();
    const page = await app.inject({ method: 'GET', url: '/docs' });
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers['content-type']), /^text\/html;/);
    assert.match(page.body, /<title>Marquee API reference<\/title>/);

    const policy = String(page.headers['content-security-policy']);
    const directives = new Map(policy.split(/;\s*/).map((directive) => [directive.split(' ')[0], directive.split(' ').slice(1).join(' ')]));
    assert.equal(directives.get('default-src'), "'none'");
    assert.equal(directives.get('script-src'), "'self'", 'no inline script, no eval');
    assert.match(directives.get('style-src') ?? '', /^'self' 'sha256-[A-Za-z0-9+/]+=*'$/, 'no inline style but one, by its digest');
    assert.equal(directives.get('connect-src'), "'self'");
    assert.equal(directives.get('img-src'), "'self' data:");
    assert.doesNotMatch(policy, /unsafe|https?:|\*/, 'nothing unsafe, no other origin');

    const assets = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1] ?? '');
    assert.ok(assets.length >= 5, `the page loads its scripts and styles: ${assets.join(', ')}`);
    const initializer = assets.find((asset) => asset.endsWith('/swagger-initializer.js')) ?? '';
    const script = await app.inject({ method: 'GET', url: initializer });
    const documentUrl = /"urls":\[\{"url":"([^"]+)"/.exec(script.body)?.[1];
    assert.equal(documentUrl, '/openapi.json', 'Swagger UI reads the one document');
    for (const url of [...assets, documentUrl]) {
      assert.match(url, /^\/[^/]/, `${url} is a path on this server`);
      const asset = await app.inject({ method: 'GET', url });
      assert.equal(asset.statusCode, 200, url);
      assert.ok(asset.rawPayload.length > 0, url);
    }
    for (const url of ['/docs/json', '/docs/yaml']) assert.equal((await app.inject({ method: 'GET', url })).statusCode, 404, `${url}: the document has one address`);
  });

  test('in headless Chromium, tries GET /v4/film/{id} with a token, in JSON then XML, loading nothing from elsewhere', { skip: NO_CHROMIUM, timeout: 60_000 }, async () => {
    const t = await startTestApp();
    const { token } = await issueToken(t.db, { customer: 'default', label: 'docs' });
    await t.tokens.refresh();
    const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    assert.equal((await fetch(`${base}/v4/film/HO00000101`)).status, 401, 'the server asks for a token');

    const sent = await inSwaggerUi(base, async (page) => {
      const operation = '#operations-Films-getFilm';
      await authorize(page, 'VeeziAccessToken', token);
      await tryOut(page, operation, { id: 'HO00000101' });
      const json = await execute(page, operation, '"Title"');
      assert.equal((JSON.parse(json) as { Title?: string }).Title, 'Nosferatu');
      await page.locator(`${operation} tr.response[data-code="200"] select.content-type`).fill('application/xml');
      const xml = await execute(page, operation, '<Film');
      assert.match(xml, /<Title>Nosferatu<\/Title>/);
    });
    const tries = sent.filter((request) => request.url.pathname.startsWith('/v4/'));
    assert.deepEqual(tries.map((request) => request.headers['veeziaccesstoken']), [token, token], 'each try sent the token');
  });

  test('in headless Chromium, tries GET /programme with a publishable key in the query, and its filters', { skip: NO_CHROMIUM, timeout: 60_000 }, async () => {
    const t = await startTestApp(DEMO_FILES);
    await issueToken(t.db, { customer: 'default', label: 'closes the service' });
    const { token: key } = await issueToken(t.db, { customer: 'default', label: 'docs', kind: 'publishable' });
    await t.tokens.refresh();
    const base = await t.app.listen({ port: 0, host: '127.0.0.1' });

    const sent = await inSwaggerUi(base, async (page) => {
      const operation = '#operations-Programme-getProgramme';
      await authorize(page, 'ProgrammeKey', key);
      await tryOut(page, operation, { from: '2025-01-06', days: '2' });
      await page.locator(`${operation} tr[data-param-name="sessions"] select`).fill('all');
      const json = await execute(page, operation, '"features"');
      const answer = JSON.parse(json) as { from: string; days: number; features: unknown[] };
      assert.deepEqual([answer.from, answer.days], ['2025-01-06', 2]);
      assert.ok(answer.features.length > 0);
    });
    const [tried] = sent.filter((request) => request.url.pathname === '/programme');
    assert.equal(tried?.url.searchParams.get('key'), key, 'the key went in the query string');
    assert.equal(tried?.url.searchParams.get('sessions'), 'all');
  });
});

interface SentRequest {
  readonly url: URL;
  readonly headers: Record<string, string>;
}

/**
 * Opens /docs of `base` in headless Chromium and runs `work` on it; fails when the page asked
 * anything of another origin or its content security policy blocked anything. Resolves with the
 * requests the page sent to `base`.
 */
async function inSwaggerUi(base: string, work: (page: Page) => Promise<void>): Promise<SentRequest[]> {
  const browser = await launchChromium(STEP_MS);
  try {
    const page = await browser.newPage();
    page.setDefaultTimeout(STEP_MS);
    const sent: SentRequest[] = [];
    const elsewhere: string[] = [];
    const violations: string[] = [];
    await page.setRequestInterception(true);
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.protocol === 'data:' || url.origin === base) {
        sent.push({ url, headers: request.headers() });
        void request.continue();
      } else {
        elsewhere.push(request.url());
        void request.abort();
      }
    });
    await page.exposeFunction('reportViolation', (violation: string) => violations.push(violation));
    // The page's own code, as text: this project is compiled without the DOM's types.
    await page.evaluateOnNewDocument(`document.addEventListener('securitypolicyviolation', (event) => reportViolation(event.violatedDirective + ' ' + event.blockedURI))`);
    await page.goto(`${base}/docs`, { timeout: STEP_MS });
    await work(page);
    assert.deepEqual(elsewhere, [], 'no request left this server');
    assert.deepEqual(violations, [], 'the content security policy blocked nothing');
    return sent;
  } finally {
    await browser.close();
  }
}

/** Opens an operation, asks to try it, and fills its parameters. */
async function tryOut(page: Page, operation: string, parameters: Readonly<Record<string, string>>): Promise<void> {
  await page.locator(`${operation} .opblock-summary-control`).click();
  await page.locator(`${operation} .try-out__btn`).click();
  for (const [name, value] of Object.entries(parameters)) await page.locator(`${operation} tr[data-param-name="${name}"] input`).fill(value);
}

/** Executes the operation and resolves with the body it shows, once it shows `shows`. */
async function execute(page: Page, operation: string, shows: string): Promise<string> {
  const responseBody = `${operation} .live-responses-table .response-col_description pre`;
  await page.locator(`${operation} .btn.execute`).click();
  // The text shows in one of the highlighted tokens of the body.
  await page.waitForSelector(`${responseBody} ::-p-text(${JSON.stringify(shows)})`);
  const body = await page.$(responseBody);
  return String(await (await body?.getProperty('textContent'))?.jsonValue());
}

/** Enters a token in Swagger UI's Authorize dialog, under the named security scheme. */
async function authorize(page: Page, scheme: string, token: string): Promise<void> {
  await page.locator('.btn.authorize').click();
  await page.waitForSelector('.modal-ux .auth-container');
  let filled = false;
  for (const container of await page.$$('.modal-ux .auth-container')) {
    const heading = String(await (await (await container.$('h4'))?.getProperty('textContent'))?.jsonValue());
    if (!heading.startsWith(scheme)) continue;
    await (await container.$('input'))?.type(token);
    await (await container.$('.btn.authorize'))?.click();
    filled = true;
  }
  assert.ok(filled, `the dialog offers ${scheme}`);
  await page.locator('.modal-ux .auth-container .btn-done').click();
  await page.waitForSelector('.modal-ux', { hidden: true });
}
