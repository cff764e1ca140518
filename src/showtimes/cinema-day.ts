/**
 * Cinema days. A cinema prints its programme by day, and its day runs from 03:00 to 02:59 the
 * next morning: a 00:30 screening belongs to the evening before. Days are written `YYYY-MM-DD`,
 * and a wall-clock time `yyyy-mm-ddThh:mm:ss`, so both are worked out from their text.
 */

/** The hour, on the site's clock, at which one cinema day ends and the next begins. */
export const CINEMA_DAY_STARTS_AT = '03:00:00';
const DAY_MS = 86_400_000;

/** A real calendar date written `YYYY-MM-DD`. */
export function isCalendarDate(text: string): boolean {
  if (!/^\d{4}-\d\d-\d\d$/.test(text)) return false;
  const time = Date.parse(`${text}T00:00:00Z`);
  return !Number.isNaN(time) && new Date(time).toISOString().startsWith(text);
}

/** The date `days` after `date` (before it when negative). */
export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/** The cinema day of a wall-clock time: its date, or the date before until 03:00. */
export function cinemaDayOf(wallClock: string): string {
  const date = wallClock.slice(0, 10);
  return wallClock.slice(11) < CINEMA_DAY_STARTS_AT ? addDays(date, -1) : date;
}

/** The wall-clock time at which the cinema day after `day` begins. */
export function nextCinemaDayStart(day: string): string {
  return `${addDays(day, 1)}T${CINEMA_DAY_STARTS_AT}`;
}

/** The days from `from` to `to`: negative when `to` comes first. */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);
}
