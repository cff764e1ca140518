import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NumberText, type RawRecord, type RawValue } from './raw-record.js';
import { isCalendarDateTime, isHttpUrl, readFilm, readPackage } from './rules.js';

const n = (text: string | number): NumberText => new NumberText(String(text));

const FILM: RawRecord = {
  Id: 'HO0001',
  Title: 'Nosferatu',
  ShortName: 'Nosferatu',
  Synopsis: null,
  Genre: '',
  SignageText: 'NOSFERATU',
  Distributor: null,
  LastModifiedDate: '2024-03-05T19:30:00',
  OpeningDate: null,
  Rating: 'M',
  Status: 'Active',
  Content: null,
  Duration: n(94),
  DisplaySequence: n(-3),
  NationalCode: null,
  Format: '2D Digital',
  IsRestricted: false,
  People: [{ Id: 'P1', FirstName: 'Max', LastName: 'Schreck', Role: 'Actor' }],
  AudioLanguage: null,
  GovernmentFilmTitle: null,
  FilmPosterUrl: 'https://images.example/p.jpg',
  FilmPosterThumbnailUrl: '',
  BackdropImageUrl: null,
  FilmTrailerUrl: 'http://media.example/t.mp4',
};

const PACKAGE: RawRecord = {
  Id: n(7),
  Title: 'Double',
  Status: 'Inactive',
  Films: [
    { FilmId: 'B', Title: 'Second', SplitPercent: n('50.000000'), TrailerDuration: n(5), CleanUpDuration: n(10), Order: n(2) },
    { FilmId: 'A', Title: 'First', SplitPercent: n('50'), TrailerDuration: n(0), CleanUpDuration: n(0), Order: n(1) },
  ],
};

/** The problems a film with `changes` applied has, as "Field: rule" lines. */
function filmProblems(changes: Record<string, RawValue | undefined>): string[] {
  const problems: string[] = [];
  // A change to undefined removes the property.
  const record = Object.fromEntries(Object.entries({ ...FILM, ...changes }).filter(([, value]) => value !== undefined));
  readFilm(record, (field, rule) => problems.push(`${field}: ${rule}`));
  return problems;
}

function packageProblems(changes: Record<string, RawValue>): string[] {
  const problems: string[] = [];
  readPackage({ ...PACKAGE, ...changes }, (field, rule) => problems.push(`${field}: ${rule}`));
  return problems;
}

function firstFilm(changes: Record<string, RawValue>): RawRecord {
  return { ...(PACKAGE['Films'] as RawRecord[])[1], ...changes };
}

test('a valid film is read into the domain, null and "" kept apart', () => {
  const problems: string[] = [];
  const film = readFilm(FILM, (field) => problems.push(field));
  assert.deepEqual(problems, []);
  assert.equal(film.synopsis, null);
  assert.equal(film.genre, '');
  assert.equal(film.duration, 94);
  assert.equal(film.displaySequence, -3);
  assert.deepEqual(film.people, [{ id: 'P1', firstName: 'Max', lastName: 'Schreck', role: 'Actor' }]);
});

test('Id has 1 to 64 code points', () => {
  assert.deepEqual(filmProblems({ Id: 'x'.repeat(64) }), []);
  assert.deepEqual(filmProblems({ Id: '🎬'.repeat(64) }), [], '64 astral characters are 128 UTF-16 units but 64 characters');
  assert.match(filmProblems({ Id: 'x'.repeat(65) }).join(), /^Id: must be at most 64 characters/);
  assert.deepEqual(filmProblems({ Id: '' }), ['Id: must not be empty']);
  assert.deepEqual(filmProblems({ Id: null }), ['Id: is required']);
  assert.deepEqual(filmProblems({ Id: n(12) }), ['Id: must be a string']);
});

test('Title must not be empty', () => {
  assert.deepEqual(filmProblems({ Title: '' }), ['Title: must not be empty']);
  assert.deepEqual(filmProblems({ Title: '   ' }), ['Title: must not be empty']);
  assert.deepEqual(filmProblems({ Title: undefined }), ['Title: is required']);
});

test('ShortName has at most 10 and SignageText at most 20 code points', () => {
  assert.deepEqual(filmProblems({ ShortName: '🎬Steamboat' }), []);
  assert.deepEqual(filmProblems({ ShortName: 'Nosferatu!!' }), ['ShortName: must be at most 10 characters (has 11)']);
  assert.deepEqual(filmProblems({ SignageText: 'é'.repeat(20) }), []);
  assert.deepEqual(filmProblems({ SignageText: 'é'.repeat(21) }), ['SignageText: must be at most 20 characters (has 21)']);
});

test('Status, Format and Role are exact enumerations', () => {
  assert.deepEqual(filmProblems({ Status: 'Deleted' }), []);
  assert.match(filmProblems({ Status: 'active' }).join(), /^Status: must be one of 'Active', 'Inactive', 'Deleted'$/);
  assert.deepEqual(filmProblems({ Format: '3D HFR' }), []);
  assert.deepEqual(filmProblems({ Format: 'Not a Film' }), []);
  assert.match(filmProblems({ Format: '2D film' }).join(), /^Format: must be one of/);
  assert.match(filmProblems({ Format: '4D' }).join(), /^Format: must be one of/);
  assert.match(filmProblems({ People: [{ Id: 'P', Role: 'Writer' }] }).join(), /^People\[1\]\.Role: must be one of 'Actor', 'Director', 'Producer'$/);
  assert.deepEqual(filmProblems({ People: [{ Id: 'P', Role: 'Producer', FirstName: null, LastName: '' }] }), []);
  assert.deepEqual(filmProblems({ People: [{ Role: 'Actor' }] }), ['People[1].Id: is required']);
});

test('Duration is an integer >= 0 and DisplaySequence an int32', () => {
  assert.deepEqual(filmProblems({ Duration: n(0) }), []);
  assert.match(filmProblems({ Duration: n(-1) }).join(), /^Duration: must be an integer from 0 to 2147483647$/);
  assert.deepEqual(filmProblems({ Duration: n('1.5') }), ['Duration: must be an integer']);
  assert.deepEqual(filmProblems({ Duration: '90' }), ['Duration: must be an integer']);
  assert.deepEqual(filmProblems({ DisplaySequence: n(-2147483648) }), []);
  assert.match(filmProblems({ DisplaySequence: n(2147483648) }).join(), /^DisplaySequence: must be an integer from/);
  assert.deepEqual(filmProblems({ DisplaySequence: undefined }), ['DisplaySequence: is required']);
});

test('IsRestricted is a boolean', () => {
  assert.deepEqual(filmProblems({ IsRestricted: true }), []);
  assert.deepEqual(filmProblems({ IsRestricted: 'true' }), ['IsRestricted: must be true or false']);
  assert.deepEqual(filmProblems({ IsRestricted: null }), ['IsRestricted: is required']);
});

test('date-times are real calendar date-times without zone or fraction', () => {
  assert.ok(isCalendarDateTime('2024-02-29T23:59:59'));
  assert.ok(isCalendarDateTime('2000-02-29T00:00:00'));
  assert.ok(!isCalendarDateTime('2023-02-29T00:00:00'), 'not a leap year');
  assert.ok(!isCalendarDateTime('1900-02-29T00:00:00'), 'century, not a leap year');
  assert.ok(!isCalendarDateTime('2024-04-31T00:00:00'));
  assert.ok(!isCalendarDateTime('2024-13-01T00:00:00'));
  assert.ok(!isCalendarDateTime('2024-01-01T24:00:00'));
  assert.ok(!isCalendarDateTime('2024-01-01T00:60:00'));
  assert.ok(!isCalendarDateTime('0000-01-01T00:00:00'));
  assert.ok(isCalendarDateTime('2024-12-31T23:59:59'));
  assert.ok(!isCalendarDateTime('2024-00-10T00:00:00'), 'no month 0');
  assert.ok(!isCalendarDateTime('2024-01-00T00:00:00'), 'no day 0');
  assert.ok(!isCalendarDateTime('2024-01-01T00:00:60'));
  assert.ok(!isCalendarDateTime('2024-01-01T00:00:00Z'));
  assert.ok(!isCalendarDateTime('2024-01-01T00:00:00.000'));
  assert.ok(!isCalendarDateTime('2024-01-01 00:00:00'));
  assert.ok(!isCalendarDateTime('2024-1-01T00:00:00'));
  assert.deepEqual(filmProblems({ LastModifiedDate: undefined }), ['LastModifiedDate: is required']);
  assert.match(filmProblems({ OpeningDate: '' }).join(), /^OpeningDate: must be a real date-time/);
  assert.deepEqual(filmProblems({ OpeningDate: '1922-03-04T00:00:00' }), []);
});

test('URLs are null, empty or absolute http(s)', () => {
  assert.ok(isHttpUrl('https://example.org/a.jpg'));
  assert.ok(isHttpUrl('HTTP://EXAMPLE.ORG'));
  assert.ok(!isHttpUrl('ftp://example.org/a.jpg'));
  assert.ok(!isHttpUrl('/posters/a.jpg'));
  assert.ok(!isHttpUrl('https://'));
  assert.ok(!isHttpUrl('javascript:alert(1)'));
  assert.ok(!isHttpUrl('https://tickets.example/1\r\nEND:VEVENT'), 'the URL parser passes over line breaks and tabs; the rule does not');
  assert.ok(!isHttpUrl('https://tickets.example/\t1'));
  for (const character of ['\u0085', '\u009b', '\u2028', '\u2029', '\u007f']) assert.ok(!isHttpUrl(`https://tickets.example/${character}1`), character);
  assert.ok(isHttpUrl('https://tickets.example/séance/1'), 'an IRI');
  assert.match(filmProblems({ FilmTrailerUrl: 'www.example.org/t.mp4' }).join(), /^FilmTrailerUrl: must be empty or an absolute http\(s\) URL$/);
});

test('text that XML cannot carry is refused, in any text field', () => {
  assert.deepEqual(filmProblems({ Synopsis: 'tab\tLF\nCR\r fine' }), []);
  assert.deepEqual(filmProblems({ Synopsis: 'bell\u0007' }), ['Synopsis: must not contain the character U+0007, which XML cannot carry']);
  assert.deepEqual(filmProblems({ Title: 'half \uD83C' }), ['Title: must not contain the character U+D83C, which XML cannot carry']);
  assert.match(filmProblems({ People: [{ Id: 'P', Role: 'Actor', LastName: '\u0000' }] }).join(), /^People\[1\]\.LastName: must not contain/);
});

test('every problem of a record is reported, not just the first', () => {
  assert.equal(filmProblems({ Title: '', Status: 'x', Format: 'y', Duration: n(-1), IsRestricted: 1 as unknown as RawValue }).length, 5);
});

test('a valid package is read, its films sorted by Order', () => {
  const problems: string[] = [];
  const filmPackage = readPackage(PACKAGE, (field) => problems.push(field));
  assert.deepEqual(problems, []);
  assert.deepEqual(filmPackage.films.map((film) => film.filmId), ['A', 'B']);
  assert.equal(filmPackage.films[0]?.splitMillionths, 50_000_000);
});

test('package Id is an int32 from 1', () => {
  assert.deepEqual(packageProblems({ Id: n(2147483647) }), []);
  assert.match(packageProblems({ Id: n(0) }).join(), /^Id: must be an integer from 1 to 2147483647$/);
  assert.match(packageProblems({ Id: n(2147483648) }).join(), /^Id: must be an integer from 1 to 2147483647$/);
  assert.deepEqual(packageProblems({ Id: '7' }), ['Id: must be an integer']);
});

test('package films: SplitPercent exact from 0 to 100, durations >= 0, Order >= 1 and unique', () => {
  assert.deepEqual(packageProblems({ Films: [firstFilm({ SplitPercent: n('100.000000') })] }), []);
  assert.deepEqual(packageProblems({ Films: [firstFilm({ SplitPercent: n('0') })] }), []);
  const percent = 'Films[1].SplitPercent: must be a number from 0 to 100 with at most six decimals';
  assert.deepEqual(packageProblems({ Films: [firstFilm({ SplitPercent: n('100.000001') })] }), [percent]);
  assert.deepEqual(packageProblems({ Films: [firstFilm({ SplitPercent: n('-1') })] }), [percent]);
  assert.deepEqual(packageProblems({ Films: [firstFilm({ SplitPercent: n('33.3333333') })] }), [percent]);
  assert.deepEqual(packageProblems({ Films: [firstFilm({ SplitPercent: '50' })] }), [percent]);
  assert.match(packageProblems({ Films: [firstFilm({ TrailerDuration: n(-1) })] }).join(), /^Films\[1\]\.TrailerDuration: must be an integer from 0/);
  assert.match(packageProblems({ Films: [firstFilm({ CleanUpDuration: n(-1) })] }).join(), /^Films\[1\]\.CleanUpDuration: must be an integer from 0/);
  assert.match(packageProblems({ Films: [firstFilm({ Order: n(0) })] }).join(), /^Films\[1\]\.Order: must be an integer from 1/);
  assert.deepEqual(packageProblems({ Films: [firstFilm({}), firstFilm({ FilmId: 'B' })] }), ['Films[2].Order: must be unique within the package']);
  assert.deepEqual(
    packageProblems({ Films: [null, firstFilm({}), firstFilm({ FilmId: 'B' })] }),
    ['Films[1]: must be an object', 'Films[3].Order: must be unique within the package'],
    'a duplicate is named by its place in the whole list',
  );
  assert.deepEqual(packageProblems({ Films: [firstFilm({ Title: '' })] }), ['Films[1].Title: must not be empty']);
  assert.deepEqual(packageProblems({ Films: 'none' }), ['Films: must be a list']);
  assert.deepEqual(packageProblems({ Title: '', Status: 'Gone' }).length, 2);
});
