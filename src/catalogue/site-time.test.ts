import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ianaZoneOf, instantOf, wallClockTime } from './site-time.js';

test('maps Windows zone ids to IANA zones, and refuses ids that map to none', () => {
  assert.equal(ianaZoneOf('New Zealand Standard Time'), 'Pacific/Auckland');
  assert.equal(ianaZoneOf('GMT Standard Time'), 'Europe/London');
  assert.equal(ianaZoneOf('Pacific/Auckland'), undefined, 'an IANA id is not a Windows one');
  assert.equal(ianaZoneOf('Mars Standard Time'), undefined);
});

test('a wall-clock time is the instant its zone shows it', () => {
  assert.equal(new Date(instantOf('2024-06-01T12:00:00', 'Pacific/Auckland')).toISOString(), '2024-06-01T00:00:00.000Z');
  assert.equal(new Date(instantOf('2024-01-15T09:30:15', 'Pacific/Auckland')).toISOString(), '2024-01-14T20:30:15.000Z');
  assert.equal(wallClockTime('Pacific/Auckland', Date.parse('2024-06-01T00:00:00Z')), '2024-06-01T12:00:00');
});

test('a time that a daylight-saving change repeats is its first occurrence; one it skips passes at the change', () => {
  // New Zealand's clocks went back from 03:00 to 02:00 on 7 April 2024, and forward from 02:00 to 03:00 on 29 September 2024.
  assert.equal(new Date(instantOf('2024-04-07T02:30:00', 'Pacific/Auckland')).toISOString(), '2024-04-06T13:30:00.000Z');
  assert.equal(new Date(instantOf('2024-04-07T03:00:00', 'Pacific/Auckland')).toISOString(), '2024-04-06T15:00:00.000Z');
  assert.equal(new Date(instantOf('2024-09-29T02:30:00', 'Pacific/Auckland')).toISOString(), '2024-09-28T14:00:00.000Z');
  assert.equal(new Date(instantOf('2024-09-29T01:59:59', 'Pacific/Auckland')).toISOString(), '2024-09-28T13:59:59.000Z');
});
