/**
 * The films coming soon (CONTRACT §15): films not on sale now that will be, which Veezi has no
 * list of and every cinema's site guesses. A film is coming soon when nothing of it is on sale on
 * the web now (no session of its own, nor of a package showing it) and either its opening date is
 * after today or a session of it is still to come (not yet started, Planned or not). A Deleted
 * film never is. Prepared once per snapshot, each film with its public showings; what the
 * clock decides is left to each answer.
 */
import { compareCodePoints } from '../catalogue/code-points.js';
import type { ChangedRecords } from '../catalogue/changed-records.js';
import type { Film } from '../catalogue/model.js';
import { filmFeature, type Feature, type Showing } from './showings.js';

/** A film coming soon, and its next session if one is known. */
export interface ComingFilm {
  readonly feature: Feature;
  /** Its first session still to come, or null when only its opening date says it is coming. */
  readonly firstSession: Showing | null;
}

/** The films coming soon at one instant, and until when the clock leaves the list as it is. */
export interface ComingSelection {
  readonly films: readonly ComingFilm[];
  readonly until: number;
}

interface Candidate {
  readonly feature: Feature;
  /** Its public showings, its own and its packages', by start. */
  readonly showings: readonly Showing[];
}

export class ComingSoon {
  private paired: readonly Candidate[] | undefined;

  private constructor(
    /** The films that may be coming soon. */
    private readonly features: readonly Feature[],
    /** The programme's public showings, by start. */
    private readonly showings: readonly Showing[],
  ) {}

  /** The films that may be coming soon: each of `films` but the Deleted, with its public `showings` (by start). */
  static prepare(films: readonly Film[], showings: readonly Showing[]): ComingSoon {
    return new ComingSoon(
      films.filter((film) => film.status !== 'Deleted').map(filmFeature),
      showings,
    );
  }

  /** The films that may be coming soon once `records` changed, the programme's showings being now `showings`. */
  changed(records: ChangedRecords, showings: readonly Showing[]): ComingSoon {
    const touched = records.touched.films;
    const kept = touched.size === 0 ? this.features : this.features.filter((feature) => !touched.has(feature.id as string));
    const read = records.films.filter((film) => touched.has(film.id) && film.status !== 'Deleted').map(filmFeature);
    return new ComingSoon(read.length === 0 ? kept : [...kept, ...read], showings);
  }

  /**
   * Each film with its showings, paired on the first request for the films coming soon: most
   * editions of a catalogue changing every minute are never asked for them.
   */
  private get candidates(): readonly Candidate[] {
    if (this.paired === undefined) {
      const byFilm = new Map<string, Showing[]>();
      for (const showing of this.showings) {
        for (const film of showing.feature.films) {
          const shown = byFilm.get(film.id);
          if (shown === undefined) byFilm.set(film.id, [showing]);
          else shown.push(showing);
        }
      }
      this.paired = this.features.map((feature) => ({ feature, showings: byFilm.get(feature.id as string) ?? [] }));
    }
    return this.paired;
  }

  /** The films coming soon at `now`, `today` being the cinema day then, which lasts until `dayEnds`. */
  at(now: number, today: string, dayEnds: number): ComingSelection {
    const films: ComingFilm[] = [];
    // Each film's standing changes when a session on sale reaches its cut-off, a session to come
    // starts, or the day turns.
    let until = dayEnds;
    for (const { feature, showings } of this.candidates) {
      let onSale = false;
      let firstSession: Showing | null = null;
      for (const showing of showings) {
        if (showing.soldOnWeb && showing.cutOffInstant > now) {
          onSale = true;
          until = Math.min(until, showing.cutOffInstant);
        }
        if (showing.startInstant > now) {
          firstSession ??= showing;
          until = Math.min(until, showing.startInstant);
        }
      }
      const opens = feature.openingDate !== null && feature.openingDate > today;
      if (!onSale && (opens || firstSession !== null)) films.push({ feature, firstSession });
    }
    // By opening date, a film with none last, then by title, then by id: the same order however the films came.
    films.sort(
      (a, b) =>
        compareOpening(a.feature.openingDate, b.feature.openingDate) ||
        compareCodePoints(a.feature.title, b.feature.title) ||
        compareCodePoints(String(a.feature.id), String(b.feature.id)),
    );
    return { films, until };
  }
}

function compareOpening(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return a < b ? -1 : 1;
}
