import assert from 'node:assert/strict';
import { cp, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { DEMO, ROOT, emptyDatabase, exportCatalogue, freshDatabase, runCli, runNode, serve, tempDir } from './helpers.js';

type Json = Record<string, unknown>;

const GENERATOR = join(ROOT, 'dist', 'scripts', 'generate-catalogue.js');
const CUSTOMERS = ['cinema-0001', 'cinema-0002', 'cinema-0003'];
const FILMS = 60;
/** The generator's default: a package per 50 films, rounded up. */
const PACKAGES = 2;

let tree: string;

before(async () => {
  tree = join(await tempDir(), 'customers');
  const result = await runNode([GENERATOR, '--customers', String(CUSTOMERS.length), '--films', String(FILMS), '--out', tree]);
  assert.equal(result.status, 0, result.stderr);
  assert.match(result.stdout, new RegExp(`^Wrote ${FILMS} films for each of 3 customers \\(cinema-0001 to cinema-0003\\) under .* in [\\d.]+ s\\.$`, 'm'));
});

/** The films and packages of a customer, as `marquee export` writes them. */
async function exported(database: string, customer: string): Promise<{ films: Json[]; packages: Json[] }> {
  const out = join(await tempDir(), customer);
  const result = await runCli(['export', '--database', database, '--customer', customer, '--out', out]);
  assert.equal(result.status, 0, result.stderr);
  const read = async (name: string): Promise<Json[]> => JSON.parse(await readFile(join(out, `${name}.json`), 'utf8')) as Json[];
  return { films: await read('films'), packages: await read('filmpackages') };
}

describe('provisioning many customers', () => {
  test('the generator writes a folder of catalogue files per customer, each catalogue its own', async () => {
    assert.deepEqual((await readdir(tree)).sort(), CUSTOMERS);
    const titles = new Set<string>();
    for (const customer of CUSTOMERS) {
      assert.deepEqual((await readdir(join(tree, customer))).sort(), ['filmpackages.json', 'films.json']);
      const films = JSON.parse(await readFile(join(tree, customer, 'films.json'), 'utf8')) as Json[];
      assert.equal(films.length, FILMS);
      titles.add(films.map((film) => film['Title']).join());
    }
    assert.equal(titles.size, CUSTOMERS.length, 'no two customers have the same films');
  });

  test('import --customers-from loads every customer, says how far it got, and a second run changes nothing', async () => {
    const database = await freshDatabase();
    const result = await runCli(['import', '--database', database, '--customers-from', tree]);
    assert.equal(result.status, 0, result.stderr);
    for (const [index] of CUSTOMERS.entries()) {
      assert.match(result.stderr, new RegExp(`^progress: ${index + 1}/3 customers, ${(index + 1) * FILMS} films, [\\d.]+ s, \\d+ customers/s$`, 'm'));
    }
    assert.match(result.stdout, new RegExp(`^Imported 3 of 3 customers \\(${3 * FILMS} films, ${3 * PACKAGES} packages\\) from .*customers in [\\d.]+ s\\.$`, 'm'));
    for (const customer of CUSTOMERS) {
      const { films, packages } = await exported(database, customer);
      const written = JSON.parse(await readFile(join(tree, customer, 'films.json'), 'utf8')) as Json[];
      assert.deepEqual(new Set(films.map((film) => film['Title'])), new Set(written.map((film) => film['Title'])), customer);
      assert.equal(packages.length, PACKAGES, customer);
    }
    assert.equal((await exportCatalogue(database)).films, '[]', 'no other customer is touched');

    const again = await runCli(['import', '--database', database, '--customers-from', tree, '--dry-run', '--replace']);
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stdout, /^Checked 3 of 3 customers/);
  });

  test('a customer whose files fail is reported and left as it was; the others import', async () => {
    const broken = join(await tempDir(), 'broken');
    await cp(tree, broken, { recursive: true });
    const films = JSON.parse(await readFile(join(broken, 'cinema-0002', 'films.json'), 'utf8')) as Json[];
    await writeFile(join(broken, 'cinema-0002', 'films.json'), JSON.stringify([...films.slice(1), { ...films[0], ShortName: 'Far too long' }]));
    await mkdir(join(broken, 'cinema-0004'));

    const database = await freshDatabase();
    assert.equal((await runCli(['import', '--database', database, '--customer', 'cinema-0002', DEMO])).status, 0);
    const demo = await exportCatalogue(database);
    const before = await exported(database, 'cinema-0002');

    const result = await runCli(['import', '--database', database, '--customers-from', broken, '--replace']);
    assert.equal(result.status, 1, result.stderr);
    assert.match(result.stderr, new RegExp(`cinema-0002/films\\.json: record ${FILMS} \\(id "GEN0000000"\\): ShortName: must be at most 10 characters`));
    assert.match(result.stderr, /^marquee: customer 'cinema-0002': the import has 1 problem; nothing was changed$/m);
    assert.match(result.stderr, /^marquee: customer 'cinema-0004': import: .*cinema-0004 holds no \.json or \.xml file; nothing was changed$/m);
    assert.match(result.stdout, new RegExp(`^Imported 2 of 4 customers \\(${2 * FILMS} films, ${2 * PACKAGES} packages\\) .*; 2 failed, left as they were: cinema-0002, cinema-0004\\.$`, 'm'));
    assert.deepEqual(await exported(database, 'cinema-0002'), before);
    assert.deepEqual(await exportCatalogue(database), demo);
    for (const customer of ['cinema-0001', 'cinema-0003']) assert.equal((await exported(database, customer)).films.length, FILMS, customer);
  });

  test('a folder not named by a customer key stops the import before any customer; wrong flags are refused', async () => {
    const misnamed = join(await tempDir(), 'misnamed');
    await cp(tree, misnamed, { recursive: true });
    await mkdir(join(misnamed, 'Odeon Leeds'));
    const database = await freshDatabase();
    const refused = await runCli(['import', '--database', database, '--customers-from', misnamed]);
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /^marquee: .*misnamed: the folder 'Odeon Leeds' is not named by a customer key \(1 to 64 of a-z, 0-9 and -\); nothing was changed\n$/);
    assert.equal((await exportCatalogue(database, 'json', 'cinema-0001')).films, '[]');

    const cases: [string[], RegExp][] = [
      [['--customers-from', tree, '--customer', 'cinema-0001'], /^marquee: import: give --customer or --customers-from, not both$/],
      [['--customers-from', tree, DEMO], /^marquee: import: --customers-from takes each customer's files from its folder; name no FILE or DIR besides, got .*demo$/],
      [['--customers-from', tree, '--json'], /^marquee: import: --json reports on one customer; it cannot be given with --customers-from$/],
      [['--customers-from'], /^marquee: import: --customers-from needs a value$/],
    ];
    for (const [args, message] of cases) {
      const result = await runCli(['import', '--database', database, ...args]);
      assert.equal(result.status, 2, args.join(' '));
      assert.match(result.stderr.trim(), message, args.join(' '));
    }
    const missing = await runCli(['import', '--database', database, '--customers-from', join(misnamed, 'absent')]);
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /absent: no such directory; nothing was changed/);
    assert.match((await runCli(['import', '--help'])).stdout, /--customers-from DIR\s+import a catalogue per customer/);
  });

  test('token create --customers-from issues a token per customer, each seeing its own catalogue', async () => {
    const database = await freshDatabase();
    assert.equal((await runCli(['import', '--database', database, '--customers-from', tree])).status, 0);
    const keys = join(await tempDir(), 'keys.txt');
    await writeFile(keys, `# the three new cinemas\n${CUSTOMERS[0]}\n\n${CUSTOMERS[1]}\r\n${CUSTOMERS[2]}\n`);
    const issued = await runCli(['token', 'create', '--database', database, '--customers-from', keys, '--label', 'provisioned']);
    assert.equal(issued.status, 0, issued.stderr);
    const lines = issued.stdout.trim().split('\n').map((line) => line.split('\t'));
    assert.deepEqual(lines.map(([customer]) => customer), CUSTOMERS);
    for (const [, token] of lines) assert.match(token ?? '', /^mq_[A-Za-z0-9_-]{43}$/);
    assert.match(issued.stderr, /^Issued 3 tokens, ids 1 to 3\. Keep them now: they cannot be shown again\.\n$/);

    const fromStdin = await runCli(['token', 'create', '--database', database, '--customers-from', '-'], {}, 'odeon-leeds\n');
    assert.equal(fromStdin.status, 0, fromStdin.stderr);
    assert.match(fromStdin.stdout, /^odeon-leeds\tmq_[A-Za-z0-9_-]{43}\n$/);
    assert.match(fromStdin.stderr, /warning: 1 of these customers have no catalogue yet \(odeon-leeds\)/);

    const listed = JSON.parse((await runCli(['token', 'list', '--json', '--database', database])).stdout) as Json[];
    assert.deepEqual(listed.map((token) => [token['id'], token['customer'], token['label']]), [
      [1, CUSTOMERS[0], 'provisioned'],
      [2, CUSTOMERS[1], 'provisioned'],
      [3, CUSTOMERS[2], 'provisioned'],
      [4, 'odeon-leeds', null],
    ]);

    const server = await serve(['--database', database]);
    for (const [customer, token] of lines) {
      const response = await fetch(`${server.url}/v4/film`, { headers: { veeziaccesstoken: token ?? '' } });
      assert.equal(response.status, 200, customer);
      const films = (await response.json()) as Json[];
      const written = JSON.parse(await readFile(join(tree, customer ?? '', 'films.json'), 'utf8')) as Json[];
      assert.deepEqual(new Set(films.map((film) => film['Title'])), new Set(written.map((film) => film['Title'])), customer);
    }
  });

  test('token create --customers-from with a line that is no key issues nothing, naming the line', async () => {
    const database = await emptyDatabase();
    const keys = join(await tempDir(), 'keys.txt');
    await writeFile(keys, 'cinema-0001\n# next: a typo\nCinema_0002\ncinema-0003\n');
    const result = await runCli(['token', 'create', '--database', database, '--customers-from', keys]);
    assert.equal(result.status, 1);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /^marquee: .*keys\.txt: line 3: "Cinema_0002" is not a customer key \(1 to 64 of a-z, 0-9 and -\); nothing was changed\n$/);
    assert.match((await runCli(['token', 'list', '--database', database])).stdout, /^No token was ever issued/);

    const both = await runCli(['token', 'create', '--database', database, '--customers-from', keys, '--customer', 'cinema-0001']);
    assert.equal(both.status, 2);
    assert.equal(both.stderr, 'marquee: token create: give --customer or --customers-from, not both\n');
  });
});
