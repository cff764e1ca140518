import assert from 'node:assert/strict';
import { test } from 'node:test';
import { longDayName, shortDayParts } from './day-names.js';

test('a day is named from its date, in English', () => {
  assert.equal(longDayName('2026-11-27'), 'Friday 27 November');
  assert.deepEqual(shortDayParts('2026-11-27'), { weekday: 'Fri', date: '27 Nov' });
  assert.equal(longDayName('2028-02-29'), 'Tuesday 29 February');
  assert.deepEqual(shortDayParts('2027-01-03'), { weekday: 'Sun', date: '3 Jan' });
  assert.equal(longDayName('2026-04-05'), 'Sunday 5 April');
});
