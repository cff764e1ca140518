/**
 * A site's time: the site names its zone as Windows does (`New Zealand Standard Time`), and
 * session times are wall-clock times there, with no zone. A kept library maps Windows zones to
 * IANA zones, and the runtime's Intl data tells the wall clock of an IANA zone at any instant.
 */
import { findIana } from 'windows-iana';

const SECOND = 1000;
const DAY = 86_400_000;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(zone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(zone);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, formatter);
  }
  return formatter;
}

function isKnownZone(zone: string): boolean {
  try {
    formatterOf(zone);
    return true;
  } catch {
    return false;
  }
}

/** The IANA zone of a Windows zone id, or undefined when it maps to none this runtime knows. */
export function ianaZoneOf(windowsZone: string): string | undefined {
  return findIana(windowsZone).find(isKnownZone);
}

/** The wall-clock time in `zone` at `instant`, as the milliseconds of a UTC clock showing that time. */
function wallClockAt(zone: string, instant: number): number {
  const parts = formatterOf(zone).formatToParts(instant);
  const part = (type: Intl.DateTimeFormatPartTypes): number => Number(parts.find((candidate) => candidate.type === type)?.value);
  const time = new Date(0);
  time.setUTCFullYear(part('year'), part('month') - 1, part('day'));
  time.setUTCHours(part('hour'), part('minute'), part('second'));
  return time.getTime();
}

/** The wall-clock time in `zone` at `instant`, as session times are written: `yyyy-mm-ddThh:mm:ss`. */
export function wallClockTime(zone: string, instant: number): string {
  return new Date(wallClockAt(zone, instant)).toISOString().slice(0, 19);
}

/**
 * The instant at which the clock of `zone` reaches `wallClock` (`yyyy-mm-ddThh:mm:ss`): for a
 * time that a daylight-saving change repeats, its first occurrence; for one that a change skips,
 * the instant of the change, when the clock passes it.
 */
export function instantOf(wallClock: string, zone: string): number {
  const target = Date.parse(`${wallClock}Z`);
  // The zone's offsets a day either side: a change of offset near the time lies between them.
  const candidates = [target - DAY, target + DAY].map((probe) => target - (wallClockAt(zone, probe) - probe));
  const exact = candidates.filter((instant) => wallClockAt(zone, instant) === target);
  if (exact.length > 0) return Math.min(...exact);
  // Skipped: the clock is before the time at the earlier candidate and past it at the later one.
  let before = Math.min(...candidates);
  let after = Math.max(...candidates);
  while (after - before > SECOND) {
    const middle = before + Math.floor((after - before) / 2 / SECOND) * SECOND;
    if (wallClockAt(zone, middle) >= target) after = middle;
    else before = middle;
  }
  return after;
}
