/**
 * Property: over random customers, random small catalogues and random tokens, no answer ever
 * holds another customer's record. Film and package ids are drawn from one small pool, so the
 * same id names different records of different customers. A failure prints its seed; set
 * MARQUEE_TEST_SEED to replay it.
 */
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { compareCodePoints } from '../src/catalogue/code-points.js';
import { issueToken, revokeToken } from '../src/access/manage-tokens.js';
import { importFiles } from '../src/import/import-files.js';
import { seededRandom as random } from '../scripts/generate-catalogue.js';
import { DEMO, parseXmlAnswer, startTestApp, tempDir } from './helpers.js';

type Json = Record<string, unknown>;

const FILM_IDS = ['F1', 'F2', 'F3', 'F4', 'F5', 'F6'];
const PACKAGE_IDS = [1, 2, 3, 4, 5];
const REQUESTS = 600;

interface Customer {
  readonly key: string;
  /** Put in every record of the customer, and in no other. */
  readonly marker: string;
  readonly films: Json[];
  readonly packages: Json[];
  readonly tokens: string[];
  readonly revoked: string[];
}

test('no answer ever holds another customer\'s record', async () => {
  const seed = Number(process.env['MARQUEE_TEST_SEED'] ?? Math.floor(Math.random() * 2 ** 32));
  const draw = random(seed);
  const int = (below: number): number => Math.floor(draw() * below);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)] as T;
  const subset = <T>(items: readonly T[]): T[] => items.filter(() => draw() < 0.5);
  const why = (text: string): string => `${text} (seed ${seed})`;

  const [template] = JSON.parse(await readFile(join(DEMO, 'films.json'), 'utf8')) as Json[];
  const keys = new Set(['default']);
  const keyLength = 1 + int(3);
  while (keys.size < 3 + int(4)) keys.add(Array.from({ length: keyLength + int(3) }, () => pick([...'abc0-'])).join(''));

  const t = await startTestApp([]);
  const dir = await tempDir();
  const customers: Customer[] = [];
  for (const key of keys) {
    const marker = `{{${key}}}`;
    const films = subset(FILM_IDS).map((id) => ({ ...template, Id: id, Title: `${marker} ${id}`, Synopsis: marker, DisplaySequence: int(3) }));
    const packages = films.length === 0 ? [] : subset(PACKAGE_IDS).map((id) => {
      const film = pick(films);
      return { Id: id, Title: `${marker} package ${id}`, Status: 'Active', Films: [{ FilmId: film.Id, Title: `${marker} in package`, SplitPercent: 100, TrailerDuration: 0, CleanUpDuration: 0, Order: 1 }] };
    });
    // Some customers never had a catalogue imported at all.
    if (films.length > 0 || draw() < 0.5) {
      const files = [join(dir, `${key}-films.json`), join(dir, `${key}-packages.json`)];
      await writeFile(files[0] as string, JSON.stringify(films));
      await writeFile(files[1] as string, JSON.stringify(packages));
      await importFiles(t.db, { customer: key, files, replace: true });
    }
    const tokens: string[] = [];
    const revoked: string[] = [];
    for (let n = 0; n < 1 + int(3); n++) {
      const issued = await issueToken(t.db, { customer: key, label: null });
      // Each customer keeps one live token; the others may be revoked.
      if (n > 0 && draw() < 0.5) {
        await revokeToken(t.db, issued.info.id);
        revoked.push(issued.token);
      } else {
        tokens.push(issued.token);
      }
    }
    customers.push({ key, marker, films, packages, tokens, revoked });
  }
  await t.live.refresh();
  await t.tokens.refresh();

  const presented = customers.flatMap((customer) => [
    ...customer.tokens.map((token) => ({ customer, token, revoked: false })),
    ...customer.revoked.map((token) => ({ customer, token, revoked: true })),
  ]);
  const sortedFilms = (films: readonly Json[]): Json[] =>
    [...films].sort((a, b) => (a['DisplaySequence'] as number) - (b['DisplaySequence'] as number) || compareCodePoints(a['Id'] as string, b['Id'] as string));

  let answered = 0;
  for (let n = 0; n < REQUESTS; n++) {
    const { customer, token, revoked } = pick(presented);
    const format = pick(['json', 'xml'] as const);
    const headers = draw() < 0.5 ? { veeziaccesstoken: token } : { authorization: `Bearer ${token}` };
    const filmId = pick(FILM_IDS);
    const packageId = pick(PACKAGE_IDS);
    const [url, expected] = pick<[string, unknown]>([
      ['/v4/film', sortedFilms(customer.films)],
      ['/v1/filmpackage', [...customer.packages].sort((a, b) => (a['Id'] as number) - (b['Id'] as number))],
      [`/v4/film/${filmId}`, customer.films.find((film) => film['Id'] === filmId)],
      [`/v1/filmpackage/${packageId}`, customer.packages.find((p) => p['Id'] === packageId)],
    ]);
    const response = await t.app.inject({ method: 'GET', url: `${url}?format=${format}`, headers });
    const context = `${customer.key} ${revoked ? 'revoked ' : ''}${url} ${format}`;

    for (const other of customers) {
      if (other !== customer) assert.ok(!response.body.includes(other.marker), why(`${context} holds a record of ${other.key}`));
    }
    if (revoked) {
      assert.equal(response.statusCode, 401, why(context));
      continue;
    }
    if (expected === undefined) {
      assert.equal(response.statusCode, 404, why(context));
      continue;
    }
    assert.equal(response.statusCode, 200, why(context));
    const value = format === 'json' ? response.json() : parseXmlAnswer(response.body).value;
    assert.deepEqual(value, expected, why(context));
    answered++;
  }
  assert.ok(answered > REQUESTS / 8, why(`only ${answered} requests were answered with records`));
});
