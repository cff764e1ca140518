/**
 * An import, all or nothing: every record of every file is read and checked as it streams by,
 * valid films are written in batches inside one transaction, and the transaction commits only
 * when the whole input passed. Otherwise it rolls back and the catalogue is exactly as it was.
 */
import { createReadStream } from 'node:fs';
import { access, constants } from 'node:fs/promises';
import { ImportCheck } from '../catalogue/import-check.js';
import type { Film, FilmPackage } from '../catalogue/model.js';
import { UnreadableInputError, type Problem } from '../catalogue/problems.js';
import { describeValue, isRawRecord } from '../catalogue/raw-record.js';
import { readRecords } from '../formats/record-readers.js';
import { bumpCatalogueVersion, deleteCatalogue, loadFilmIds, savePackages, saveFilms } from '../store/catalogue-repository.js';
import type { SqlClient } from '../store/sql-client.js';

export interface ImportOptions {
  readonly customer: string;
  readonly files: readonly string[];
  /** Make the catalogue exactly the input, instead of adding and updating by id. */
  readonly replace: boolean;
}

export interface ImportResult {
  readonly films: number;
  readonly packages: number;
  readonly version: number;
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

async function ensureReadable(file: string): Promise<void> {
  try {
    await access(file, constants.R_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UnreadableInputError(file, code === 'ENOENT' ? 'no such file' : `cannot be read (${code})`);
  }
}

export async function importFiles(db: SqlClient, options: ImportOptions): Promise<ImportResult> {
  for (const file of options.files) await ensureReadable(file);
  const { customer } = options;
  const check = new ImportCheck();

  return db.transaction(async (tx) => {
    const existingFilms = options.replace ? new Set<string>() : await loadFilmIds(tx, customer);
    if (options.replace) await deleteCatalogue(tx, customer);

    let films: Film[] = [];
    // Packages are few and may name films further on in the input, so they are written last.
    const packages: FilmPackage[] = [];
    const flushFilms = async (): Promise<void> => {
      if (check.problems.length === 0) await saveFilms(tx, customer, films);
      films = [];
    };

    for (const file of options.files) {
      let record = 0;
      for await (const { kind, raw } of readRecords(createReadStream(file), file)) {
        const source = { file, record: ++record };
        if (!isRawRecord(raw)) {
          check.problems.push({ ...source, id: undefined, field: '', rule: 'must be an object', value: describeValue(raw) });
        } else if (kind === 'film') {
          const film = check.film(source, raw);
          if (film) films.push(film);
          if (films.length >= FILMS_PER_BATCH) await flushFilms();
        } else {
          const filmPackage = check.package(source, raw);
          if (filmPackage) packages.push(filmPackage);
        }
      }
    }
    await flushFilms();
    check.resolveFilmReferences((id) => existingFilms.has(id));
    if (check.problems.length > 0) throw new InvalidImportError(check.problems, check.warnings);

    await savePackages(tx, customer, packages);
    const version = await bumpCatalogueVersion(tx, customer);
    return { films: check.filmCount, packages: check.packageCount, version, warnings: check.warnings };
  });
}
