/**
 * The programme's answers (CONTRACT §12) of one published catalogue, in each of its formats, its
 * page, and the films coming soon (§15). An answer is written on its first request and kept, with
 * its ETag and compressed forms, until the clock changes it: until a session in it reaches its
 * sales cut-off (or, for the films coming soon, starts), and, for the window that starts today,
 * until the day turns (today is then another day, and another answer); and until a picture it
 * names is read (its size is then known). Only the answers asked for lately are kept.
 */
import type { ChangedRecords } from '../catalogue/changed-records.js';
import type { CatalogueSnapshot } from '../catalogue/snapshot.js';
import type { PictureDirectory } from '../images/picture-directory.js';
import type { HeldBytes } from '../formats/held-bytes.js';
import { Representation } from '../formats/representation.js';
import { showtimesCalendar } from './showtimes-calendar.js';
import { ComingSoon, type ComingSelection } from './coming-soon.js';
import { comingSoonJson, ProgrammeTexts, showtimesJson } from './showtimes-json.js';
import { PageDressing } from './page-dressing.js';
import { showtimesPage, type PageVisit } from './showtimes-page.js';
import { showtimesLinkedDataText } from './showtimes-linked-data.js';
import type { ShowtimesQuery } from './showtimes-query.js';
import { Showings, type Selection } from './showings.js';

export const SHOWTIMES_FORMATS = ['json', 'calendar', 'linkedData'] as const;
export type ShowtimesFormat = (typeof SHOWTIMES_FORMATS)[number];

/**
 * Answers kept per catalogue: the default week in each format, and filters asked for lately.
 * Each is a few to a few hundred kilobytes.
 */
const MAX_KEPT_ANSWERS = 64;
/** What a showing's objects hold: about 860 bytes measured on Node.js 24 with 5,000 of the demo cinema's sessions, rounded up. */
const BYTES_PER_SHOWING = 1000;

/** An answer's bytes, its ETag when its writer made it, and the instant until which the clock leaves it as it is. */
interface Written {
  readonly body: Buffer;
  readonly etag?: string;
  readonly until: number;
}

interface Kept {
  readonly representation: Representation;
  readonly until: number;
  readonly held: HeldBytes;
}

export class Showtimes {
  private readonly kept = new Map<string, Kept>();
  private dressing: PageDressing | undefined;
  private today: { readonly day: string; readonly until: number } | undefined;

  private constructor(
    private readonly showings: Showings,
    private readonly comingSoon: ComingSoon,
    private readonly customer: string,
    private readonly changedAt: Date,
    private readonly held: HeldBytes,
    /** Carried from edition to edition: a change writes only the texts of what it changed. */
    private readonly texts: ProgrammeTexts,
  ) {}

  /** The programme of `snapshot`, or undefined while it has no site, whose zone gives its times a meaning. */
  static prepare(snapshot: CatalogueSnapshot, held: HeldBytes): Showtimes | undefined {
    const showings = Showings.prepare(snapshot);
    if (showings === undefined) return undefined;
    return Showtimes.of(showings, ComingSoon.prepare(snapshot.films, showings.showings), snapshot.customer, snapshot.changedAt ?? new Date(0), held, ProgrammeTexts.none(held));
  }

  private static of(showings: Showings, comingSoon: ComingSoon, customer: string, changedAt: Date, held: HeldBytes, texts: ProgrammeTexts): Showtimes {
    held.add(showings.showings.length * BYTES_PER_SHOWING);
    return new Showtimes(showings, comingSoon, customer, changedAt, held, texts);
  }

  /** What `records` lack to place their sessions in this programme (see `Showings.lacking`). */
  lacking(records: ChangedRecords): ReturnType<Showings['lacking']> {
    return this.showings.lacking(records);
  }

  /**
   * The programme once `records` changed, committed at `changedAt`: its answers are written
   * anew, on their first requests, from showings of which only those changed were made again.
   */
  changed(records: ChangedRecords, changedAt: Date, held: HeldBytes): Showtimes {
    const showings = this.showings.changed(records);
    return Showtimes.of(showings, this.comingSoon.changed(records, showings.showings), this.customer, changedAt, held, this.texts.carriedTo(showings.showings, held));
  }

  /** The answer to `query` in `format` at `now`, naming the pictures `pictures` serves. */
  answer(query: ShowtimesQuery, format: ShowtimesFormat, now: number, pictures: PictureDirectory): Representation {
    return this.keepSelection(query, query.from ?? this.cinemaDay(now), now, [format, pictures.generation], (selection) => ({
      ...this.write(format, selection, pictures),
      until: selection.until,
    }));
  }

  /** The films coming soon (`/programme/coming-soon`) at `now`, naming the pictures `pictures` serves. */
  comingSoonAnswer(now: number, pictures: PictureDirectory): Representation {
    return this.keep(JSON.stringify(['coming-soon', pictures.generation]), now, () => {
      const coming = this.comingAt(now);
      return { ...comingSoonJson(coming, pictures, this.texts), until: coming.until };
    });
  }

  /**
   * The page of `query` (`/whats-on`) at `now`, for `visit`. Beside the selection, its bytes
   * depend on today (which days it calls today and tomorrow, which week it offers), on the films
   * coming soon, which the page lists unless it is narrowed to some films, on the visit (the key
   * its links carry, framed or not, and the address it was asked at), and on the pictures the
   * programme knows.
   */
  page(query: ShowtimesQuery, visit: PageVisit, now: number, pictures: PictureDirectory): Representation {
    const today = this.cinemaDay(now);
    return this.keepSelection(query, query.from ?? today, now, ['page', today, visit.key ?? null, visit.embed, visit.origin, pictures.generation], (selection) => {
      const coming = query.films.length === 0 ? this.comingAt(now) : { films: [], until: Infinity };
      const text = showtimesPage(selection, { ...visit, query, today, dressing: this.pageDressing, pictures, accessTerms: this.showings.accessTerms, comingSoon: coming.films });
      return { body: Buffer.from(text), until: Math.min(selection.until, coming.until) };
    });
  }

  /**
   * The selection of `query` from `from` written by `write`, kept under the filters and `written`,
   * what else its bytes depend on, until the clock changes the selection or what `write` says.
   */
  private keepSelection(query: ShowtimesQuery, from: string, now: number, written: readonly unknown[], write: (selection: Selection) => Written): Representation {
    const key = JSON.stringify([...written, from, query.days, query.sessions, query.films, query.screens, query.attributes, query.access]);
    return this.keep(key, now, () => write(this.showings.select(query, from, now)));
  }

  /** The films coming soon at `now`. */
  private comingAt(now: number): ComingSelection {
    const today = this.todayAt(now);
    return this.comingSoon.at(now, today.day, today.until);
  }

  /** What the catalogue's page needs beyond a selection, prepared on its first page. */
  get pageDressing(): PageDressing {
    return (this.dressing ??= PageDressing.of(this.showings.showings));
  }

  /** The answer kept under `key` while the clock leaves it as it is, else written anew by `write` and kept. */
  private keep(key: string, now: number, write: () => Written): Representation {
    const kept = this.kept.get(key);
    if (kept !== undefined && now < kept.until) {
      // The most recently asked is kept longest: out and in again.
      this.kept.delete(key);
      this.kept.set(key, kept);
      return kept.representation;
    }
    kept?.held.release();
    this.kept.delete(key);
    const { body, etag, until } = write();
    const held = this.held.part();
    held.add(body.length);
    const answer = { representation: new Representation(body, held, etag), until, held };
    this.kept.set(key, answer);
    if (this.kept.size > MAX_KEPT_ANSWERS) this.letGoOldest();
    return answer.representation;
  }

  /** The cinema day at the site at `now`. */
  private cinemaDay(now: number): string {
    return this.todayAt(now).day;
  }

  /** The cinema day at the site at `now`, and the instant it ends. */
  private todayAt(now: number): { readonly day: string; readonly until: number } {
    if (this.today === undefined || now >= this.today.until) this.today = this.showings.today(now);
    return this.today;
  }

  private write(format: ShowtimesFormat, selection: Selection, pictures: PictureDirectory): Omit<Written, 'until'> {
    if (format === 'json') return showtimesJson(selection, pictures, this.texts);
    if (format === 'calendar') return { body: Buffer.from(showtimesCalendar(selection, { customer: this.customer, changedAt: this.changedAt })) };
    return { body: Buffer.from(showtimesLinkedDataText(selection, pictures)) };
  }

  private letGoOldest(): void {
    const [oldest] = this.kept;
    if (oldest === undefined) return;
    oldest[1].held.release();
    this.kept.delete(oldest[0]);
  }
}
