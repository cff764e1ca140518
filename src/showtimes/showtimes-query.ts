/**
 * The filters of the programme (CONTRACT §12, §15), read from a request's query string: which
 * cinema days, films, screens, attributes, access terms, and whether sessions past their sale are
 * shown. A bad value
 * is told with the parameter it was given in; parameters the programme does not know are ignored.
 */
import { codePointLength } from '../catalogue/code-points.js';
import { MAX_INT32 } from '../catalogue/model.js';
import { ACCESS_TERMS, isAccessTerm, type AccessTerm } from './access-terms.js';
import { isCalendarDate } from './cinema-day.js';

export const SESSION_CHOICES = ['on-sale', 'all'] as const;
export type SessionChoice = (typeof SESSION_CHOICES)[number];

export const DEFAULT_DAYS = 7;
export const MAX_DAYS = 62;
/** Values one repeatable filter takes at most: more would only make one request cost more. */
export const MAX_VALUES = 50;
const MAX_ID_LENGTH = 64;
/** The years a window may start in: a mistyped year is told, rather than answered with nothing. */
const FIRST_YEAR = 1900;
const LAST_YEAR = 9900;

export interface ShowtimesQuery {
  /** The first cinema day; undefined for the cinema day now at the site. */
  readonly from: string | undefined;
  readonly days: number;
  /** Sessions of any of these films, or of packages showing one; every film when empty. */
  readonly films: readonly string[];
  /** Sessions on any of these screens; every screen when empty. */
  readonly screens: readonly number[];
  /** Sessions carrying all of these attributes. */
  readonly attributes: readonly string[];
  /** Sessions whose attributes say all of these access terms. */
  readonly access: readonly AccessTerm[];
  readonly sessions: SessionChoice;
}

/** A filter given a value it cannot take: `days` must be `a whole number of days from 1 to 62`, got `0`. */
export interface BadFilter {
  readonly parameter: string;
  /** What its value must be. */
  readonly rule: string;
  /** The value given, where one value broke the rule. */
  readonly value?: string;
}

type QueryValue = string | string[] | undefined;

/** Reads one parameter at a time; the first bad value is kept. */
class FilterReader {
  problem: BadFilter | undefined;

  constructor(private readonly query: Readonly<Record<string, unknown>>) {}

  /** The parameter's one value, or undefined when absent. */
  one(parameter: string): string | undefined {
    const value = this.query[parameter] as QueryValue;
    if (value === undefined || typeof value === 'string') return value;
    return this.refuse({ parameter, rule: 'given once' });
  }

  /** The parameter's values, each read by `read`, without repeats and sorted; none when absent. */
  many<T extends string | number>(parameter: string, read: (value: string) => T | undefined, rule: string): T[] {
    const given = this.query[parameter] as QueryValue;
    const values = given === undefined ? [] : typeof given === 'string' ? [given] : given;
    if (values.length > MAX_VALUES) return this.refuse({ parameter, rule: `given at most ${MAX_VALUES} times` }) ?? [];
    const parsed: T[] = [];
    for (const value of values) {
      const one = read(value);
      if (one === undefined) return this.refuse({ parameter, rule, value }) ?? [];
      if (!parsed.includes(one)) parsed.push(one);
    }
    return parsed.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  refuse(problem: BadFilter): undefined {
    this.problem ??= problem;
    return undefined;
  }
}

const readId = (value: string): string | undefined => (value !== '' && codePointLength(value) <= MAX_ID_LENGTH ? value : undefined);
const readScreenId = (value: string): number | undefined => (/^\d{1,10}$/.test(value) && Number(value) >= 1 && Number(value) <= MAX_INT32 ? Number(value) : undefined);

/**
 * The filters of a parsed query string (values as strings, a repeated parameter as an array), or
 * the first bad one. Films, screens, attributes and access terms come back sorted, so that one filter written in
 * any order is one answer.
 */
export function parseShowtimesQuery(query: Readonly<Record<string, unknown>>): ShowtimesQuery | BadFilter {
  const reader = new FilterReader(query);
  const fromText = reader.one('from');
  let from: string | undefined;
  if (fromText !== undefined) {
    const year = Number(fromText.slice(0, 4));
    if (isCalendarDate(fromText) && year >= FIRST_YEAR && year <= LAST_YEAR) from = fromText;
    else reader.refuse({ parameter: 'from', rule: `a date written YYYY-MM-DD, in the years ${FIRST_YEAR} to ${LAST_YEAR}`, value: fromText });
  }
  const daysText = reader.one('days');
  let days = DEFAULT_DAYS;
  if (daysText !== undefined) {
    if (/^\d{1,2}$/.test(daysText) && Number(daysText) >= 1 && Number(daysText) <= MAX_DAYS) days = Number(daysText);
    else reader.refuse({ parameter: 'days', rule: `a whole number of days from 1 to ${MAX_DAYS}`, value: daysText });
  }
  const sessionsText = reader.one('sessions');
  let sessions: SessionChoice = 'on-sale';
  if (sessionsText !== undefined) {
    if ((SESSION_CHOICES as readonly string[]).includes(sessionsText)) sessions = sessionsText as SessionChoice;
    else reader.refuse({ parameter: 'sessions', rule: 'on-sale or all', value: sessionsText });
  }
  const films = reader.many('film', readId, `a film id of 1 to ${MAX_ID_LENGTH} characters`);
  const screens = reader.many('screen', readScreenId, `a screen id, a whole number from 1 to ${MAX_INT32}`);
  const attributes = reader.many('attribute', readId, `an attribute id of 1 to ${MAX_ID_LENGTH} characters`);
  const access = reader.many('access', (value) => (isAccessTerm(value) ? value : undefined), `one of ${ACCESS_TERMS.join(', ')}`);
  return reader.problem ?? { from, days, films, screens, attributes, access, sessions };
}

/** Whether the page is asked for framed (`embed=1`) or whole (`embed=0`, or no `embed`), or the bad value. */
export function parseEmbed(query: Readonly<Record<string, unknown>>): boolean | BadFilter {
  const reader = new FilterReader(query);
  const embed = reader.one('embed');
  if (embed === undefined || embed === '0' || embed === '1') return reader.problem ?? embed === '1';
  return { parameter: 'embed', rule: '1 (framed) or 0', value: embed };
}
