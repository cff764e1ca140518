/**
 * The programme of a catalogue (CONTRACT §12), prepared once per snapshot: the site, each film
 * and package shown, and each public session placed in time: its cinema day, its times with the
 * site's offset at each instant, its screen and attributes by name. Choosing the showings of a
 * window and grouping them by feature is then a walk over a sorted array, and what the clock
 * decides (on sale now, today) is the only thing left to each answer.
 */
import { compareCodePoints } from '../catalogue/code-points.js';
import type { Film, FilmPackage, Session, Site } from '../catalogue/model.js';
import { ianaZoneOf, wallClockTime, ZoneClock } from '../catalogue/site-time.js';
import type { CatalogueSnapshot } from '../catalogue/snapshot.js';
import { addDays, cinemaDayOf, nextCinemaDayStart } from './cinema-day.js';
import type { ShowtimesQuery } from './showtimes-query.js';

export interface ShowtimesSite {
  readonly name: string;
  /** The address lines given, without the post code. */
  readonly addressLines: readonly string[];
  readonly postCode: string | null;
  readonly country: string;
  readonly phone: string | null;
  /** The IANA zone of the site's Windows zone. */
  readonly timeZone: string;
  readonly screens: readonly ScreenName[];
}

export interface ScreenName {
  readonly id: number;
  readonly name: string;
}

export interface AttributeBadge {
  readonly id: string;
  readonly name: string;
  readonly shortName: string;
  readonly fontColor: string;
  readonly backgroundColor: string;
}

export interface Person {
  readonly name: string;
  readonly role: string;
}

/** A film or a package as the programme shows it. */
export interface Feature {
  readonly kind: 'film' | 'package';
  readonly id: string | number;
  readonly title: string;
  readonly synopsis: string | null;
  readonly genre: string | null;
  readonly rating: string | null;
  /** A film's Duration; a package's, the sum of its films'. */
  readonly runtimeMinutes: number;
  /** `YYYY-MM-DD`. */
  readonly openingDate: string | null;
  readonly poster: string | null;
  readonly posterThumbnail: string | null;
  readonly backdrop: string | null;
  readonly trailer: string | null;
  /**
   * The URLs of its pictures (CONTRACT §13): the poster is the poster, else its thumbnail; a
   * package's, those of its first film that has one.
   */
  readonly pictures: { readonly poster: string | null; readonly backdrop: string | null };
  /** A film's people, by name; none for a package. */
  readonly people: readonly Person[];
  /** The films a package shows, in order; for a film, the film itself. */
  readonly films: readonly Film[];
}

/** A public session, placed in time. */
export interface Showing {
  readonly id: number;
  readonly feature: Feature;
  /** Its cinema day, `YYYY-MM-DD`. */
  readonly day: string;
  /** RFC 3339 with the site's offset at each instant. */
  readonly start: string;
  readonly featureStart: string;
  readonly end: string;
  readonly salesCutOff: string;
  /** Milliseconds since the epoch. */
  readonly startInstant: number;
  readonly endInstant: number;
  readonly cutOffInstant: number;
  readonly screen: ScreenName;
  readonly attributes: readonly AttributeBadge[];
  readonly format: string;
  readonly audioLanguage: string | null;
  readonly seating: string;
  /** Open, sold through WWW and with a Url: on sale until its cut-off (CONTRACT §11). */
  readonly soldOnWeb: boolean;
  readonly url: string | null;
  readonly soldOut: boolean;
  readonly fewTicketsLeft: boolean;
  readonly seatsAvailable: number;
  readonly status: string;
}

/** A showing in one answer: on sale or not, as the clock said then. */
export interface ShownSession {
  readonly showing: Showing;
  readonly onSale: boolean;
}

/** A feature with its showings of one answer, in order of start. */
export interface FeatureSessions {
  readonly feature: Feature;
  readonly sessions: readonly ShownSession[];
}

/** What one answer holds, whatever its format. */
export interface Selection {
  readonly site: ShowtimesSite;
  readonly from: string;
  readonly days: number;
  readonly features: readonly FeatureSessions[];
  /** The instant until which the clock leaves the selection as it is: a cut-off, or the day turning. */
  readonly until: number;
}

/** Text a cinema left empty is no text. */
export function given(text: string | null): string | null {
  return text === null || text.trim() === '' ? null : text;
}

function addressLines(site: Site): string[] {
  return [site.address1, site.address2, site.address3].map(given).filter((line) => line !== null);
}

function personName(person: Film['people'][number]): string {
  return [person.firstName, person.lastName].map(given).filter((part) => part !== null).join(' ');
}

/** A film's poster (the poster, else its thumbnail) and backdrop. */
export function filmPictures(film: Film): Feature['pictures'] {
  return { poster: given(film.filmPosterUrl) ?? given(film.filmPosterThumbnailUrl), backdrop: given(film.backdropImageUrl) };
}

function filmFeature(film: Film): Feature {
  return {
    kind: 'film',
    id: film.id,
    title: film.title,
    synopsis: film.synopsis,
    genre: film.genre,
    rating: film.rating,
    runtimeMinutes: film.duration,
    openingDate: film.openingDate?.slice(0, 10) ?? null,
    poster: given(film.filmPosterUrl),
    posterThumbnail: given(film.filmPosterThumbnailUrl),
    backdrop: given(film.backdropImageUrl),
    trailer: given(film.filmTrailerUrl),
    pictures: filmPictures(film),
    people: film.people.map((person) => ({ name: personName(person), role: person.role })).filter((person) => person.name !== ''),
    films: [film],
  };
}

function packageFeature(filmPackage: FilmPackage, films: ReadonlyMap<string, Film>): Feature {
  const shown = filmPackage.films.map((packageFilm) => films.get(packageFilm.filmId)).filter((film): film is Film => film !== undefined);
  return {
    kind: 'package',
    id: filmPackage.id,
    title: filmPackage.title,
    synopsis: null,
    genre: null,
    rating: null,
    runtimeMinutes: shown.reduce((sum, film) => sum + film.duration, 0),
    openingDate: null,
    poster: null,
    posterThumbnail: null,
    backdrop: null,
    trailer: null,
    pictures: {
      poster: shown.map((film) => filmPictures(film).poster).find((url) => url !== null) ?? null,
      backdrop: shown.map((film) => filmPictures(film).backdrop).find((url) => url !== null) ?? null,
    },
    people: [],
    films: shown,
  };
}

/** Features by their kind and id, made when a showing first names them. */
class FeatureIndex {
  private readonly features = new Map<string, Feature>();
  private readonly films: ReadonlyMap<string, Film>;
  private readonly packages: ReadonlyMap<number, FilmPackage>;

  constructor(snapshot: CatalogueSnapshot) {
    this.films = new Map(snapshot.films.map((film) => [film.id, film]));
    this.packages = new Map(snapshot.packages.map((filmPackage) => [filmPackage.id, filmPackage]));
  }

  /** The session's film or package; the import made sure the one it names exists. */
  of(session: Session): Feature {
    const key = session.filmPackageId === null ? `film ${session.filmId}` : `package ${session.filmPackageId}`;
    let feature = this.features.get(key);
    if (feature === undefined) {
      feature = session.filmPackageId === null
        ? filmFeature(this.films.get(session.filmId as string) as Film)
        : packageFeature(this.packages.get(session.filmPackageId) as FilmPackage, this.films);
      this.features.set(key, feature);
    }
    return feature;
  }
}

/** The first place in `showings` (sorted by day) whose day is `day` or later. */
function firstOnOrAfter(showings: readonly Showing[], day: string): number {
  let low = 0;
  let high = showings.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((showings[middle] as Showing).day < day) low = middle + 1;
    else high = middle;
  }
  return low;
}

export class Showings {
  private constructor(
    readonly site: ShowtimesSite,
    private readonly clock: ZoneClock,
    /** In the snapshot's order of sessions: by start, so by cinema day. */
    readonly showings: readonly Showing[],
  ) {}

  /** The programme of `snapshot`, or undefined while it has no site, whose zone gives its sessions' times a meaning. */
  static prepare(snapshot: CatalogueSnapshot): Showings | undefined {
    const site = snapshot.site;
    const zone = site === null ? undefined : ianaZoneOf(site.timeZoneIdentifier);
    if (site === null || zone === undefined) return undefined;
    const clock = new ZoneClock(zone);
    const screens = new Map(snapshot.screens.map((screen) => [screen.id, { id: screen.id, name: screen.name }]));
    const badges = new Map(
      snapshot.attributes.map((attribute) => [
        attribute.id,
        { id: attribute.id, name: attribute.description, shortName: attribute.shortName, fontColor: attribute.fontColor, backgroundColor: attribute.backgroundColor },
      ]),
    );
    const features = new FeatureIndex(snapshot);
    const showings = snapshot.sessions
      .filter((session) => session.showType === 'Public')
      .map((session): Showing => ({
        id: session.id,
        feature: features.of(session),
        day: cinemaDayOf(session.preShowStartTime),
        start: clock.timestamp(session.preShowStartTime),
        featureStart: clock.timestamp(session.featureStartTime),
        end: clock.timestamp(session.featureEndTime),
        salesCutOff: clock.timestamp(session.salesCutOffTime),
        startInstant: clock.instantOf(session.preShowStartTime),
        endInstant: clock.instantOf(session.featureEndTime),
        cutOffInstant: clock.instantOf(session.salesCutOffTime),
        screen: screens.get(session.screenId) as ScreenName,
        attributes: session.attributes.map((id) => badges.get(id) as AttributeBadge),
        format: session.filmFormat,
        audioLanguage: session.audioLanguage,
        seating: session.seating,
        soldOnWeb: session.status === 'Open' && session.salesVia.includes('WWW') && session.url !== null,
        url: session.url,
        soldOut: session.ticketsSoldOut,
        fewTicketsLeft: session.fewTicketsLeft,
        seatsAvailable: session.seatsAvailable,
        status: session.status,
      }));
    const summary: ShowtimesSite = {
      name: site.name,
      addressLines: addressLines(site),
      postCode: given(site.postCode),
      country: site.country,
      phone: given(site.phone1),
      timeZone: zone,
      screens: site.screens.map((id) => screens.get(id) as ScreenName),
    };
    return new Showings(summary, clock, showings);
  }

  /** The cinema day at the site at `now`, and the instant the next one begins. */
  today(now: number): { readonly day: string; readonly until: number } {
    const day = cinemaDayOf(wallClockTime(this.site.timeZone, now));
    return { day, until: this.clock.instantOf(nextCinemaDayStart(day)) };
  }

  /** The showings `query` asks for at `now`, by feature; `from` is the first cinema day. */
  select(query: ShowtimesQuery, from: string, now: number): Selection {
    const to = addDays(from, query.days);
    const byFeature = new Map<Feature, ShownSession[]>();
    let until = Infinity;
    for (let place = firstOnOrAfter(this.showings, from); place < this.showings.length; place++) {
      const showing = this.showings[place] as Showing;
      if (showing.day >= to) break;
      if (!matches(showing, query)) continue;
      const onSale = showing.soldOnWeb && showing.cutOffInstant > now;
      if (!onSale && query.sessions === 'on-sale') continue;
      // A showing on sale is on sale until its cut-off passes; one not on sale stays so.
      if (onSale) until = Math.min(until, showing.cutOffInstant);
      const sessions = byFeature.get(showing.feature);
      if (sessions === undefined) byFeature.set(showing.feature, [{ showing, onSale }]);
      else sessions.push({ showing, onSale });
    }
    const features = [...byFeature].map(([feature, sessions]) => ({ feature, sessions }));
    // Each feature's first session is the earliest of its own; ties between features go by title.
    features.sort(
      (a, b) => (a.sessions[0] as ShownSession).showing.startInstant - (b.sessions[0] as ShownSession).showing.startInstant || compareCodePoints(a.feature.title, b.feature.title),
    );
    return { site: this.site, from, days: query.days, features, until };
  }
}

function matches(showing: Showing, query: ShowtimesQuery): boolean {
  if (query.films.length > 0 && !showing.feature.films.some((film) => query.films.includes(film.id))) return false;
  if (query.screens.length > 0 && !query.screens.includes(showing.screen.id)) return false;
  return query.attributes.every((id) => showing.attributes.some((attribute) => attribute.id === id));
}
