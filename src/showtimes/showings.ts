/**
 * The programme of a catalogue (CONTRACT §12), prepared once per snapshot: the site, each film
 * and package shown, and each public session placed in time: its cinema day, its times with the
 * site's offset at each instant, its screen and attributes by name. Choosing the showings of a
 * window and grouping them by feature is then a walk over a sorted array, and what the clock
 * decides (on sale now, today) is the only thing left to each answer.
 */
import { compareCodePoints } from '../catalogue/code-points.js';
import type { ChangedRecords } from '../catalogue/changed-records.js';
import type { Attribute, Film, FilmPackage, Screen, Session, Site } from '../catalogue/model.js';
import { ianaZoneOf, wallClockTime, ZoneClock } from '../catalogue/site-time.js';
import type { CatalogueSnapshot } from '../catalogue/snapshot.js';
import { ACCESS_TERMS, correctedReading, NO_READING, readAttribute, type AccessTerm, type AttributeReading } from './access-terms.js';
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
  /** Its PreShowStartTime, as imported: what orders the showings as the sessions are. */
  readonly wallStart: string;
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
  /** What its attributes say in the access vocabulary (CONTRACT §15), in the vocabulary's order. */
  readonly access: readonly AccessTerm[];
  /** The language of its subtitles or captions, a BCP 47 tag, when an attribute names one. */
  readonly subtitleLanguage: string | null;
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

/** A film as the programme shows it. */
export function filmFeature(film: Film): Feature {
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

function featureKey(kind: Feature['kind'], id: string | number): string {
  return `${kind} ${id}`;
}

/** The key of the feature a session shows. */
function featureKeyOf(session: Session): string {
  return session.filmPackageId === null ? featureKey('film', session.filmId as string) : featureKey('package', session.filmPackageId);
}

/** Features by their kind and id, made when a showing first names them, or given already made. */
class FeatureIndex {
  constructor(
    readonly films: ReadonlyMap<string, Film>,
    private readonly packages: ReadonlyMap<number, FilmPackage>,
    readonly features = new Map<string, Feature>(),
  ) {}

  /** The session's film or package; the import made sure the one it names exists. */
  of(session: Session): Feature {
    return this.byKey(featureKeyOf(session), session.filmPackageId ?? (session.filmId as string));
  }

  byKey(key: string, id: string | number): Feature {
    let feature = this.features.get(key);
    if (feature === undefined) {
      feature = typeof id === 'string' ? filmFeature(this.films.get(id) as Film) : packageFeature(this.packages.get(id) as FilmPackage, this.films);
      this.features.set(key, feature);
    }
    return feature;
  }
}

/** What makes a showing of a session, beside its feature. */
interface Placing {
  readonly clock: ZoneClock;
  readonly screens: ReadonlyMap<number, ScreenName>;
  readonly badges: ReadonlyMap<string, AttributeBadge>;
  /** What each attribute says in the access vocabulary, as the cinema corrected it. */
  readonly readings: ReadonlyMap<string, AttributeReading>;
  /** The cinema's corrections (`marquee access set`), for attributes read anew. */
  readonly corrections: ReadonlyMap<string, readonly AccessTerm[]>;
}

function showingOf(session: Session, feature: Feature, { clock, screens, badges, readings }: Placing): Showing {
  const reading = sessionReading(session.attributes, readings);
  return {
    id: session.id,
    wallStart: session.preShowStartTime,
    feature,
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
    access: reading.terms,
    subtitleLanguage: reading.subtitleLanguage,
    format: session.filmFormat,
    audioLanguage: session.audioLanguage,
    seating: session.seating,
    soldOnWeb: session.status === 'Open' && session.salesVia.includes('WWW') && session.url !== null,
    url: session.url,
    soldOut: session.ticketsSoldOut,
    fewTicketsLeft: session.fewTicketsLeft,
    seatsAvailable: session.seatsAvailable,
    status: session.status,
  };
}

function screenName(screen: Screen): ScreenName {
  return { id: screen.id, name: screen.name };
}

function readingOf(attribute: Attribute, corrections: ReadonlyMap<string, readonly AccessTerm[]>): AttributeReading {
  return correctedReading(readAttribute(attribute), corrections.get(attribute.id));
}

/** What a session's attributes say together: every term any says, and the first language of subtitles named. */
function sessionReading(attributes: readonly string[], readings: ReadonlyMap<string, AttributeReading>): AttributeReading {
  if (attributes.length === 0) return NO_READING;
  const read = attributes.map((id) => readings.get(id) ?? NO_READING);
  const terms = ACCESS_TERMS.filter((term) => read.some((reading) => reading.terms.includes(term)));
  return { terms, subtitleLanguage: read.find((reading) => reading.subtitleLanguage !== null)?.subtitleLanguage ?? null };
}

function badgeOf(attribute: Attribute): AttributeBadge {
  return { id: attribute.id, name: attribute.description, shortName: attribute.shortName, fontColor: attribute.fontColor, backgroundColor: attribute.backgroundColor };
}

/** `map` with the records of `changed` put in by key and the other `touched` keys taken out. */
function withChanges<Key, Value, T>(map: ReadonlyMap<Key, Value>, touched: ReadonlySet<string>, changed: readonly T[], key: (record: T) => Key, value: (record: T) => Value): ReadonlyMap<Key, Value> {
  if (touched.size === 0 && changed.length === 0) return map;
  const next = new Map(map);
  for (const key of map.keys()) if (touched.has(String(key))) next.delete(key);
  for (const record of changed) next.set(key(record), value(record));
  return next;
}

/** The features of `features` that `kept` keeps, by the same keys. */
function keptFeatures(features: ReadonlyMap<string, Feature>, kept: (feature: Feature) => boolean): Map<string, Feature> {
  const keptByKey = new Map<string, Feature>();
  features.forEach((feature, key) => {
    if (kept(feature)) keptByKey.set(key, feature);
  });
  return keptByKey;
}

/** The films of the features of `showings`, by id. */
function shownFilms(showings: readonly Showing[]): Map<string, Film> {
  const films = new Map<string, Film>();
  for (const { feature } of showings) for (const film of feature.films) films.set(film.id, film);
  return films;
}

/** In the order of sessions: by PreShowStartTime (text of one fixed width, in ASCII: compared as it is), then Id. */
function compareShowings(a: Showing, b: Showing): number {
  return a.wallStart < b.wallStart ? -1 : a.wallStart > b.wallStart ? 1 : a.id - b.id;
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
    private readonly placing: Placing,
    /** The packages of the features shown, which a change of one of their films makes again. */
    private readonly packages: ReadonlyMap<number, FilmPackage>,
    /** In the snapshot's order of sessions: by start, so by cinema day. */
    readonly showings: readonly Showing[],
    /** The access terms some showing carries, in the vocabulary's order: the page's filters. */
    readonly accessTerms: readonly AccessTerm[],
    /**
     * The films and the features shown, as they are now, by id and by kind and id; and those
     * shown in an earlier edition, kept as current by each change: each change would otherwise
     * gather them again from every showing.
     */
    private readonly index: FeatureIndex,
  ) {}

  /** The programme of `snapshot`, or undefined while it has no site, whose zone gives its sessions' times a meaning. */
  static prepare(snapshot: CatalogueSnapshot): Showings | undefined {
    const site = snapshot.site;
    const zone = site === null ? undefined : ianaZoneOf(site.timeZoneIdentifier);
    if (site === null || zone === undefined) return undefined;
    const screens = new Map(snapshot.screens.map((screen) => [screen.id, screenName(screen)]));
    const corrections = snapshot.accessCorrections;
    const placing: Placing = {
      clock: new ZoneClock(zone),
      screens,
      badges: new Map(snapshot.attributes.map((attribute) => [attribute.id, badgeOf(attribute)])),
      readings: new Map(snapshot.attributes.map((attribute) => [attribute.id, readingOf(attribute, corrections)])),
      corrections,
    };
    const packages = new Map(snapshot.packages.map((filmPackage) => [filmPackage.id, filmPackage]));
    const features = new FeatureIndex(new Map(snapshot.films.map((film) => [film.id, film])), packages);
    const showings = snapshot.sessions.filter((session) => session.showType === 'Public').map((session) => showingOf(session, features.of(session), placing));
    const summary: ShowtimesSite = {
      name: site.name,
      addressLines: addressLines(site),
      postCode: given(site.postCode),
      country: site.country,
      phone: given(site.phone1),
      timeZone: zone,
      screens: site.screens.map((id) => screens.get(id) as ScreenName),
    };
    return Showings.of(summary, placing, packages, showings, new FeatureIndex(shownFilms(showings), packages, features.features));
  }

  /** Keeps, of `packages`, those of the features shown. */
  private static of(site: ShowtimesSite, placing: Placing, packages: ReadonlyMap<number, FilmPackage>, showings: readonly Showing[], index: FeatureIndex): Showings {
    const shown = new Map<number, FilmPackage>();
    for (const { feature } of showings) if (feature.kind === 'package') shown.set(feature.id as number, packages.get(feature.id as number) as FilmPackage);
    const accessTerms = ACCESS_TERMS.filter((term) => showings.some((showing) => showing.access.includes(term)));
    return new Showings(site, placing, shown, showings, accessTerms, index);
  }

  /**
   * The films and packages `records` lack to place their sessions here, by their keys as text:
   * what a changed session shows that no showing shows yet, and the films of the packages read.
   */
  lacking(records: ChangedRecords): { readonly films: string[]; readonly packages: string[] } {
    const read = { films: new Set(records.films.map((film) => film.id)), packages: new Set(records.packages.map((filmPackage) => filmPackage.id)) };
    const knowsFilm = (id: string): boolean => this.index.films.has(id) || read.films.has(id);
    const knowsPackage = (id: number): boolean => this.packages.has(id) || read.packages.has(id);
    const lacking = { films: new Set<string>(), packages: new Set<number>() };
    for (const session of records.sessions) {
      if (session.showType !== 'Public') continue;
      if (session.filmPackageId !== null) {
        if (!knowsPackage(session.filmPackageId)) lacking.packages.add(session.filmPackageId);
      } else if (!knowsFilm(session.filmId as string)) lacking.films.add(session.filmId as string);
    }
    for (const filmPackage of records.packages) for (const { filmId } of filmPackage.films) if (!knowsFilm(filmId)) lacking.films.add(filmId);
    return { films: [...lacking.films], packages: [...lacking.packages].map(String) };
  }

  /**
   * The programme once `records` changed: the showings of changed sessions placed anew, those of
   * changed films, packages, screens and attributes made again from what they already hold, and
   * every other showing as it was. `records` hold what `lacking` asked for.
   */
  changed(records: ChangedRecords): Showings {
    const { touched } = records;
    const placing: Placing = {
      clock: this.placing.clock,
      screens: withChanges(this.placing.screens, touched.screens, records.screens, (screen) => screen.id, screenName),
      badges: withChanges(this.placing.badges, touched.attributes, records.attributes, (attribute) => attribute.id, badgeOf),
      readings: withChanges(this.placing.readings, touched.attributes, records.attributes, (attribute) => attribute.id, (attribute) => readingOf(attribute, this.placing.corrections)),
      corrections: this.placing.corrections,
    };
    const packages = withChanges(this.packages, touched.packages, records.packages, (filmPackage) => filmPackage.id, (filmPackage) => filmPackage);
    const featuresChanged = touched.films.size + touched.packages.size > 0;
    // Features none of whose records changed are kept as they are.
    const touchedFilm = (film: Film): boolean => touched.films.has(film.id);
    const unchanged = (feature: Feature): boolean => !featuresChanged || (!touched[`${feature.kind}s`].has(String(feature.id)) && !feature.films.some(touchedFilm));
    const index = new FeatureIndex(
      withChanges(this.index.films, touched.films, records.films, (film) => film.id, (film) => film),
      packages,
      // A feature is made from its films and package: while none of those changed, each made so far
      // is as it would be made now, and the programme before shares its index.
      featuresChanged ? keptFeatures(this.index.features, unchanged) : this.index.features,
    );
    const current = (badge: AttributeBadge): boolean => placing.badges.get(badge.id) === badge;
    const remade = (showing: Showing): Showing => {
      const feature = unchanged(showing.feature) ? showing.feature : index.byKey(featureKey(showing.feature.kind, showing.feature.id), showing.feature.id);
      const screen = placing.screens.get(showing.screen.id) as ScreenName;
      if (feature === showing.feature && screen === showing.screen && showing.attributes.every(current)) return showing;
      const attributes = showing.attributes.map((badge) => placing.badges.get(badge.id) as AttributeBadge);
      const reading = sessionReading(attributes.map(({ id }) => id), placing.readings);
      return { ...showing, feature, screen, attributes, access: reading.terms, subtitleLanguage: reading.subtitleLanguage };
    };
    const sessions = new Set([...touched.sessions].map(Number));
    // A change of sessions alone leaves every other showing as it is.
    const patched = featuresChanged || touched.screens.size + touched.attributes.size > 0;
    const shown: Showing[] = [];
    for (const showing of this.showings) if (!sessions.has(showing.id)) shown.push(patched ? remade(showing) : showing);
    for (const session of records.sessions) if (session.showType === 'Public') shown.push(showingOf(session, index.of(session), placing));
    const site = touched.screens.size === 0 ? this.site : { ...this.site, screens: this.site.screens.map(({ id }) => placing.screens.get(id) as ScreenName) };
    return Showings.of(site, placing, packages, shown.sort(compareShowings), index);
  }

  /** The cinema day at the site at `now`, and the instant the next one begins. */
  today(now: number): { readonly day: string; readonly until: number } {
    const day = cinemaDayOf(wallClockTime(this.site.timeZone, now));
    return { day, until: this.placing.clock.instantOf(nextCinemaDayStart(day)) };
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

/** Whether `showing` is one `query` asks for; each filter left empty (most answers') is passed over without a look. */
function matches(showing: Showing, query: ShowtimesQuery): boolean {
  if (query.films.length > 0 && !showing.feature.films.some((film) => query.films.includes(film.id))) return false;
  if (query.screens.length > 0 && !query.screens.includes(showing.screen.id)) return false;
  if (query.access.length > 0 && !query.access.every((term) => showing.access.includes(term))) return false;
  return query.attributes.length === 0 || query.attributes.every((id) => showing.attributes.some((attribute) => attribute.id === id));
}
