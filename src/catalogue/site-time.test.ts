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

const formats = new Map<string, Intl.DateTimeFormat>();

function intlFormat(zone: string): Intl.DateTimeFormat {
  const format = formats.get(zone) ?? new Intl.DateTimeFormat('sv-SE', { timeZone: zone, dateStyle: 'short', timeStyle: 'medium', hourCycle: 'h23' });
  formats.set(zone, format);
  return format;
}

/** The wall clock of `zone` at `instant`, as the runtime's own time zone data (Intl) shows it. */
function intlWallClock(format: Intl.DateTimeFormat, instant: number): string {
  // Sweden's locale writes ISO dates: `2026-01-01 13:00:00`.
  return format.format(instant).replace(' ', 'T');
}

interface IntlPlace {
  readonly instant: number;
  /** How many instants show the time: 2 in the hour a change repeats, 0 in one it skips. */
  readonly shown: number;
}

/**
 * Where `wallClock` falls in `zone`, found from Intl's wall clocks alone: the first instant that
 * shows it, or for a time a change skips, the instant of the change.
 */
function intlPlaceOf(wallClock: string, zone: string): IntlPlace {
  const format = intlFormat(zone);
  const asUtc = Date.parse(`${wallClock}Z`);
  const offsetAt = (instant: number): number => Date.parse(`${intlWallClock(format, instant)}Z`) - instant;
  // No zone is more than 14 hours from UTC: the offsets on either side of the time are all it can have.
  const [early, late] = [asUtc - 15 * 3_600_000, asUtc + 15 * 3_600_000];
  const shown = [...new Set([offsetAt(early), offsetAt(late)])].map((offset) => asUtc - offset).filter((instant) => intlWallClock(format, instant) === wallClock);
  if (shown.length > 0) return { instant: Math.min(...shown), shown: shown.length };
  // Skipped: the change is the first second from which the zone's clock shows a later time.
  let [before, after] = [early, late];
  while (after - before > 1000) {
    const middle = before + Math.floor((after - before) / 2000) * 1000;
    if (intlWallClock(format, middle) > wallClock) after = middle;
    else before = middle;
  }
  return { instant: after, shown: 0 };
}

test('a zone clock places every time where Intl\'s zone data does, across changes in each hemisphere and odd offsets', () => {
  const zones = ['Pacific/Auckland', 'Europe/London', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'Pacific/Chatham', 'America/Santiago', 'Africa/Casablanca'];
  const times = { skipped: 0, repeated: 0 };
  for (const zone of zones) {
    const clock = new ZoneClock(zone);
    // Every 59 minutes and 17 seconds through 2026: each hour of the year, at a minute that drifts, the changes included.
    for (let time = Date.parse('2026-01-01T00:00:00Z'); time < Date.parse('2027-01-01T00:00:00Z'); time += 3_557_000) {
      const wallClock = new Date(time).toISOString().slice(0, 19);
      const { instant, shown } = intlPlaceOf(wallClock, zone);
      assert.equal(clock.instantOf(wallClock), instant, `${zone} ${wallClock}`);
      // The slower function of one time, at the changes and once a day or so.
      if (shown !== 1 || (time / 3_557_000) % 24 === 0) assert.equal(instantOf(wallClock, zone), instant, `${zone} ${wallClock}`);
      if (shown === 0) times.skipped++;
      if (shown === 2) times.repeated++;
    }
  }
  // The hours that matter are among those checked.
  assert.ok(times.skipped >= 5 && times.repeated >= 5, `${times.skipped} skipped and ${times.repeated} repeated times checked`);
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
