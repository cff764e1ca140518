/**
 * Cinema days as the page names them, in English: `Friday 27 November`, `Fri 27 Nov`. A day is a
 * date written `YYYY-MM-DD`, so its weekday comes from the date alone, never from a zone.
 */

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'] as const;

interface DayParts {
  readonly weekday: string;
  readonly date: number;
  readonly month: string;
}

function partsOf(day: string): DayParts {
  const weekday = WEEKDAYS[new Date(`${day}T00:00:00Z`).getUTCDay()] as string;
  return { weekday, date: Number(day.slice(8, 10)), month: MONTHS[Number(day.slice(5, 7)) - 1] as string };
}

/** `Friday 27 November`. */
export function longDayName(day: string): string {
  const { weekday, date, month } = partsOf(day);
  return `${weekday} ${date} ${month}`;
}

/** `Fri` and `27 Nov`, which a narrow list of days shows apart. */
export function shortDayParts(day: string): { readonly weekday: string; readonly date: string } {
  const { weekday, date, month } = partsOf(day);
  return { weekday: weekday.slice(0, 3), date: `${date} ${month.slice(0, 3)}` };
}
