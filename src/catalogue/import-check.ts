/**
 * Checks a whole import as records arrive: each record against the rules, ids unique across all
 * files, and every record a record names (a package's films, a session's film, package, screen
 * and attributes, the site's screens) one that the catalogue will hold once the import is
 * applied. Only ids and references are kept, so records can flow on as they are checked.
 */
import type { Attribute, Film, FilmPackage, Screen, Session, Site } from './model.js';
import { ProblemList } from './problems.js';
import { readAttribute, readScreen, readSession, readSite } from './programme-rules.js';
import { describeValue, type RawRecord } from './raw-record.js';
import { readFilm, readPackage, type ReportRule } from './rules.js';
import { HUNDRED_PERCENT, formatMillionths } from './split-percent.js';

/** Where a record was found: its file and 1-based position there. */
export interface RecordSource {
  readonly file: string;
  readonly record: number;
}

/** The kinds of record that other records name. */
export type ReferencedKind = 'film' | 'package' | 'screen' | 'attribute';

export interface Reference extends RecordSource {
  /** The id of the record that names another; none for the site. */
  readonly id: string | undefined;
  readonly field: string;
  readonly kind: ReferencedKind;
  readonly key: string | number;
}

/** A session of a package that names one of the package's films. */
interface PackageSession {
  readonly id: number;
  readonly packageId: number;
  readonly filmId: string;
}

/**
 * What the catalogue keeps of its records beside an import: all of them for one that merges into
 * it, those of the kinds it does not replace otherwise (nothing, for one that replaces it whole).
 */
export interface ExistingRecords {
  has(kind: ReferencedKind, key: string | number): boolean;
  readonly hasSite: boolean;
  /** A kept session, which needs a site as much as an imported one. */
  readonly firstSession: (RecordSource & { readonly id: string }) | undefined;
  /** The film ids of a stored package. */
  packageFilms(id: number): readonly string[] | undefined;
  /** The stored sessions of packages that name a film, which a changed package must keep. */
  readonly packageSessions: readonly PackageSession[];
  /**
   * What the kept records name, each found as an import's reference would be: a record that the
   * import removes must not be named by one it keeps.
   */
  readonly references: readonly Reference[];
}

function describeKey(key: string | number): string {
  return typeof key === 'string' ? describeValue(key) : String(key);
}

const NOUNS: Readonly<Record<ReferencedKind, string>> = { film: 'a film', package: 'a film package', screen: 'a screen', attribute: 'an attribute' };

export class ImportCheck {
  readonly problems: ProblemList;
  readonly warnings: ProblemList;
  private readonly sources = {
    film: new Map<string | number, RecordSource>(),
    package: new Map<string | number, RecordSource>(),
    screen: new Map<string | number, RecordSource>(),
    attribute: new Map<string | number, RecordSource>(),
    session: new Map<string | number, RecordSource>(),
  };
  private siteSource: RecordSource | undefined;
  private firstSession: (RecordSource & { readonly id: string }) | undefined;
  private readonly references: Reference[] = [];
  private readonly packageFilms = new Map<number, readonly string[]>();
  private readonly packageSessions: (PackageSession & RecordSource)[] = [];

  /** `maxProblems` problems and as many warnings are kept to be listed; all are counted. */
  constructor(maxProblems: number) {
    this.problems = new ProblemList(maxProblems);
    this.warnings = new ProblemList(maxProblems);
  }

  /** The film if it passes every rule, otherwise undefined (and its problems are recorded). */
  film(source: RecordSource, raw: RawRecord): Film | undefined {
    const id = typeof raw['Id'] === 'string' ? raw['Id'] : undefined;
    return this.check(source, raw, id, readFilm, (film) => film.id, this.sources.film).record;
  }

  /** The package if it passes every rule, otherwise undefined (and its problems are recorded). */
  package(source: RecordSource, raw: RawRecord): FilmPackage | undefined {
    const { record: filmPackage, id } = this.check(source, raw, describeValue(raw['Id']), readPackage, (p) => p.id, this.sources.package);
    if (filmPackage === undefined) return undefined;
    filmPackage.films.forEach((film, index) => this.refer(source, id, `Films[${index + 1}].FilmId`, 'film', film.filmId));
    this.packageFilms.set(filmPackage.id, filmPackage.films.map((film) => film.filmId));
    const total = filmPackage.films.reduce((sum, film) => sum + film.splitMillionths, 0);
    if (filmPackage.films.length > 0 && total !== HUNDRED_PERCENT) {
      this.warnings.add({ ...source, id, field: 'Films', rule: 'SplitPercent values should add up to 100', value: formatMillionths(total) });
    }
    return filmPackage;
  }

  screen(source: RecordSource, raw: RawRecord): Screen | undefined {
    return this.check(source, raw, describeValue(raw['Id']), readScreen, (screen) => screen.id, this.sources.screen).record;
  }

  attribute(source: RecordSource, raw: RawRecord): Attribute | undefined {
    const id = typeof raw['Id'] === 'string' ? raw['Id'] : undefined;
    return this.check(source, raw, id, readAttribute, (attribute) => attribute.id, this.sources.attribute).record;
  }

  /** The site, of which a customer has one: a second in the same import is refused. */
  site(source: RecordSource, raw: RawRecord): Site | undefined {
    const { report, failed } = this.reporter(source, undefined);
    const site = readSite(raw, report);
    if (this.siteSource !== undefined) report('', `must be the only site, but record ${this.siteSource.record} of ${this.siteSource.file} is one too`, 'a second site');
    this.siteSource ??= source;
    if (failed()) return undefined;
    site.screens.forEach((screen, index) => this.refer(source, undefined, `Screens[${index + 1}].Id`, 'screen', screen));
    return site;
  }

  session(source: RecordSource, raw: RawRecord): Session | undefined {
    const { record: session, id } = this.check(source, raw, describeValue(raw['Id']), readSession, (s) => s.id, this.sources.session);
    if (session === undefined) return undefined;
    this.firstSession ??= { ...source, id };
    if (session.filmPackageId === null) this.refer(source, id, 'FilmId', 'film', session.filmId ?? '');
    else {
      this.refer(source, id, 'FilmPackageId', 'package', session.filmPackageId);
      if (session.filmId !== null) this.packageSessions.push({ ...source, id: session.id, packageId: session.filmPackageId, filmId: session.filmId });
    }
    this.refer(source, id, 'ScreenId', 'screen', session.screenId);
    session.attributes.forEach((attribute, index) => this.refer(source, id, `Attributes[${index + 1}]`, 'attribute', attribute));
    if (session.ticketsSoldOut && session.seatsAvailable > 0) {
      this.warnings.add({ ...source, id, field: 'TicketsSoldOut', rule: 'is true while SeatsAvailable is above zero', value: String(session.seatsAvailable) });
    }
    return session;
  }

  /**
   * Checks that every record named, by this import or by a record the catalogue keeps, is one of
   * this import or one the catalogue keeps; that a package session's film is one of its
   * package's; and that sessions have a site, whose zone gives their times meaning.
   */
  resolveReferences(existing: ExistingRecords): void {
    for (const reference of [...this.references, ...existing.references]) {
      if (this.sources[reference.kind].has(reference.key) || existing.has(reference.kind, reference.key)) continue;
      this.problems.add({ ...reference, rule: `must name ${NOUNS[reference.kind]} of the catalogue`, value: describeKey(reference.key) });
    }
    const filmsOf = (packageId: number): readonly string[] | undefined => this.packageFilms.get(packageId) ?? existing.packageFilms(packageId);
    for (const session of this.packageSessions) {
      const films = filmsOf(session.packageId);
      if (films === undefined || films.includes(session.filmId)) continue;
      this.problems.add({ ...session, id: String(session.id), field: 'FilmId', rule: `must be null or one of the films of package ${session.packageId}`, value: describeValue(session.filmId) });
    }
    for (const stored of existing.packageSessions) {
      const films = this.packageFilms.get(stored.packageId);
      const source = this.sources.package.get(stored.packageId);
      if (films === undefined || source === undefined || this.sources.session.has(stored.id) || films.includes(stored.filmId)) continue;
      this.problems.add({ ...source, id: String(stored.packageId), field: 'Films', rule: `must keep the film that session ${stored.id} shows`, value: describeValue(stored.filmId) });
    }
    const session = this.firstSession ?? existing.firstSession;
    if (session !== undefined && this.siteSource === undefined && !existing.hasSite) {
      this.problems.add({ ...session, field: '', rule: "needs the customer's site, whose time zone its times are in; import the site with it", value: 'no site' });
    }
  }

  /** Reads a record with `read`, and checks that its key is not one an earlier record has. */
  private check<T, Key extends string | number>(
    source: RecordSource,
    raw: RawRecord,
    id: string | undefined,
    read: (raw: RawRecord, report: ReportRule) => T,
    key: (record: T) => Key,
    seen: Map<string | number, RecordSource>,
  ): { record: T | undefined; id: string } {
    const { report, failed } = this.reporter(source, id);
    const record = read(raw, report);
    const recordKey = key(record);
    const first = seen.get(recordKey);
    if (first) report('Id', `must be unique, but record ${first.record} of ${first.file} has it too`, describeKey(recordKey));
    // A key that did not read is '' or 0, which no valid record has.
    else if (recordKey !== '' && recordKey !== 0) seen.set(recordKey, source);
    return { record: failed() ? undefined : record, id: String(recordKey) };
  }

  private refer(source: RecordSource, id: string | undefined, field: string, kind: ReferencedKind, key: string | number): void {
    this.references.push({ ...source, id, field, kind, key });
  }

  private reporter(source: RecordSource, id: string | undefined): { report: ReportRule; failed: () => boolean } {
    const before = this.problems.count;
    const report: ReportRule = (field, rule, value) => this.problems.add({ ...source, id, field, rule, value });
    return { report, failed: () => this.problems.count > before };
  }
}
