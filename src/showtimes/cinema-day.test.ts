import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addDays, cinemaDayOf, daysBetween, isCalendarDate, nextCinemaDayStart } from './cinema-day.js';

test('a cinema day runs from 03:00 to 02:59 the next morning', () => {
  assert.equal(cinemaDayOf('2026-11-27T03:00:00'), '2026-11-27');
  assert.equal(cinemaDayOf('2026-11-27T23:59:59'), '2026-11-27');
  assert.equal(cinemaDayOf('2026-11-28T00:30:00'), '2026-11-27');
  assert.equal(cinemaDayOf('2026-11-28T02:59:59'), '2026-11-27');
  assert.equal(cinemaDayOf('2027-01-01T01:00:00'), '2026-12-31');
  assert.equal(cinemaDayOf('2028-03-01T02:00:00'), '2028-02-29');
  assert.equal(nextCinemaDayStart('2026-12-31'), '2027-01-01T03:00:00');
});

test('dates are real calendar dates, counted in whole days', () => {
  for (const date of ['2026-11-27', '2028-02-29', '0001-01-01', '9999-12-31']) assert.ok(isCalendarDate(date), date);
  for (const text of ['2026-02-29', '2026-13-01', '2026-11-31', '2026-1-01', '26-11-27', '2026-11-27T00:00', ' 2026-11-27', '']) assert.ok(!isCalendarDate(text), text);
  assert.equal(addDays('2026-11-27', 7), '2026-12-04');
  assert.equal(addDays('2026-03-01', -1), '2026-02-28');
  assert.equal(addDays('2026-10-24', 2), '2026-10-26', 'a day is a date, whatever the clocks do');
  assert.equal(daysBetween('2026-10-24', '2026-10-26'), 2);
  assert.equal(daysBetween('2026-03-01', '2026-02-22'), -7);
});
