import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ZoneClock, ianaZoneOf, instantOf, wallClockTime } from './site-time.js';

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

test('a zone clock places every time as instantOf does, across changes in each hemisphere and odd offsets', () => {
  const zones = ['Pacific/Auckland', 'Europe/London', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'Pacific/Chatham', 'America/Santiago', 'Africa/Casablanca'];
  for (const zone of zones) {
    const clock = new ZoneClock(zone);
    // Every 59 minutes and 17 seconds through 2026: each hour of the year, at a minute that drifts, the changes included.
    for (let time = Date.parse('2026-01-01T00:00:00Z'); time < Date.parse('2027-01-01T00:00:00Z'); time += 3_557_000) {
      const wallClock = new Date(time).toISOString().slice(0, 19);
      assert.equal(clock.instantOf(wallClock), instantOf(wallClock, zone), `${zone} ${wallClock}`);
    }
  }
});

test('a zone clock writes RFC 3339 with the offset of the instant, the change included', () => {
  const auckland = new ZoneClock('Pacific/Auckland');
  assert.equal(auckland.timestamp('2026-11-27T19:30:00'), '2026-11-27T19:30:00+13:00');
  assert.equal(auckland.timestamp('2026-06-01T12:00:00'), '2026-06-01T12:00:00+12:00');
  // Clocks go back from 03:00 to 02:00 on 5 April 2026: 02:30 is its first occurrence, in daylight time.
  assert.equal(auckland.timestamp('2026-04-05T02:30:00'), '2026-04-05T02:30:00+13:00');
  assert.equal(auckland.timestamp('2026-04-05T03:00:00'), '2026-04-05T03:00:00+12:00');
  // And forward from 02:00 to 03:00 on 27 September 2026: 02:30 passes at the change.
  assert.equal(auckland.timestamp('2026-09-27T02:30:00'), '2026-09-27T03:00:00+13:00');
  assert.equal(new ZoneClock('Europe/London').timestamp('2026-12-01T20:00:00'), '2026-12-01T20:00:00+00:00');
  assert.equal(new ZoneClock('America/St_Johns').timestamp('2026-12-01T20:00:00'), '2026-12-01T20:00:00-03:30');
  assert.equal(new ZoneClock('Asia/Kathmandu').timestamp('2026-12-01T20:00:00'), '2026-12-01T20:00:00+05:45');
});
