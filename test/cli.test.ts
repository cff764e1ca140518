import assert from 'node:assert/strict';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { DEMO, demoDatabase, exportCatalogue, freshDatabase, ROOT, runCli, tempDir } from './helpers.js';

type Json = Record<string, unknown>;

let demoFilms: Json[];
let demoPackages: Json[];
let work: string;

before(async () => {
  demoFilms = JSON.parse(await readFile(join(DEMO, 'films.json'), 'utf8')) as Json[];
  demoPackages = JSON.parse(await readFile(join(DEMO, 'filmpackages.json'), 'utf8')) as Json[];
  work = await tempDir();
});

async function writeJson(name: string, value: unknown): Promise<string> {
  const file = join(work, name);
  await writeFile(file, JSON.stringify(value));
  return file;
}


describe('marquee import', () => {
  test('loads films and packages from one call and says how many', async () => {
    const database = await freshDatabase();
    const result = await runCli(['import', '--database', database, join(DEMO, 'filmpackages.json'), join(DEMO, 'films.json')]);
    assert.equal(result.status, 0, result.stderr);
    assert.match(
      result.stdout,
      new RegExp(`^Imported ${demoFilms.length} films and ${demoPackages.length} packages for customer 'default' in [\\d.]+ s \\(\\d+ records/s\\): films ${demoFilms.length} added, 0 changed, 0 removed, 0 unchanged; packages ${demoPackages.length} added, 0 changed, 0 removed, 0 unchanged; catalogue version 1\\.$`, 'm'),
    );
    const { films } = await exportCatalogue(database);
    assert.equal((JSON.parse(films) as unknown[]).length, demoFilms.length);
  });

  test('refuses a film whose ShortName has 11 characters, naming film and field, and changes nothing', async () => {
    const database = await demoDatabase();
    const before = await exportCatalogue(database);
    const bad: Json = { ...demoFilms[0], Title: 'Changed', ShortName: 'Nosferatu!!' };
    const result = await runCli(['import', '--database', database, await writeJson('short-name.json', [demoFilms[1], bad])]);
    assert.equal(result.status, 1);
    assert.match(result.stderr, new RegExp(`short-name\\.json: record 2 \\(id "${String(bad['Id'])}"\\): ShortName: must be at most 10 characters \\(has 11\\), got "Nosferatu!!"`));
    assert.match(result.stderr, /nothing was changed/);
    assert.deepEqual(await exportCatalogue(database), before);
  });

  test('reports every problem of every file, with file, record, id, field and rule', async () => {
    const database = await demoDatabase();
    const before = await exportCatalogue(database);
    const films = await writeJson('films.json', [
      { ...demoFilms[0], Status: 'Showing' },
      { ...demoFilms[1], Duration: -5, OpeningDate: '2023-02-29T00:00:00' },
      { ...demoFilms[2], Id: demoFilms[0]?.['Id'] },
      'not a record',
    ]);
    const packages = await writeJson('packages.json', { Id: 99, Title: 'Ghosts', Status: 'Active', Films: [{ FilmId: 'NO-SUCH-FILM', Title: 'Ghost', SplitPercent: 100.0000001, TrailerDuration: 0, CleanUpDuration: 0, Order: 1 }] });
    const result = await runCli(['import', '--database', database, films, packages]);
    assert.equal(result.status, 1);
    const lines = result.stderr.trim().split('\n');
    for (const expected of [
      /films\.json: record 1 .*Status: must be one of 'Active', 'Inactive', 'Deleted', got "Showing"/,
      /films\.json: record 2 .*Duration: must be an integer from 0/,
      /films\.json: record 2 .*OpeningDate: must be a real date-time/,
      /films\.json: record 3 .*Id: must be unique, but record 1 of .*films\.json has it too/,
      /films\.json: record 4: must be an object, got "not a record"/,
      /packages\.json: record 1 \(id "99"\): Films\[1\]\.SplitPercent: must be a number from 0 to 100 with at most six decimals, got 100\.0000001/,
    ]) {
      assert.ok(lines.some((line) => expected.test(line)), `${expected} in\n${result.stderr}`);
    }
    assert.match(result.stderr, /the import has 6 problems; nothing was changed/);
    assert.deepEqual(await exportCatalogue(database), before);
  });

  test('a package must name a film of the catalogue, in the same import or already stored', async () => {
    const database = await demoDatabase();
    const ghost = await writeJson('ghost.json', { Id: 98, Title: 'Ghost', Status: 'Active', Films: [{ FilmId: 'NO-SUCH-FILM', Title: 'Ghost', SplitPercent: 100, TrailerDuration: 0, CleanUpDuration: 0, Order: 1 }] });
    const refused = await runCli(['import', '--database', database, ghost]);
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /ghost\.json: record 1 \(id "98"\): Films\[1\]\.FilmId: must name a film of the catalogue, got "NO-SUCH-FILM"/);
    const existing = await writeJson('existing.json', { Id: 98, Title: 'Reprise', Status: 'Active', Films: [{ FilmId: demoFilms[0]?.['Id'], Title: 'x', SplitPercent: 60, TrailerDuration: 0, CleanUpDuration: 0, Order: 1 }] });
    const merged = await runCli(['import', '--database', database, existing]);
    assert.equal(merged.status, 0, merged.stderr);
    assert.match(merged.stderr, /warning: .*existing\.json: record 1 \(id "98"\): Films: SplitPercent values should add up to 100, got 60\.000000/);
  });

  test('merges by id by default; --replace makes the catalogue exactly the input', async () => {
    const database = await demoDatabase();
    const changed: Json = { ...demoFilms[0], Title: 'Nosferatu (restored)' };
    const added = { ...demoFilms[0], Id: 'NEW-1', DisplaySequence: 1000 };
    assert.equal((await runCli(['import', '--database', database, await writeJson('merge.json', [changed, added])])).status, 0);
    let films = JSON.parse((await exportCatalogue(database)).films) as Json[];
    assert.equal(films.length, demoFilms.length + 1);
    assert.equal(films.find((film) => film['Id'] === changed['Id'])?.['Title'], 'Nosferatu (restored)');
    assert.equal(films.at(-1)?.['Id'], 'NEW-1');

    const replaced = await runCli(['import', '--database', database, '--replace', await writeJson('only.json', added)]);
    assert.equal(replaced.status, 0, replaced.stderr);
    const after = await exportCatalogue(database);
    films = JSON.parse(after.films) as Json[];
    assert.deepEqual(films.map((film) => film['Id']), ['NEW-1']);
    assert.equal(after['filmpackages'], '[]');
  });

  test('counts what changed, skips a version bump when nothing did, and --dry-run writes nothing', async () => {
    const database = await demoDatabase();
    const same = await runCli(['import', '--database', database, DEMO]);
    assert.match(
      same.stdout,
      /films 0 added, 0 changed, 0 removed, 36 unchanged; packages 0 added, 0 changed, 0 removed, 8 unchanged; screens 0 added, 0 changed, 0 removed, 3 unchanged; attributes 0 added, 0 changed, 0 removed, 8 unchanged; site 0 added, 0 changed, 0 removed, 1 unchanged; sessions 0 added, 0 changed, 0 removed, 112 unchanged; nothing changed\.$/m,
    );

    const before = await exportCatalogue(database);
    const changed: Json = { ...demoFilms[0], Title: 'Retitled' };
    const input = await writeJson('dry.json', [changed, { ...demoFilms[0], Id: 'BRAND-NEW' }]);
    const dryRun = await runCli(['import', '--database', database, '--dry-run', '--replace', input]);
    assert.equal(dryRun.status, 0, dryRun.stderr);
    assert.match(dryRun.stdout, /^Checked 2 films and 0 packages .*: films 1 added, 1 changed, 35 removed, 0 unchanged; packages 0 added, 0 changed, 8 removed, 0 unchanged; screens 0 added, 0 changed, 3 removed, 0 unchanged; .* sessions 0 added, 0 changed, 112 removed, 0 unchanged; nothing was written\.$/m);
    assert.deepEqual(await exportCatalogue(database), before);

    const refused = await runCli(['import', '--database', database, '--dry-run', await writeJson('dry-bad.json', { ...changed, Status: 'Gone' })]);
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /Status: must be one of/);
  });

  test('--json prints a machine-readable report, for success and for problems', async () => {
    const database = await freshDatabase();
    const ok = await runCli(['import', '--database', database, '--json', DEMO]);
    assert.equal(ok.status, 0, ok.stderr);
    const report = JSON.parse(ok.stdout) as Json;
    assert.equal(report['ok'], true);
    assert.deepEqual(report['films'], { added: demoFilms.length, changed: 0, unchanged: 0, removed: 0 });
    assert.equal(report['version'], 1);
    assert.equal(report['written'], true);

    const bad = await runCli(['import', '--database', database, '--json', await writeJson('json-bad.json', [{ ...demoFilms[0], ShortName: 'Nosferatu!!', Duration: -1 }])]);
    assert.equal(bad.status, 1);
    const problems = (JSON.parse(bad.stdout) as { ok: boolean; problems: Json[] }).problems;
    assert.deepEqual(problems.map((p) => [p['record'], p['id'], p['field']]), [[1, demoFilms[0]?.['Id'], 'ShortName'], [1, demoFilms[0]?.['Id'], 'Duration']]);
    assert.match(String(problems[0]?.['file']), /json-bad\.json$/);
    assert.equal(problems[0]?.['value'], '"Nosferatu!!"');
    assert.match(String(problems[0]?.['rule']), /at most 10 characters/);

    const missing = await runCli(['import', '--database', database, '--json', join(work, 'absent.json')]);
    assert.equal(missing.status, 1);
    assert.match((JSON.parse(missing.stdout) as Json)['error'] as string, /absent\.json: no such file/);
  });

  test('names a missing file or unreadable input plainly, with no stack trace', async () => {
    const database = await demoDatabase();
    const before = await exportCatalogue(database);
    const cases: [string, string, RegExp][] = [
      ['missing', join(work, 'no-such.json'), /no-such\.json: no such file; nothing was changed/],
      ['empty', await writeJson('blank.json', ''), /blank\.json: the file is empty/],
      ['broken JSON', join(work, 'broken.json'), /broken\.json: not valid JSON/],
      ['broken XML', join(work, 'broken.xml'), /broken\.xml: not well-formed XML/],
      ['unknown XML root', join(work, 'root.xml'), /root\.xml: unknown root element <Cinema>/],
      ['a scalar', await writeJson('scalar.json', 42), /scalar\.json: expected a JSON object or an array of objects/],
    ];
    await writeFile(join(work, 'blank.json'), '  \n');
    await writeFile(join(work, 'broken.json'), '[{"Id": "x",');
    await writeFile(join(work, 'broken.xml'), '<ArrayOfFilm><Film><Id>x</Id></ArrayOfFilm>');
    await writeFile(join(work, 'root.xml'), '<Cinema/>');
    for (const [name, file, expected] of cases) {
      const result = await runCli(['import', '--database', database, file]);
      assert.equal(result.status, 1, name);
      assert.match(result.stderr, expected, name);
      assert.equal(result.stderr.trim().split('\n').length, 1, `${name}: one line\n${result.stderr}`);
      assert.doesNotMatch(result.stderr, /\n\s+at /, name);
    }
    assert.deepEqual(await exportCatalogue(database), before);
    // A database where no directory can be made: under /proc, Node's own making of parents never ends.
    for (const [place, expected] of [['/proc/marquee-nothing/x.db', /ENOENT.*'\/proc\/marquee-nothing'/], [join(work, 'broken.json', 'x.db'), /broken\.json is a file, not a directory/]] as const) {
      const result = await runCli(['import', '--database', place, join(DEMO, 'films.json')]);
      assert.equal(result.status, 1, place);
      assert.match(result.stderr, expected, place);
    }
  });

  test('reads XML in the API\'s own shape, list or single record', async () => {
    const database = await demoDatabase();
    const xml = await exportCatalogue(database, 'xml');
    const dir = await tempDir();
    for (const [name, text] of Object.entries(xml)) await writeFile(join(dir, `${name}.xml`), text);
    const copy = await freshDatabase();
    const result = await runCli(['import', '--database', copy, dir]);
    assert.equal(result.status, 0, result.stderr);
    assert.deepEqual(await exportCatalogue(copy), await exportCatalogue(database));

    const single = '<Film xmlns="urn:any" xmlns:i="http://www.w3.org/2001/XMLSchema-instance"><Duration>90</Duration><Id>X1</Id>' +
      '<IsRestricted>true</IsRestricted><DisplaySequence>5</DisplaySequence><Format>2D Film</Format><LastModifiedDate>2024-01-01T00:00:00</LastModifiedDate>' +
      '<Status>Active</Status><Synopsis>One&#xD;\nTwo</Synopsis><Title>X &amp; Y</Title><OpeningDate i:nil="true"/></Film>';
    await writeFile(join(dir, 'single.xml'), single);
    assert.equal((await runCli(['import', '--database', copy, join(dir, 'single.xml')])).status, 0);
    const film = (JSON.parse((await exportCatalogue(copy)).films) as Json[]).find((f) => f['Id'] === 'X1');
    assert.equal(film?.['Title'], 'X & Y');
    assert.equal(film?.['Synopsis'], 'One\r\nTwo');
    assert.equal(film?.['IsRestricted'], true);
    assert.equal(film?.['ShortName'], null);
    assert.deepEqual(film?.['People'], []);

    // Text in CDATA sections is text; a directory named as a file in the directory imported is passed over.
    const cdata = join(dir, 'more');
    await mkdir(join(cdata, 'not-a-file.xml'), { recursive: true });
    await writeFile(join(cdata, 'cdata.xml'), single.replace('<Title>X &amp; Y</Title>', '<Title>Tom <![CDATA[& Jerry <3]]></Title>').replace('X1', 'X2'));
    const withCdata = await runCli(['import', '--database', copy, cdata]);
    assert.equal(withCdata.status, 0, withCdata.stderr);
    assert.equal((JSON.parse((await exportCatalogue(copy)).films) as Json[]).find((f) => f['Id'] === 'X2')?.['Title'], 'Tom & Jerry <3');
  });
});

describe('marquee export', () => {
  test('writes files that import --replace reads back to the identical catalogue, in JSON and XML', async () => {
    const database = await demoDatabase();
    for (const format of ['json', 'xml']) {
      const out = join(await tempDir(), 'out');
      assert.equal((await runCli(['export', '--database', database, '--out', out, '--format', format])).status, 0);
      const copy = await freshDatabase();
      const result = await runCli(['import', '--database', copy, '--replace', out]);
      assert.equal(result.status, 0, result.stderr);
      assert.deepEqual(await exportCatalogue(copy, 'json'), await exportCatalogue(database, 'json'), format);
      assert.deepEqual(await exportCatalogue(copy, 'xml'), await exportCatalogue(database, 'xml'), format);
    }
  });

  test('leaves in DIR only what this export wrote, so a list emptied since, or the other format, is not read back', async () => {
    const database = await demoDatabase();
    const out = join(await tempDir(), 'out');
    await mkdir(out);
    await writeFile(join(out, 'notes.txt'), 'kept');
    assert.equal((await runCli(['export', '--database', database, '--out', out])).status, 0);
    assert.equal((await runCli(['import', '--database', database, '--replace', join(DEMO, 'screens.json')])).status, 0);
    const again = await runCli(['export', '--database', database, '--out', out]);
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stdout, / 0 site /);
    assert.deepEqual((await readdir(out)).sort(), ['attributes.json', 'filmpackages.json', 'films.json', 'notes.txt', 'screens.json', 'sessions.json']);

    // A folder of an export's name is no input, and is left.
    await mkdir(join(out, 'site.xml'));
    const xml = await runCli(['export', '--database', database, '--out', out, '--format', 'xml']);
    assert.equal(xml.status, 0, xml.stderr);
    assert.deepEqual((await readdir(out)).sort(), ['attributes.xml', 'filmpackages.xml', 'films.xml', 'notes.txt', 'screens.xml', 'sessions.xml', 'site.xml']);
    const copy = await demoDatabase();
    const result = await runCli(['import', '--database', copy, '--replace', out]);
    assert.equal(result.status, 0, result.stderr);
    assert.deepEqual(await exportCatalogue(copy), await exportCatalogue(database));
    // Where no folder can be made (under /proc, Node's own making of parents never ends), it fails.
    const nowhere = await runCli(['export', '--database', database, '--out', '/proc/marquee-nothing/out']);
    assert.equal(nowhere.status, 1);
    assert.match(nowhere.stderr, /ENOENT.*'\/proc\/marquee-nothing'/);
  });
});

describe('a command that only reads', () => {
  test('refuses a SQLite database that is not there, naming it, and makes none', async () => {
    const missing = join(await tempDir(), 'typo', 'marquee.db');
    const film = await writeJson('one-film.json', demoFilms[0]);
    for (const args of [
      ['export', '--out', join(work, 'never')],
      ['token', 'list'],
      ['sync', 'status'],
      ['access', 'list', '--customer', 'alpha'],
      ['webhook', 'list'],
      ['webhook', 'deliveries'],
      ['import', '--dry-run', film],
    ]) {
      const result = await runCli([...args, '--database', missing]);
      assert.equal(result.status, 2, args.join(' '));
      assert.equal(result.stderr, `marquee: no database at ${missing} (--database); import creates one\n`, args.join(' '));
    }
    await assert.rejects(stat(join(missing, '..')), { code: 'ENOENT' });
    await assert.rejects(stat(join(work, 'never')), { code: 'ENOENT' });
  });

  test('export refuses a customer the database never held, writing nothing', async () => {
    const database = await demoDatabase();
    const out = join(await tempDir(), 'out');
    const result = await runCli(['export', '--database', database, '--customer', 'alpha', '--out', out]);
    assert.equal(result.status, 1);
    assert.equal(result.stderr, "marquee: export: customer 'alpha' has no catalogue in this database: no import or sync ever wrote one; nothing was written\n");
    await assert.rejects(stat(out), { code: 'ENOENT' });
  });
});

describe('usage errors', () => {
  test('a bad flag, value or variable is one line naming it, with exit status 2', async () => {
    const cases: [string[], NodeJS.ProcessEnv, RegExp][] = [
      [['import', '--bogus', 'x.json'], {}, /^marquee: import: unknown option --bogus$/],
      [['import'], {}, /^marquee: import: name at least one FILE or DIR to import$/],
      [['serve', '--port', 'eighty'], {}, /^marquee: --port must be an integer from 0 to 65535, got 'eighty'$/],
      [['serve', '--port'], {}, /^marquee: serve: --port needs a value$/],
      [['serve'], { PORT: '70000' }, /^marquee: PORT must be an integer from 0 to 65535, got '70000'$/],
      [['serve'], { MARQUEE_LOG_LEVEL: 'loud' }, /^marquee: MARQUEE_LOG_LEVEL must be one of/],
      [['serve', '--database', 'postgres://db host/marquee'], {}, /^marquee: --database must be a valid postgres:\/\/ URL, got 'postgres:\/\/db host\/marquee'$/],
      [['serve'], { MARQUEE_READ_DATABASE: 'sqlite:' }, /^marquee: MARQUEE_READ_DATABASE must name a SQLite file or a postgres:\/\/ URL, got 'sqlite:'$/],
      [['serve'], { MARQUEE_READ_DATABASE: 'mysql://x' }, /^marquee: MARQUEE_READ_DATABASE must name a SQLite file or a postgres:\/\/ URL, got 'mysql:\/\/x'$/],
      [['token', 'list', '--database', 'mysql://x'], {}, /^marquee: --database must name a SQLite file or a postgres:\/\/ URL, got 'mysql:\/\/x'$/],
      [['import', '--database', 'file:/tmp/x.db', 'x.json'], {}, /^marquee: --database must name a SQLite file or a postgres:\/\/ URL, got 'file:\/tmp\/x.db'$/],
      [['import', '--customer', 'Big Cinema', 'x.json'], {}, /^marquee: --customer must be 1 to 64 of a-z, 0-9 and -, got 'Big Cinema'$/],
      [['export', '--out', 'x', '--format', 'csv'], {}, /^marquee: export: --format must be json or xml, got 'csv'$/],
      [['export'], {}, /^marquee: export: --out DIR is required$/],
      [['import', '--dry-run', '--customer', 'alpha', '--customer', 'beta', 'x.json'], {}, /^marquee: import: --customer is given twice; it takes one value$/],
      [['export', '--out', 'a', '--out=b'], {}, /^marquee: export: --out is given twice; it takes one value$/],
      [['serve', '--seed-today'], {}, /^marquee: serve: --seed-today moves the sessions of --seed FILE\|DIR, which is not given$/],
      [['launch'], {}, /^marquee: unknown command 'launch'/],
    ];
    for (const [args, env, expected] of cases) {
      const result = await runCli(args, env);
      assert.equal(result.status, 2, args.join(' '));
      assert.match(result.stderr.trim(), expected, args.join(' '));
      assert.equal(result.stderr.trim().split('\n').length, 1, args.join(' '));
    }
    await assert.rejects(stat(join(ROOT, 'mysql:')), { code: 'ENOENT' });
  });

  test('serve refuses a --read-database that is not there, naming it, and makes none', async () => {
    const dir = await tempDir();
    const result = await runCli(['serve', '--port', '0', '--database', join(dir, 'primary.db'), '--read-database', join(dir, 'typo.db')]);
    assert.equal(result.status, 2);
    assert.equal(result.stderr, `marquee: no database at ${join(dir, 'typo.db')} (--read-database, MARQUEE_READ_DATABASE): it reads the primary or a replica of it\n`);
    await assert.rejects(stat(join(dir, 'typo.db')), { code: 'ENOENT' });
  });

  test('--help describes each command and its settings', async () => {
    const overview = await runCli(['--help']);
    assert.equal(overview.status, 0);
    const commands = [.../^Commands:\n((?: {2}\S.*\n)+)/m.exec(overview.stdout)?.[1]?.matchAll(/^ {2}(\S+)/gm) ?? []].map((match) => match[1] ?? '');
    assert.deepEqual(commands.sort(), ['access', 'export', 'import', 'serve', 'sync', 'token', 'webhook'], overview.stdout);
    const helps = await Promise.all(commands.map(async (command) => ({ command, result: await runCli([command, '--help']) })));
    for (const { command, result } of helps) {
      assert.equal(result.status, 0, `${command} --help: ${result.stderr}`);
      assert.match(result.stdout, new RegExp(`^Usage: marquee ${command}\\b`), command);
      // Every command but those that name their subcommands works on a database and says which.
      if (!['access', 'token', 'webhook'].includes(command)) assert.match(result.stdout, /^ {2}--database D .*\(env MARQUEE_DATABASE\)/m, command);
    }
    const serve = helps.find(({ command }) => command === 'serve')?.result.stdout ?? '';
    for (const flag of ['--database', '--read-database', '--port', '--host', '--xml-namespace', '--cache-control', 'MARQUEE_DATABASE', 'MARQUEE_READ_DATABASE', 'PORT']) assert.match(serve, new RegExp(flag));
    // Each value is named as the usage names it.
    assert.match(helps.find(({ command }) => command === 'export')?.result.stdout ?? '', /^ {2}--out DIR +directory/m);
    assert.match(serve, /^ {2}--seed FILE\|DIR +FILE or DIR/m);
  });
});
