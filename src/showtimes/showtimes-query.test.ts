import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseShowtimesQuery } from './showtimes-query.js';

test('no filter is the week from today, of the sessions on sale, of every film, screen and attribute', () => {
  assert.deepEqual(parseShowtimesQuery({}), { from: undefined, days: 7, films: [], screens: [], attributes: [], access: [], sessions: 'on-sale' });
  assert.deepEqual(parseShowtimesQuery({ format: 'xml', key: 'mq_pub_x', _: '1' }), parseShowtimesQuery({}), 'other parameters are ignored');
});

test('each filter is read, repeatable ones sorted and without repeats', () => {
  assert.deepEqual(
    parseShowtimesQuery({ from: '2026-11-27', days: '62', film: ['HO2', 'HO1', 'HO2'], screen: ['3', '1'], attribute: 'A', access: ['relaxed', 'captioned'], sessions: 'all' }),
    { from: '2026-11-27', days: 62, films: ['HO1', 'HO2'], screens: [1, 3], attributes: ['A'], access: ['captioned', 'relaxed'], sessions: 'all' },
  );
  assert.deepEqual(parseShowtimesQuery({ screen: ['10', '9'] }), { ...parseShowtimesQuery({}), screens: [9, 10] }, 'screens in number order');
});

test('a bad value names its parameter, the rule it broke and the value', () => {
  const cases: [Record<string, unknown>, string, string, string | undefined][] = [
    [{ from: '2026-02-30' }, 'from', 'a date written YYYY-MM-DD, in the years 1900 to 9900', '2026-02-30'],
    [{ from: '27/11/2026' }, 'from', 'a date written YYYY-MM-DD, in the years 1900 to 9900', '27/11/2026'],
    [{ from: '9999-12-31' }, 'from', 'a date written YYYY-MM-DD, in the years 1900 to 9900', '9999-12-31'],
    [{ from: ['2026-11-27', '2026-11-28'] }, 'from', 'given once', undefined],
    [{ days: '0' }, 'days', 'a whole number of days from 1 to 62', '0'],
    [{ days: '63' }, 'days', 'a whole number of days from 1 to 62', '63'],
    [{ days: '7.5' }, 'days', 'a whole number of days from 1 to 62', '7.5'],
    [{ days: '' }, 'days', 'a whole number of days from 1 to 62', ''],
    [{ sessions: 'sold-out' }, 'sessions', 'on-sale or all', 'sold-out'],
    [{ film: ['HO1', ''] }, 'film', 'a film id of 1 to 64 characters', ''],
    [{ film: 'x'.repeat(65) }, 'film', 'a film id of 1 to 64 characters', 'x'.repeat(65)],
    [{ film: Array.from({ length: 51 }, (_, i) => `F${i}`) }, 'film', 'given at most 50 times', undefined],
    [{ screen: '0' }, 'screen', 'a screen id, a whole number from 1 to 2147483647', '0'],
    [{ screen: '2147483648' }, 'screen', 'a screen id, a whole number from 1 to 2147483647', '2147483648'],
    [{ screen: 'one' }, 'screen', 'a screen id, a whole number from 1 to 2147483647', 'one'],
    [{ attribute: '' }, 'attribute', 'an attribute id of 1 to 64 characters', ''],
    [{ access: ['relaxed', 'subtitles'] }, 'access', 'one of audio-description, captioned, subtitled, relaxed, parent-and-baby, dementia-friendly', 'subtitles'],
  ];
  for (const [query, parameter, rule, value] of cases) {
    assert.deepEqual(parseShowtimesQuery(query), { parameter, rule, ...(value !== undefined && { value }) }, JSON.stringify(query).slice(0, 80));
  }
  assert.equal((parseShowtimesQuery({ days: '0', sessions: 'x' }) as { parameter: string }).parameter, 'days', 'the first bad one');
});
