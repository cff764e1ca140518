import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { DEMO, demoDatabase, exportCatalogue, runCli, tempDir, type CliResult } from './helpers.js';

type Json = Record<string, unknown>;

let demoFilms: Json[];
let work: string;

before(async () => {
  demoFilms = JSON.parse(await readFile(join(DEMO, 'films.json'), 'utf8')) as Json[];
  work = await tempDir();
});

/**
 * Imports with a heap of 48 MB (the demo needs less than 32): a reader that held the input
 * whole, or every problem of it, would die of it and fail the test.
 */
async function importSmall(database: string, args: readonly string[]): Promise<CliResult & { seconds: number }> {
  const started = performance.now();
  const result = await runCli(['import', '--database', database, ...args], { NODE_OPTIONS: '--max-old-space-size=48' });
  return { ...result, seconds: (performance.now() - started) / 1000 };
}

/** Asserts a refusal in one clear line (no stack trace) that matches `expected`. */
function assertRefused(result: CliResult, expected: RegExp): void {
  assert.equal(result.status, 1, result.stderr);
  assert.match(result.stderr, expected);
  assert.doesNotMatch(result.stderr, /\n\s+at |heap/i);
}

async function write(name: string, content: string | Buffer): Promise<string> {
  const file = join(work, name);
  await writeFile(file, content);
  return file;
}

describe('import of hostile input', () => {
  test('nesting 100,000 deep is refused at once, naming the file, and the line in XML', async () => {
    const database = await demoDatabase();
    const before = await exportCatalogue(database);
    const depth = 100_000;
    const xml = await write('deep.xml', `<ArrayOfFilm>\n<Film>${'<People>'.repeat(depth)}${'</People>'.repeat(depth)}</Film></ArrayOfFilm>`);
    const json = await write('deep.json', `[${'['.repeat(depth)}${']'.repeat(depth)}]`);
    for (const [file, expected] of [
      [xml, /deep\.xml: record 1, line 2: elements nested deeper than 32 levels; nothing was changed/],
      [json, /deep\.json: record 1: nested deeper than 32 levels; nothing was changed/],
    ] as const) {
      const result = await importSmall(database, [file]);
      assertRefused(result, expected);
      // Minutes before the limit existed (saxes) or a stack overflow (JSON); well under a second now.
      assert.ok(result.seconds < 30, `${file}: ${result.seconds} s`);
    }
    assert.deepEqual(await exportCatalogue(database), before);
  });

  test('XML in UTF-16 is read; any other encoding, and bytes that are not UTF-8, are refused by name', async () => {
    const database = await demoDatabase();
    const before = await exportCatalogue(database);
    const film = (title: string): string =>
      `<Film><Id>ENC-1</Id><Title>${title}</Title><LastModifiedDate>2024-01-01T00:00:00</LastModifiedDate><Status>Active</Status>` +
      '<Duration>90</Duration><DisplaySequence>1</DisplaySequence><Format>2D Film</Format><IsRestricted>false</IsRestricted></Film>';
    const latin1 = await write('latin1.xml', Buffer.from(`<?xml version="1.0" encoding="ISO-8859-1"?>${film('Café')}`, 'latin1'));
    const undeclared = await write('undeclared.xml', Buffer.from(`<ArrayOfFilm>\n${film('Café')}</ArrayOfFilm>`, 'latin1'));
    const json = await write('latin1.json', Buffer.from(JSON.stringify([{ ...demoFilms[0], Title: 'Café' }]), 'latin1'));
    const utf16Json = await write('utf16.json', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(JSON.stringify(demoFilms), 'utf16le')]));
    for (const [file, expected] of [
      [latin1, /latin1\.xml: is encoded in ISO-8859-1, as its XML declaration says; import reads XML in UTF-8, or in UTF-16 with a byte-order mark: convert it first, such as with iconv -f ISO-8859-1 -t UTF-8; nothing was changed/],
      [undeclared, /undeclared\.xml: line 1: not valid UTF-8 \(on this line or after it\)/],
      [json, /latin1\.json: record 1: not valid UTF-8/],
      [utf16Json, /utf16\.json: is encoded in UTF-16LE \(it starts with its byte-order mark\); JSON must be UTF-8/],
    ] as const) {
      assertRefused(await importSmall(database, [file]), expected);
    }
    assert.deepEqual(await exportCatalogue(database), before);

    const utf16 = await write('utf16.xml', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`<?xml version="1.0" encoding="utf-16"?>${film('Café Noël')}`, 'utf16le')]));
    const imported = await importSmall(database, [utf16]);
    assert.equal(imported.status, 0, imported.stderr);
    const films = JSON.parse((await exportCatalogue(database)).films) as Json[];
    assert.equal(films.find((f) => f['Id'] === 'ENC-1')?.['Title'], 'Café Noël');
  });

  test('a record is what its properties say: a number Id where a film is expected, or a record of no resource, is refused', async () => {
    const database = await demoDatabase();
    const before = await exportCatalogue(database);
    const films = await write('films.json', JSON.stringify([demoFilms[1], { ...demoFilms[0], Id: 123 }, { Id: 124, Title: 'Short', Status: 'Active' }]));
    const mixed = await write('mixed.json', JSON.stringify([demoFilms[3], { Id: 7, Title: 'Package', Status: 'Active', Films: [] }, { Nickname: 'Nobody' }, { ...demoFilms[2], Films: [] }]));
    const xml = await write('packages.xml', '<ArrayOfFilmPackage><Film><Id>X</Id></Film></ArrayOfFilmPackage>');
    const result = await importSmall(database, [films, mixed, xml]);
    assert.equal(result.status, 1);
    for (const expected of [
      /films\.json: record 2: Id: must be a string, got 123/,
      // Id, Title and Status alone could be either: the file's first record makes it a list of films.
      /films\.json: record 3: Id: must be a string, got 124/,
      /films\.json: record 3: LastModifiedDate: is required/,
      /mixed\.json: record 2: is a film package in a list of films, got \{"Id":7,/,
      /mixed\.json: record 3: fits no resource: it has none of the properties of a film, a film package, a screen, an attribute, a site or a session, got \{"Nickname":"Nobody"\}/,
      /mixed\.json: record 4: fits no resource: it has properties of a film \(Synopsis, Genre, SignageText, …\) and of a film package \(Films\)/,
      /packages\.xml: record 1: fits no resource: <ArrayOfFilmPackage> lists <FilmPackage> elements, got "<Film>"/,
    ]) {
      assert.match(result.stderr, expected);
    }
    assert.match(result.stderr, /the import has 11 problems; nothing was changed/);
    assert.deepEqual(await exportCatalogue(database), before);
  });

  test('a million invalid records: the first problems are listed and all are counted, in bounded memory', async () => {
    const database = await demoDatabase();
    const before = await exportCatalogue(database);
    const file = await write('million.json', `[${Array<string>(1_000_000).fill('"x"').join(',')}]`);
    const result = await importSmall(database, ['--max-problems', '3', file]);
    assert.equal(result.status, 1, result.stderr);
    assert.deepEqual(result.stderr.trim().split('\n').filter((line) => !line.startsWith('progress:')), [
      `${file}: record 1: must be an object, got "x"`,
      `${file}: record 2: must be an object, got "x"`,
      `${file}: record 3: must be an object, got "x"`,
      '… and 999,997 more problems',
      'marquee: the import has 1,000,000 problems; nothing was changed',
    ]);

    const json = await importSmall(database, ['--json', '--max-problems', '1', await write('three.json', '["a","b","c"]')]);
    const report = JSON.parse(json.stdout) as { problems: Json[]; problemCount: number };
    assert.equal(report.problems.length, 1);
    assert.equal(report.problemCount, 3);
    assert.deepEqual(await exportCatalogue(database), before);
  });

  test('a 100 MB value is refused without being held, naming file and record', async () => {
    const database = await demoDatabase();
    const before = await exportCatalogue(database);
    const huge = 'a'.repeat(100 * 2 ** 20);
    const json = await write('huge.json', `[${JSON.stringify(demoFilms[0])},${JSON.stringify({ ...demoFilms[1], Synopsis: huge })}]`);
    const xml = await write('huge.xml', `<ArrayOfFilm>\n<Film>\n<Id>H</Id>\n<Synopsis>${huge}</Synopsis></Film></ArrayOfFilm>`);
    assertRefused(await importSmall(database, [json]), /huge\.json: record 2: a value longer than 1,048,576 characters; nothing was changed/);
    assertRefused(await importSmall(database, [xml]), /huge\.xml: record 1, line 4: a text, comment or tag longer than 1,048,576 characters; nothing was changed/);
    assert.deepEqual(await exportCatalogue(database), before);
  });
});
