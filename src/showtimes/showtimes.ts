/**
 * The programme's answers (CONTRACT §12) of one published catalogue, in each of its formats, and
 * its page. An answer is written on its first request and kept, with its ETag and compressed forms, until
 * the clock changes it: until a session in it reaches its sales cut-off, and, for the window
 * that starts today, until the day turns (today is then another day, and another answer), and
 * until a picture it names is read (its size is then known). Only the answers asked for lately
 * are kept.
 */
import type { CatalogueSnapshot } from '../catalogue/snapshot.js';
import type { PictureDirectory } from '../images/picture-directory.js';
import type { HeldBytes } from '../formats/held-bytes.js';
import { Representation } from '../formats/representation.js';
import { showtimesCalendar } from './showtimes-calendar.js';
import { showtimesJson } from './showtimes-json.js';
import { PageDressing } from './page-dressing.js';
import { showtimesPage, type PageVisit } from './showtimes-page.js';
import { showtimesLinkedData } from './showtimes-linked-data.js';
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
    private readonly customer: string,
    private readonly changedAt: Date,
    private readonly held: HeldBytes,
  ) {}

  /** The programme of `snapshot`, or undefined while it has no site, whose zone gives its times a meaning. */
  static prepare(snapshot: CatalogueSnapshot, held: HeldBytes): Showtimes | undefined {
    const showings = Showings.prepare(snapshot);
    if (showings === undefined) return undefined;
    held.add(showings.showings.length * BYTES_PER_SHOWING);
    return new Showtimes(showings, snapshot.customer, snapshot.changedAt ?? new Date(0), held);
  }

  /** The answer to `query` in `format` at `now`, naming the pictures `pictures` serves. */
  answer(query: ShowtimesQuery, format: ShowtimesFormat, now: number, pictures: PictureDirectory): Representation {
    return this.keepSelection(query, query.from ?? this.cinemaDay(now), now, [format, pictures.generation], (selection) => this.write(format, selection, pictures));
  }

  /**
   * The page of `query` (`/whats-on`) at `now`, for `visit`. Beside the selection, its bytes
   * depend on today (which days it calls today and tomorrow, which week it offers) and on the
   * visit: the key its links carry, framed or not, and the address it was asked at; and on the
   * pictures the programme knows.
   */
  page(query: ShowtimesQuery, visit: PageVisit, now: number, pictures: PictureDirectory): Representation {
    const today = this.cinemaDay(now);
    return this.keepSelection(query, query.from ?? today, now, ['page', today, visit.key ?? null, visit.embed, visit.origin, pictures.generation], (selection) =>
      showtimesPage(selection, { ...visit, query, today, dressing: this.pageDressing, pictures }),
    );
  }

  /**
   * The selection of `query` from `from` written by `write`, kept under the filters and `written`,
   * what else its bytes depend on.
   */
  private keepSelection(query: ShowtimesQuery, from: string, now: number, written: readonly unknown[], write: (selection: Selection) => string): Representation {
    const key = JSON.stringify([...written, from, query.days, query.sessions, query.films, query.screens, query.attributes]);
    return this.keep(key, now, () => {
      const selection = this.showings.select(query, from, now);
      return { text: write(selection), until: selection.until };
    });
  }

  /** What the catalogue's page needs beyond a selection, prepared on its first page. */
  get pageDressing(): PageDressing {
    return (this.dressing ??= PageDressing.of(this.showings.showings));
  }

  /** The answer kept under `key` while the clock leaves it as it is, else written anew by `write` and kept. */
  private keep(key: string, now: number, write: () => { readonly text: string; readonly until: number }): Representation {
    const kept = this.kept.get(key);
    if (kept !== undefined && now < kept.until) {
      // The most recently asked is kept longest: out and in again.
      this.kept.delete(key);
      this.kept.set(key, kept);
      return kept.representation;
    }
    kept?.held.release();
    this.kept.delete(key);
    const written = write();
    const held = this.held.part();
    const body = Buffer.from(written.text);
    held.add(body.length);
    const answer = { representation: new Representation(body, held), until: written.until, held };
    this.kept.set(key, answer);
    if (this.kept.size > MAX_KEPT_ANSWERS) this.letGoOldest();
    return answer.representation;
  }

  /** The cinema day at the site at `now`. */
  private cinemaDay(now: number): string {
    if (this.today === undefined || now >= this.today.until) this.today = this.showings.today(now);
    return this.today.day;
  }

  private write(format: ShowtimesFormat, selection: Selection, pictures: PictureDirectory): string {
    if (format === 'json') return showtimesJson(selection, pictures);
    if (format === 'calendar') return showtimesCalendar(selection, { customer: this.customer, changedAt: this.changedAt });
    return JSON.stringify(showtimesLinkedData(selection, pictures));
  }

  private letGoOldest(): void {
    const [oldest] = this.kept;
    if (oldest === undefined) return;
    oldest[1].held.release();
    this.kept.delete(oldest[0]);
  }
}
