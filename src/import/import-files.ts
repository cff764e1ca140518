/**
 * An import, all or nothing: every record of every file is read and checked as it streams by,
 * valid records are written in batches inside one transaction, and the transaction commits
 * only when the whole input passed. Otherwise it rolls back and the catalogue is exactly as it
 * was; a crash at any moment leaves it so too.
 */
import { createReadStream } from 'node:fs';
import { access, constants, stat } from 'node:fs/promises';
import { ImportCheck } from '../catalogue/import-check.js';
import type { Film, FilmPackage } from '../catalogue/model.js';
import { DEFAULT_MAX_PROBLEMS, UnreadableInputError, type Problem, type ProblemList } from '../catalogue/problems.js';
import { describeValue } from '../catalogue/raw-record.js';
import { readRecords, type RecordKind } from '../formats/record-readers.js';
import { bumpCatalogueVersion, deleteCatalogue, loadCatalogueVersion, savePackages, saveFilms } from '../store/catalogue-repository.js';
import type { SqlClient } from '../store/sql-client.js';
import { trackChanges, type ChangeCounts } from './catalogue-changes.js';

/** A file to import by its path, or with the name problems give it and the kind of record it must hold. */
export type ImportFile = string | { readonly path: string; readonly name: string; readonly kind: RecordKind };

export interface ImportOptions {
  readonly customer: string;
  readonly files: readonly ImportFile[];
  /** Make the catalogue exactly the input, instead of adding and updating by id. */
  readonly replace: boolean;
  /** Check and count the changes, write nothing. */
  readonly dryRun?: boolean;
  /** Problems and warnings listed; the rest are only counted, so that any input fits in memory. */
  readonly maxProblems?: number;
  readonly onProgress?: (progress: ImportProgress) => void;
}

export interface ImportProgress {
  readonly file: string;
  readonly bytesRead: number;
  readonly fileBytes: number;
  /** Records read so far, over all files. */
  readonly records: number;
}

export interface ImportResult {
  readonly films: ChangeCounts;
  readonly packages: ChangeCounts;
  /** The catalogue version after the import; unchanged when nothing changed or on a dry run. */
  readonly version: number;
  readonly written: boolean;
  /** The first warnings, and how many there are. */
  readonly warnings: readonly Problem[];
  readonly warningCount: number;
}

/** The input broke rules; nothing was written. */
export class InvalidImportError extends Error {
  /** The first problems and warnings, and how many there are. */
  readonly problems: readonly Problem[];
  readonly problemCount: number;
  readonly warnings: readonly Problem[];
  readonly warningCount: number;

  constructor(problems: ProblemList, warnings: ProblemList) {
    super(`the import has ${problems.count.toLocaleString('en-US')} problem${problems.count === 1 ? '' : 's'}; nothing was changed`);
    this.name = 'InvalidImportError';
    this.problems = problems.listed;
    this.problemCount = problems.count;
    this.warnings = warnings.listed;
    this.warningCount = warnings.count;
  }
}

const FILMS_PER_BATCH = 500;

async function fileSize(file: string): Promise<number> {
  try {
    await access(file, constants.R_OK);
    return (await stat(file)).size;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UnreadableInputError(file, code === 'ENOENT' ? 'no such file' : `cannot be read (${code})`);
  }
}

/** The file's bytes, telling `onBytes` how far the reading got. */
async function* readCounting(file: string, onBytes: (bytesRead: number) => void): AsyncGenerator<Buffer> {
  let bytesRead = 0;
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
    bytesRead += chunk.length;
    onBytes(bytesRead);
    yield chunk;
  }
}

export async function importFiles(db: SqlClient, options: ImportOptions): Promise<ImportResult> {
  const files = options.files.map((file) => (typeof file === 'string' ? { path: file, name: file, kind: undefined } : file));
  const sizes = new Map<string, number>();
  for (const { path } of files) sizes.set(path, await fileSize(path));
  const { customer, replace } = options;
  const write = options.dryRun !== true;
  const check = new ImportCheck(options.maxProblems ?? DEFAULT_MAX_PROBLEMS);

  return db.transaction(
    async (tx) => {
      const changes = await trackChanges(tx, customer);
      if (replace && write) await deleteCatalogue(tx, customer);

      let films: Film[] = [];
      // Packages are few and may name films further on in the input, so they are written last.
      const packages: FilmPackage[] = [];
      const flushFilms = async (): Promise<void> => {
        if (write && check.problems.count === 0) await saveFilms(tx, customer, films);
        films = [];
      };

      let records = 0;
      for (const { path, name: file, kind: expected } of files) {
        const fileBytes = sizes.get(path) ?? 0;
        const chunks = readCounting(path, (bytesRead) => options.onProgress?.({ file, bytesRead, fileBytes, records }));
        let record = 0;
        for await (const read of readRecords(chunks, file, expected)) {
          records++;
          const source = { file, record: ++record };
          if (read.kind === 'misfit') {
            check.problems.add({ ...source, id: undefined, field: '', rule: read.reason, value: describeValue(read.raw) });
          } else if (read.kind === 'film') {
            const film = check.film(source, read.raw);
            // After --replace every film is written anew; a merge skips what has not changed.
            if (film && (changes.films.classify(film.id, film) !== 'unchanged' || replace)) films.push(film);
            if (films.length >= FILMS_PER_BATCH) await flushFilms();
          } else {
            const filmPackage = check.package(source, read.raw);
            if (filmPackage && (changes.packages.classify(filmPackage.id, filmPackage) !== 'unchanged' || replace)) packages.push(filmPackage);
          }
        }
      }
      await flushFilms();
      check.resolveFilmReferences((id) => !replace && changes.films.has(id));
      if (check.problems.count > 0) throw new InvalidImportError(check.problems, check.warnings);

      const counts = { films: changes.films.counts(replace), packages: changes.packages.counts(replace) };
      const changed = [counts.films, counts.packages].some((c) => c.added + c.changed + c.removed > 0);
      if (write) await savePackages(tx, customer, packages);
      const version = write && changed ? await bumpCatalogueVersion(tx, customer) : await loadCatalogueVersion(tx, customer);
      return { ...counts, version, written: write && changed, warnings: check.warnings.listed, warningCount: check.warnings.count };
    },
    { readOnly: !write },
  );
}
