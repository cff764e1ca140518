/**
 * Loading the programme beside films and packages through the command line (CONTRACT §11
 * import rules): every resource in one call, in any order, all or nothing, every problem named.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { wallClockTime } from '../src/catalogue/site-time.js';
import { DEMO, DEMO_FILES, DEMO_ZONE, demoDatabase, demoRecords, exportCatalogue, freshDatabase, runCli, serve, tempDir } from './helpers.js';

type Json = Record<string, unknown>;

let work: string;
let site: Json;
let screens: Json[];
let attributes: Json[];
let sessions: Json[];

before(async () => {
  work = await tempDir();
  [site = {}] = await demoRecords('site');
  screens = await demoRecords('screens');
  attributes = await demoRecords('attributes');
  sessions = await demoRecords('sessions');
});

async function writeJson(name: string, value: unknown): Promise<string> {
  const file = join(work, name);
  await writeFile(file, JSON.stringify(value));
  return file;
}

function session(id: number): Json {
  const found = sessions.find((candidate) => candidate['Id'] === id);
  assert.ok(found, `the demo has session ${id}`);
  return found;
}

/** Asserts that each pattern matches a line of `text`. */
function assertLines(text: string, patterns: readonly RegExp[]): void {
  const lines = text.trim().split('\n');
  for (const pattern of patterns) assert.ok(lines.some((line) => pattern.test(line)), `${pattern} in\n${text}`);
}

describe('marquee import of the programme', () => {
  test('loads films, packages, screens, attributes, the site and sessions in one call, in any order', async () => {
    const database = await freshDatabase();
    const result = await runCli(['import', '--database', database, ...[...DEMO_FILES].reverse()]);
    assert.equal(result.status, 0, result.stderr);
    assert.match(
      result.stdout,
      /films 36 added, .*; packages 8 added, .*; screens 3 added, 0 changed, 0 removed, 0 unchanged; attributes 8 added, .*; site 1 added, .*; sessions 112 added, 0 changed, 0 removed, 0 unchanged; catalogue version 1\.$/m,
    );
    const exported = await exportCatalogue(database);
    assert.deepEqual(Object.keys(exported), ['attributes', 'filmpackages', 'films', 'screens', 'sessions', 'site']);
    assert.deepEqual(JSON.parse(exported['sessions'] ?? ''), sessions.sort((a, b) => String(a['PreShowStartTime']).localeCompare(String(b['PreShowStartTime'])) || (a['Id'] as number) - (b['Id'] as number)));
    assert.deepEqual(JSON.parse(exported['site'] ?? ''), site);
  });

  test('reports every broken rule and reference, with file, record, field and rule, and changes nothing', async () => {
    const database = await demoDatabase();
    const before = await exportCatalogue(database);
    const files = [
      await writeJson('screens.json', [screens[0], { ...screens[1], Id: 1 }, { Id: 4, Name: '', ScreenNumber: '4', HasCustomLayout: 'yes', TotalSeats: -1, HouseSeats: 0, WheelChairSeats: 0 }]),
      await writeJson('attributes.json', { ...attributes[0], Id: 'A1', FontColor: 'red' }),
      await writeJson('site.json', { ...site, Screens: [{ Id: 1 }, { Id: 9 }] }),
      await writeJson('sessions.json', [
        { ...session(1001), FilmId: 'NOPE' },
        { ...session(1002), FilmPackageId: 99 },
        { ...session(1002), Id: 2003, FilmId: 'HO00000101' },
        { ...session(1001), Id: 2004, ScreenId: 9, Attributes: ['0000000001', 'ZZZ'] },
        { ...session(1001), Id: 2005, FeatureStartTime: '2025-01-06T12:00:00', SalesCutOffTime: '2025-01-06T23:00:00' },
        { ...session(1001), Id: 2006, SalesVia: ['WWW', 'WWW'], Seating: 'Standing' },
        { ...session(1001), Id: 2007, FilmId: null },
        { ...session(1001), Id: 2008, Url: 'ftp://tickets.example/1' },
        { ...session(1001), Id: 1002 },
      ]),
    ];
    const result = await runCli(['import', '--database', database, ...files]);
    assert.equal(result.status, 1);
    assertLines(result.stderr, [
      /screens\.json: record 2 \(id "1"\): Id: must be unique, but record 1 of .*screens\.json has it too/,
      /screens\.json: record 3 \(id "4"\): Name: must not be empty/,
      /screens\.json: record 3 \(id "4"\): HasCustomLayout: must be true or false, got "yes"/,
      /screens\.json: record 3 \(id "4"\): TotalSeats: must be an integer from 0/,
      /attributes\.json: record 1 \(id "A1"\): FontColor: must be # and six hex digits, got "red"/,
      /site\.json: record 1: Screens\[2\]\.Id: must name a screen of the catalogue, got 9/,
      /sessions\.json: record 1 \(id "1001"\): FilmId: must name a film of the catalogue, got "NOPE"/,
      /sessions\.json: record 2 \(id "1002"\): FilmPackageId: must name a film package of the catalogue, got 99/,
      /sessions\.json: record 3 \(id "2003"\): FilmId: must be null or one of the films of package 1, got "HO00000101"/,
      /sessions\.json: record 4 \(id "2004"\): ScreenId: must name a screen of the catalogue, got 9/,
      /sessions\.json: record 4 \(id "2004"\): Attributes\[2\]: must name an attribute of the catalogue, got "ZZZ"/,
      /sessions\.json: record 5 \(id "2005"\): FeatureStartTime: must not be before PreShowStartTime \(2025-01-06T13:00:00\), got "2025-01-06T12:00:00"/,
      /sessions\.json: record 5 \(id "2005"\): FeatureEndTime: must not be before SalesCutOffTime \(2025-01-06T23:00:00\)/,
      /sessions\.json: record 6 \(id "2006"\): SalesVia\[2\]: must not repeat an earlier item, got "WWW"/,
      /sessions\.json: record 6 \(id "2006"\): Seating: must be one of 'Allocated', 'Select', 'Open', got "Standing"/,
      /sessions\.json: record 7 \(id "2007"\): FilmId: is required when FilmPackageId is null, got null/,
      /sessions\.json: record 8 \(id "2008"\): Url: must be empty or an absolute http\(s\) URL/,
      /sessions\.json: record 9 \(id "1002"\): Id: must be unique, but record 2 of .*sessions\.json has it too/,
    ]);
    assert.match(result.stderr, /the import has \d+ problems; nothing was changed/);
    assert.deepEqual(await exportCatalogue(database), before);
  });

  test('sessions need a site, and a site a Windows time zone that maps to an IANA zone', async () => {
    const database = await freshDatabase();
    const films = join(DEMO, 'films.json');
    const noSite = await runCli(['import', '--database', database, films, join(DEMO, 'screens.json'), join(DEMO, 'attributes.json'), join(DEMO, 'filmpackages.json'), join(DEMO, 'sessions.json')]);
    assert.equal(noSite.status, 1);
    assertLines(noSite.stderr, [/sessions\.json: record 1 \(id "1001"\): needs the customer's site, whose time zone its times are in; import the site with it, got no site/]);
    const mars = await writeJson('mars.json', { ...site, TimeZoneIdentifier: 'Mars Standard Time', Screens: [] });
    const badZone = await runCli(['import', '--database', database, mars]);
    assert.equal(badZone.status, 1);
    assertLines(badZone.stderr, [/mars\.json: record 1: TimeZoneIdentifier: must be a Windows time zone id that maps to an IANA time zone/]);
    const twoSites = await runCli(['import', '--database', database, await writeJson('two-sites.json', [{ ...site, Screens: [] }, { ...site, ShortName: 'Marquee Picture House', Screens: [{ Id: 1 }, { Id: 1 }] }])]);
    assert.equal(twoSites.status, 1);
    assertLines(twoSites.stderr, [
      /two-sites\.json: record 2: must be the only site, but record 1 of .*two-sites\.json is one too/,
      /two-sites\.json: record 2: ShortName: must be at most 12 characters \(has 21\)/,
      /two-sites\.json: record 2: Screens\[2\]\.Id: must not repeat an earlier screen, got 1/,
    ]);
    assert.deepEqual(await exportCatalogue(database), { films: '[]', filmpackages: '[]', screens: '[]', attributes: '[]', sessions: '[]' });
  });

  test('--replace may not drop a film or screen that a session it keeps names', async () => {
    const database = await demoDatabase();
    const before = await exportCatalogue(database);
    const films = (await demoRecords('films')).filter((film) => film['Id'] !== 'HO00000101');
    const keptScreens = screens.filter((screen) => screen['Id'] !== 3);
    const files = [await writeJson('fewer-films.json', films), await writeJson('fewer-screens.json', keptScreens), ...DEMO_FILES.filter((file) => !/films\.json$|screens\.json$/.test(file))];
    const result = await runCli(['import', '--database', database, '--replace', ...files]);
    assert.equal(result.status, 1);
    assertLines(result.stderr, [
      /sessions\.json: record 1 \(id "1001"\): FilmId: must name a film of the catalogue, got "HO00000101"/,
      /sessions\.json: record \d+ \(id "\d+"\): ScreenId: must name a screen of the catalogue, got 3/,
      /site\.json: record 1: Screens\[3\]\.Id: must name a screen of the catalogue, got 3/,
      /filmpackages\.json: record 2 \(id "2"\): Films\[1\]\.FilmId: must name a film of the catalogue, got "HO00000101"/,
    ]);
    assert.deepEqual(await exportCatalogue(database), before);
    const withoutSessions = await runCli(['import', '--database', database, '--replace', join(DEMO, 'films.json'), join(DEMO, 'screens.json')]);
    assert.equal(withoutSessions.status, 0, withoutSessions.stderr);
    assert.match(withoutSessions.stdout, /site 0 added, 0 changed, 1 removed, 0 unchanged; sessions 0 added, 0 changed, 112 removed, 0 unchanged/);
  });

  test('a merge may not change a package so that a stored session shows a film it no longer has', async () => {
    const database = await demoDatabase();
    const [shown, ...more] = sessions.filter((s) => s['FilmPackageId'] !== null && s['FilmId'] !== null) as [Json, ...Json[]];
    const filmPackage = (await demoRecords('filmpackages')).find((p) => p['Id'] === shown['FilmPackageId']) as Json;
    const changed = { ...filmPackage, Films: (filmPackage['Films'] as Json[]).filter((film) => film['FilmId'] !== shown['FilmId']) };
    const result = await runCli(['import', '--database', database, await writeJson('package.json', changed)]);
    assert.equal(result.status, 1);
    assertLines(result.stderr, [new RegExp(`package\\.json: record 1 \\(id "${String(filmPackage['Id'])}"\\): Films: must keep the film that session ${String(shown['Id'])} shows, got "${String(shown['FilmId'])}"`)]);
    const sessionsToo = [shown, ...more].map((s) => ({ ...s, FilmId: null }));
    const withSessions = await runCli(['import', '--database', database, await writeJson('package-and-session.json', changed), await writeJson('session.json', sessionsToo)]);
    assert.equal(withSessions.status, 0, withSessions.stderr);
    assert.match(withSessions.stdout, new RegExp(`packages 0 added, 1 changed, .*sessions 0 added, ${sessionsToo.length} changed, 0 removed, 0 unchanged`));
  });

  test('reads each resource in XML, one record or a list; warns of a sold-out session with seats; --dry-run writes nothing', async () => {
    const database = await demoDatabase();
    const xml = await exportCatalogue(database, 'xml');
    const first = (list: string, element: string): string => {
      const match = new RegExp(`<${element}>.*?</${element}>`).exec(list);
      assert.ok(match, `a <${element}> in the list`);
      return match[0].replace(`<${element}>`, `<${element} xmlns="urn:any" xmlns:i="http://www.w3.org/2001/XMLSchema-instance">`);
    };
    const dir = await tempDir();
    const single = { screen: first(xml['screens'] ?? '', 'Screen'), attribute: first(xml['attributes'] ?? '', 'Attribute'), session: first(xml['sessions'] ?? '', 'Session'), site: xml['site'] ?? '' };
    single.session = single.session.replace(/<SeatsAvailable>\d+<\/SeatsAvailable>/, '<SeatsAvailable>5</SeatsAvailable>').replace('<TicketsSoldOut>false<', '<TicketsSoldOut>true<');
    for (const [name, text] of Object.entries(single)) await writeFile(join(dir, `${name}.xml`), text);
    const before = await exportCatalogue(database);
    const dryRun = await runCli(['import', '--database', database, '--dry-run', dir]);
    assert.equal(dryRun.status, 0, dryRun.stderr);
    assert.match(dryRun.stderr, /warning: .*session\.xml: record 1 \(id "\d+"\): TicketsSoldOut: is true while SeatsAvailable is above zero, got 5/);
    assert.match(dryRun.stdout, /screens 0 added, 0 changed, 0 removed, 1 unchanged; attributes 0 added, 0 changed, 0 removed, 1 unchanged; site 0 added, 0 changed, 0 removed, 1 unchanged; sessions 0 added, 1 changed, 0 removed, 0 unchanged; nothing was written\./);
    assert.deepEqual(await exportCatalogue(database), before);
    const copy = await freshDatabase();
    const lists = await tempDir();
    for (const [name, text] of Object.entries(xml)) await writeFile(join(lists, `${name}.xml`), text);
    assert.equal((await runCli(['import', '--database', copy, lists])).status, 0);
    assert.deepEqual(await exportCatalogue(copy), before, 'the XML of every resource reads back to the same programme');
  });
});

describe('the demo cinema', () => {
  test('serve --seed demo --seed-today shows its fortnight of sessions from the day of seeding, many on sale', async () => {
    const day = (offset: number): string => new Date(Date.parse(`${wallClockTime(DEMO_ZONE, Date.now()).slice(0, 10)}T00:00:00Z`) + offset * 86_400_000).toISOString().slice(0, 10);
    const before = day(0);
    const server = await serve(['--database', await freshDatabase(), '--seed', DEMO, '--seed-today']);
    const after = day(0);
    const list = (await (await fetch(`${server.url}/v1/session`)).json()) as Json[];
    assert.equal(list.length, sessions.length);
    const first = String(list[0]?.['PreShowStartTime']).slice(0, 10);
    assert.ok(first === before || first === after, `the first session is on the day of seeding, ${after}, not ${first}`);
    const days = new Set(list.map((s) => String(s['PreShowStartTime']).slice(0, 10)));
    assert.equal(days.size, 14, 'a fortnight');
    assert.ok(days.has(day(13)) || days.has(day(14)));
    const onSale = (await (await fetch(`${server.url}/v1/websession`)).json()) as Json[];
    assert.ok(onSale.length >= 50, `${onSale.length} sessions on sale`);
    assert.ok(onSale.some((s) => s['FilmPackageId'] !== null) && onSale.some((s) => s['FilmPackageId'] === null), 'sessions of packages and of single films');
  });
});
