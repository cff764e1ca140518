/**
 * Headless Chromium as the browser tests and the screenshots use it: Debian's (`apt-get install
 * chromium`, which .ci/run does), or the one `CHROMIUM` names, kept to the loopback address.
 */
import { existsSync } from 'node:fs';
import puppeteer, { type Browser } from 'puppeteer-core';

export const CHROMIUM = process.env['CHROMIUM'] ?? '/usr/bin/chromium';

/**
 * Why a browser test is skipped: outside CI, a machine without Chromium skips it; in CI a missing
 * browser is a failure, so the test runs and says so.
 */
export const NO_CHROMIUM = existsSync(CHROMIUM) || process.env['CI'] === 'true' ? false : `no Chromium at ${CHROMIUM} (apt-get install chromium; .ci/run installs it)`;

/** Starts the browser; each of its steps, and each call to it, fails after `stepMs`. */
export async function launchChromium(stepMs: number): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM} (apt-get install chromium)`);
  return puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    timeout: stepMs,
    protocolTimeout: stepMs,
    // Any host other than the loopback address resolves to nothing, should interception miss a request.
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1'],
  });
}
