/**
 * Every rule a record must satisfy to enter the catalogue (CONTRACT §6), applied to records as
 * readers found them. Each rule reports through `report`, so one pass finds every problem.
 */
import { codePointLength, findXmlUnsafeCharacter } from './code-points.js';
import {
  FILM_FORMATS,
  MAX_INT32,
  MIN_INT32,
  ROLES,
  STATUSES,
  type Film,
  type FilmPackage,
  type PackageFilm,
  type Person,
} from './model.js';
import { NumberText, describeValue, isRawRecord, type RawRecord, type RawValue } from './raw-record.js';
import { parseMillionths } from './split-percent.js';

/** Receives one broken rule: the field's wire path, the rule in words, the offending value. */
export type ReportRule = (field: string, rule: string, value: string) => void;

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;
const INTEGER = /^-?\d+$/;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** `yyyy-MM-ddTHH:mm:ss`, a day of the calendar and a time of day. Read digit by digit: a sync checks thousands of these a minute. */
export function isCalendarDateTime(text: string): boolean {
  if (!DATE_TIME.test(text)) return false;
  const number = (from: number, to: number): number => {
    let value = 0;
    for (let at = from; at < to; at++) value = value * 10 + text.charCodeAt(at) - 0x30;
    return value;
  };
  const [year, month, day] = [number(0, 4), number(5, 7), number(8, 10)];
  const leapDay = month === 2 && ((year % 4 === 0 && year % 100 !== 0) || year % 400 === 0) ? 1 : 0;
  const daysInMonth = (DAYS_IN_MONTH[month - 1] ?? 0) + leapDay;
  return year >= 1 && day >= 1 && day <= daysInMonth && number(11, 13) <= 23 && number(14, 16) <= 59 && number(17, 19) <= 59;
}

export function isHttpUrl(text: string): boolean {
  // The URL parser passes over tabs and line breaks, which would end a line of the calendar feed;
  // no other control character (C0, DEL, C1) or line separator belongs in a URL either.
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (!/^https?:\/\//i.test(text) || /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(text)) return false;
  try {
    return new URL(text).host !== '';
  } catch {
    return false;
  }
}

interface TextRule {
  /** null (or a missing property) is refused. */
  readonly required?: boolean;
  /** The empty string is refused. */
  readonly nonEmpty?: boolean;
  readonly maxLength?: number;
  readonly oneOf?: readonly string[];
  readonly dateTime?: boolean;
  readonly url?: boolean;
  /** A form the text must have, and that form in words. */
  readonly pattern?: { readonly test: RegExp; readonly description: string };
}

/** Reads the fields of one raw record, reporting each broken rule under the record's path. */
export class FieldReader {
  constructor(
    private readonly record: RawRecord,
    private readonly report: ReportRule,
    private readonly path = '',
  ) {}

  private fail(field: string, rule: string, value: RawValue | undefined): void {
    this.report(this.path + field, rule, describeValue(value));
  }

  text(field: string, rule: TextRule = {}): string | null {
    return this.textValue(field, this.record[field], rule);
  }

  private textValue(field: string, value: RawValue | undefined, rule: TextRule): string | null {
    if (value === undefined || value === null) {
      if (rule.required) this.fail(field, 'is required', value);
      return null;
    }
    if (typeof value !== 'string') {
      this.fail(field, 'must be a string', value);
      return null;
    }
    const unsafe = findXmlUnsafeCharacter(value);
    if (unsafe !== undefined) {
      const code = unsafe.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
      this.fail(field, `must not contain the character U+${code}, which XML cannot carry`, value);
    } else if (rule.oneOf && !rule.oneOf.includes(value)) {
      this.fail(field, `must be one of ${rule.oneOf.map((v) => `'${v}'`).join(', ')}`, value);
    } else if (rule.nonEmpty && value.trim() === '') {
      this.fail(field, 'must not be empty', value);
    } else if (rule.maxLength !== undefined && codePointLength(value) > rule.maxLength) {
      this.fail(field, `must be at most ${rule.maxLength} characters (has ${codePointLength(value)})`, value);
    } else if (rule.dateTime && !isCalendarDateTime(value)) {
      this.fail(field, 'must be a real date-time written yyyy-mm-ddThh:mm:ss', value);
    } else if (rule.url && value !== '' && !isHttpUrl(value)) {
      this.fail(field, 'must be empty or an absolute http(s) URL', value);
    } else if (rule.pattern && !rule.pattern.test.test(value)) {
      this.fail(field, `must be ${rule.pattern.description}`, value);
    }
    return value;
  }

  /** A list of texts, each held to `rule`; a missing property is an empty list, as for `list`. */
  texts(field: string, rule: TextRule & { readonly unique?: boolean } = {}): string[] {
    const value = this.record[field];
    if (value === undefined) return [];
    if (!Array.isArray(value)) {
      this.fail(field, 'must be a list', value);
      return [];
    }
    const texts: string[] = [];
    (value as readonly RawValue[]).forEach((item, index) => {
      const path = `${field}[${index + 1}]`;
      const text = this.textValue(path, item, { ...rule, required: true });
      if (text === null) return;
      if (rule.unique && texts.includes(text)) this.fail(path, 'must not repeat an earlier item', item);
      texts.push(text);
    });
    return texts;
  }

  /** An integer, or null when the property is null or missing. */
  optionalInteger(field: string, min = MIN_INT32, max = MAX_INT32): number | null {
    const value = this.record[field];
    return value === undefined || value === null ? null : this.integer(field, min, max);
  }

  integer(field: string, min = MIN_INT32, max = MAX_INT32): number {
    const value = this.record[field];
    const text = value instanceof NumberText ? value.text : undefined;
    if (text === undefined || !INTEGER.test(text)) {
      this.fail(field, value === undefined || value === null ? 'is required' : 'must be an integer', value);
      return 0;
    }
    const number = Number(text);
    if (number < min || number > max) {
      this.fail(field, `must be an integer from ${min} to ${max}`, value);
      return 0;
    }
    return number;
  }

  boolean(field: string): boolean {
    const value = this.record[field];
    if (typeof value !== 'boolean') {
      this.fail(field, value === undefined || value === null ? 'is required' : 'must be true or false', value);
      return false;
    }
    return value;
  }

  percent(field: string): number {
    const value = this.record[field];
    const millionths = value instanceof NumberText ? parseMillionths(value.text) : undefined;
    if (millionths === undefined || millionths < 0 || millionths > 100_000_000) {
      this.fail(field, 'must be a number from 0 to 100 with at most six decimals', value);
      return 0;
    }
    return millionths;
  }

  /**
   * The objects of a list, each with its reader and its path (`Films[3]`): its place in the whole
   * list. A missing property is an empty list, as XML writes none for nobody.
   */
  list(field: string): { readonly item: RawRecord; readonly reader: FieldReader; readonly path: string }[] {
    const value = this.record[field];
    if (value === undefined) return [];
    if (!Array.isArray(value)) {
      this.fail(field, 'must be a list', value);
      return [];
    }
    const items: { item: RawRecord; reader: FieldReader; path: string }[] = [];
    (value as readonly RawValue[]).forEach((item, index) => {
      const path = `${this.path}${field}[${index + 1}]`;
      if (isRawRecord(item)) items.push({ item, reader: new FieldReader(item, this.report, `${path}.`), path });
      else this.report(path, 'must be an object', describeValue(item));
    });
    return items;
  }
}

function readPerson(reader: FieldReader): Person {
  return {
    id: reader.text('Id', { required: true, nonEmpty: true }) ?? '',
    firstName: reader.text('FirstName'),
    lastName: reader.text('LastName'),
    role: (reader.text('Role', { required: true, oneOf: ROLES }) ?? 'Actor') as Person['role'],
  };
}

/** Validates one film. The result is only meaningful when nothing was reported. */
export function readFilm(record: RawRecord, report: ReportRule): Film {
  const r = new FieldReader(record, report);
  const url = { url: true } as const;
  return {
    id: r.text('Id', { required: true, nonEmpty: true, maxLength: 64 }) ?? '',
    title: r.text('Title', { required: true, nonEmpty: true }) ?? '',
    shortName: r.text('ShortName', { maxLength: 10 }),
    synopsis: r.text('Synopsis'),
    genre: r.text('Genre'),
    signageText: r.text('SignageText', { maxLength: 20 }),
    distributor: r.text('Distributor'),
    lastModifiedDate: r.text('LastModifiedDate', { required: true, dateTime: true }) ?? '',
    openingDate: r.text('OpeningDate', { dateTime: true }),
    rating: r.text('Rating'),
    status: (r.text('Status', { required: true, oneOf: STATUSES }) ?? 'Active') as Film['status'],
    content: r.text('Content'),
    duration: r.integer('Duration', 0),
    displaySequence: r.integer('DisplaySequence'),
    nationalCode: r.text('NationalCode'),
    format: (r.text('Format', { required: true, oneOf: FILM_FORMATS }) ?? '2D Film') as Film['format'],
    isRestricted: r.boolean('IsRestricted'),
    people: r.list('People').map(({ reader }) => readPerson(reader)),
    audioLanguage: r.text('AudioLanguage'),
    governmentFilmTitle: r.text('GovernmentFilmTitle'),
    filmPosterUrl: r.text('FilmPosterUrl', url),
    filmPosterThumbnailUrl: r.text('FilmPosterThumbnailUrl', url),
    backdropImageUrl: r.text('BackdropImageUrl', url),
    filmTrailerUrl: r.text('FilmTrailerUrl', url),
  };
}

/**
 * Validates one package on its own. Whether its films exist is a question about the whole
 * catalogue, answered by `checkImport`.
 */
export function readPackage(record: RawRecord, report: ReportRule): FilmPackage {
  const r = new FieldReader(record, report);
  const seenOrders = new Set<number>();
  const films: PackageFilm[] = r.list('Films').map(({ item, reader, path }) => {
    const film: PackageFilm = {
      filmId: reader.text('FilmId', { required: true, nonEmpty: true, maxLength: 64 }) ?? '',
      title: reader.text('Title', { required: true, nonEmpty: true }) ?? '',
      splitMillionths: reader.percent('SplitPercent'),
      trailerDuration: reader.integer('TrailerDuration', 0),
      cleanUpDuration: reader.integer('CleanUpDuration', 0),
      order: reader.integer('Order', 1),
    };
    if (seenOrders.has(film.order)) {
      report(`${path}.Order`, 'must be unique within the package', describeValue(item['Order']));
    }
    seenOrders.add(film.order);
    return film;
  });
  return {
    id: r.integer('Id', 1, MAX_INT32),
    title: r.text('Title', { required: true, nonEmpty: true }) ?? '',
    status: (r.text('Status', { required: true, oneOf: STATUSES }) ?? 'Active') as FilmPackage['status'],
    films: films.sort((a, b) => a.order - b.order),
  };
}
