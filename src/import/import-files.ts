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
import { UnreadableInputError, type Problem } from '../catalogue/problems.js';
import { describeValue, isRawRecord } from '../catalogue/raw-record.js';
import { readRecords } from '../formats/record-readers.js';
import { bumpCatalogueVersion, deleteCatalogue, loadCatalogueVersion, savePackages, saveFilms } from '../store/catalogue-repository.js';
import type { SqlClient } from '../store/sql-client.js';
import { trackChanges, type ChangeCounts } from './catalogue-changes.js';

export interface ImportOptions {
  readonly customer: string;
  readonly files: readonly string[];
  /** Make the catalogue exactly the input, instead of adding and updating by id. */
  readonly replace: boolean;
  /** Check and count the changes, write nothing. */
  readonly dryRun?: boolean;
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
  readonly warnings: readonly Problem[];
}

/** The input broke rules; nothing was written. */
export class InvalidImportError extends Error {
  constructor(
    readonly problems: readonly Problem[],
    readonly warnings: readonly Problem[],
  ) {
    super(`the import has ${problems.length} problem${problems.length === 1 ? '' : 's'}; nothing was changed`);
    this.name = 'InvalidImportError';
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
  const sizes = new Map<string, number>();
  for (const file of options.files) sizes.set(file, await fileSize(file));
  const { customer, replace } = options;
  const write = options.dryRun !== true;
  const check = new ImportCheck();

  return db.transaction(
    async (tx) => {
      const changes = await trackChanges(tx, customer);
      if (replace && write) await deleteCatalogue(tx, customer);

      let films: Film[] = [];
      // Packages are few and may name films further on in the input, so they are written last.
      const packages: FilmPackage[] = [];
      const flushFilms = async (): Promise<void> => {
        if (write && check.problems.length === 0) await saveFilms(tx, customer, films);
        films = [];
      };

      let records = 0;
      for (const file of options.files) {
        const fileBytes = sizes.get(file) ?? 0;
        const chunks = readCounting(file, (bytesRead) => options.onProgress?.({ file, bytesRead, fileBytes, records }));
        let record = 0;
        for await (const { kind, raw } of readRecords(chunks, file)) {
          records++;
          const source = { file, record: ++record };
          if (!isRawRecord(raw)) {
            check.problems.push({ ...source, id: undefined, field: '', rule: 'must be an object', value: describeValue(raw) });
          } else if (kind === 'film') {
            const film = check.film(source, raw);
            // After --replace every film is written anew; a merge skips what has not changed.
            if (film && (changes.films.classify(film.id, film) !== 'unchanged' || replace)) films.push(film);
            if (films.length >= FILMS_PER_BATCH) await flushFilms();
          } else {
            const filmPackage = check.package(source, raw);
            if (filmPackage && (changes.packages.classify(filmPackage.id, filmPackage) !== 'unchanged' || replace)) packages.push(filmPackage);
          }
        }
      }
      await flushFilms();
      check.resolveFilmReferences((id) => !replace && changes.films.has(id));
      if (check.problems.length > 0) throw new InvalidImportError(check.problems, check.warnings);

      const counts = { films: changes.films.counts(replace), packages: changes.packages.counts(replace) };
      const changed = [counts.films, counts.packages].some((c) => c.added + c.changed + c.removed > 0);
      if (write) await savePackages(tx, customer, packages);
      const version = write && changed ? await bumpCatalogueVersion(tx, customer) : await loadCatalogueVersion(tx, customer);
      return { ...counts, version, written: write && changed, warnings: check.warnings };
    },
    { readOnly: !write },
  );
}
