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
 * the instant of the change, when the clock passes it. Each call asks the runtime's zone data a
 * few times (tens of microseconds); `ZoneClock` answers the thousands of times of a catalogue.
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

/** `+13:00`, `-03:30`, `+00:00`: an offset from UTC as RFC 3339 writes it. */
function offsetText(offsetMs: number): string {
  const minutes = Math.round(Math.abs(offsetMs) / 60_000);
  const pad = (value: number): string => String(value).padStart(2, '0');
  return `${offsetMs < 0 ? '-' : '+'}${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;
}

/** A wall-clock time of a zone, placed: its instant, and the zone's offset from UTC then. */
interface Placed {
  readonly instant: number;
  /** Milliseconds the zone's clock is ahead of UTC at the instant. */
  readonly offsetMs: number;
}

/**
 * The instants of the wall-clock times of one zone, as `instantOf` finds them, for the thousands
 * of times of a catalogue. A zone's offset changes a few times a year, never twice within a few
 * days: the offset the zone has a day before a wall-clock day and a day after it, when the same,
 * serves every time of that day, for two questions to the zone data a day. Around a change, the
 * offset found for the first and the last second of an hour serves every time in it; an hour that
 * holds a change is left to `instantOf`.
 */
export class ZoneClock {
  /** The offset of each wall-clock day asked about (`2026-11-27`), or null where a change falls near it. */
  private readonly days = new Map<string, number | null>();
  /** The offset of each wall-clock hour asked about near a change (`2026-04-05T02`), or null where it holds one. */
  private readonly hours = new Map<string, number | null>();

  constructor(readonly zone: string) {}

  /** The instant at which the zone's clock reaches `wallClock`, as `instantOf` gives it. */
  instantOf(wallClock: string): number {
    return this.place(wallClock).instant;
  }

  /**
   * The instant of `wallClock` in RFC 3339, with the zone's offset at that instant:
   * `2026-11-27T19:30:00+13:00`. A time that a change skips is written as the clock read at the
   * change (`02:30` as `03:00:00+13:00`), so that the text and the instant agree.
   */
  timestamp(wallClock: string): string {
    const { instant, offsetMs } = this.place(wallClock);
    return new Date(instant + offsetMs).toISOString().slice(0, 19) + offsetText(offsetMs);
  }

  private place(wallClock: string): Placed {
    const asUtc = Date.parse(`${wallClock}Z`);
    const offsetMs = this.offsetOfDay(wallClock.slice(0, 10)) ?? this.offsetOfHour(wallClock.slice(0, 13));
    if (offsetMs !== null) return { instant: asUtc - offsetMs, offsetMs };
    const instant = instantOf(wallClock, this.zone);
    return { instant, offsetMs: wallClockAt(this.zone, instant) - instant };
  }

  private offsetOfDay(day: string): number | null {
    let offset = this.days.get(day);
    if (offset === undefined) {
      // Offsets lie within a day of UTC: every instant at which the clock shows this day lies
      // between the two probes, and with one offset at both, no change falls between them.
      const midnight = Date.parse(`${day}T00:00:00Z`);
      const [before, after] = [midnight - DAY, midnight + 2 * DAY].map((probe) => wallClockAt(this.zone, probe) - probe);
      offset = before === after ? (before as number) : null;
      this.days.set(day, offset);
    }
    return offset;
  }

  private offsetOfHour(hour: string): number | null {
    let offset = this.hours.get(hour);
    if (offset === undefined) {
      const [first, last] = [`${hour}:00:00`, `${hour}:59:59`].map((wallClock) => Date.parse(`${wallClock}Z`) - instantOf(wallClock, this.zone));
      offset = first === last ? (first as number) : null;
      this.hours.set(hour, offset);
    }
    return offset;
  }
}
