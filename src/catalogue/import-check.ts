/**
 * Checks a whole import as records arrive: each record against the rules, ids unique across all
 * files, and every package film naming a film that the catalogue will hold once the import is
 * applied. Only ids and references are kept, so records can flow on as they are checked.
 */
import type { Film, FilmPackage } from './model.js';
import { ProblemList } from './problems.js';
import { describeValue, type RawRecord } from './raw-record.js';
import { readFilm, readPackage, type ReportRule } from './rules.js';
import { HUNDRED_PERCENT, formatMillionths } from './split-percent.js';

/** Where a record was found: its file and 1-based position there. */
export interface RecordSource {
  readonly file: string;
  readonly record: number;
}

interface FilmReference extends RecordSource {
  readonly packageId: number;
  readonly field: string;
  readonly filmId: string;
}

export class ImportCheck {
  readonly problems: ProblemList;
  readonly warnings: ProblemList;
  private readonly filmSources = new Map<string, RecordSource>();
  private readonly packageSources = new Map<number, RecordSource>();
  private readonly references: FilmReference[] = [];

  /** `maxProblems` problems and as many warnings are kept to be listed; all are counted. */
  constructor(maxProblems: number) {
    this.problems = new ProblemList(maxProblems);
    this.warnings = new ProblemList(maxProblems);
  }

  /** The film if it passes every rule, otherwise undefined (and its problems are recorded). */
  film(source: RecordSource, raw: RawRecord): Film | undefined {
    const id = typeof raw['Id'] === 'string' ? raw['Id'] : undefined;
    const { report, failed } = this.reporter(source, id);
    const film = readFilm(raw, report);
    const first = this.filmSources.get(film.id);
    if (first) report('Id', `must be unique, but record ${first.record} of ${first.file} has it too`, describeValue(film.id));
    else if (film.id !== '') this.filmSources.set(film.id, source);
    return failed() ? undefined : film;
  }

  /** The package if it passes every rule, otherwise undefined (and its problems are recorded). */
  package(source: RecordSource, raw: RawRecord): FilmPackage | undefined {
    const { report, failed } = this.reporter(source, describeValue(raw['Id']));
    const filmPackage = readPackage(raw, report);
    const first = this.packageSources.get(filmPackage.id);
    if (first) report('Id', `must be unique, but record ${first.record} of ${first.file} has it too`, String(filmPackage.id));
    else if (filmPackage.id !== 0) this.packageSources.set(filmPackage.id, source);
    if (failed()) return undefined;
    filmPackage.films.forEach((film, index) => {
      this.references.push({ ...source, packageId: filmPackage.id, field: `Films[${index + 1}].FilmId`, filmId: film.filmId });
    });
    const total = filmPackage.films.reduce((sum, film) => sum + film.splitMillionths, 0);
    if (filmPackage.films.length > 0 && total !== HUNDRED_PERCENT) {
      this.warnings.add({ ...source, id: String(filmPackage.id), field: 'Films', rule: 'SplitPercent values should add up to 100', value: formatMillionths(total) });
    }
    return filmPackage;
  }

  /**
   * Checks that every package film names a film of this import or, when the import merges into
   * the catalogue, one the catalogue already holds.
   */
  resolveFilmReferences(isExistingFilm: (id: string) => boolean): void {
    for (const reference of this.references) {
      if (this.filmSources.has(reference.filmId) || isExistingFilm(reference.filmId)) continue;
      this.problems.add({
        file: reference.file,
        record: reference.record,
        id: String(reference.packageId),
        field: reference.field,
        rule: 'must name a film of the catalogue',
        value: describeValue(reference.filmId),
      });
    }
  }

  private reporter(source: RecordSource, id: string | undefined): { report: ReportRule; failed: () => boolean } {
    const before = this.problems.count;
    const report: ReportRule = (field, rule, value) => this.problems.add({ ...source, id, field, rule, value });
    return { report, failed: () => this.problems.count > before };
  }
}
