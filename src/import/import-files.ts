/**
 * An import, all or nothing: every record of every file is read and checked as it streams by,
 * valid records are written in batches inside one transaction, and the transaction commits
 * only when the whole input passed. Otherwise it rolls back and the catalogue is exactly as it
 * was; a crash at any moment leaves it so too.
 */
import { createReadStream } from 'node:fs';
import { access, constants, stat } from 'node:fs/promises';
import { ImportCheck, NOTHING_EXISTING } from '../catalogue/import-check.js';
import type { Attribute, Film, FilmPackage, Screen, Session, Site } from '../catalogue/model.js';
import { UnreadableInputError, type Problem } from '../catalogue/problems.js';
import { describeValue, isRawRecord } from '../catalogue/raw-record.js';
import { readRecords } from '../formats/record-readers.js';
import { bumpCatalogueVersion, deleteCatalogue, loadCatalogueVersion, savePackages, saveFilms } from '../store/catalogue-repository.js';
import { PROGRAMME_TABLES, saveRecords } from '../store/record-tables.js';
import type { SqlClient } from '../store/sql-client.js';
import { SITE_KEY, trackChanges, type ChangeCounts } from './catalogue-changes.js';
import { moveSession } from './seed-dates.js';

export interface ImportOptions {
  readonly customer: string;
  readonly files: readonly string[];
  /** Make the catalogue exactly the input, instead of adding and updating by id. */
  readonly replace: boolean;
  /** Check and count the changes, write nothing. */
  readonly dryRun?: boolean;
  /** Whole days by which every session's times are moved (a seed's demo programme, made current). */
  readonly moveSessionsByDays?: number;
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
  readonly screens: ChangeCounts;
  readonly attributes: ChangeCounts;
  readonly site: ChangeCounts;
  readonly sessions: ChangeCounts;
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
      // The other records are fewer and may name records further on in the input, so they are
      // written once the whole input has passed.
      const packages: FilmPackage[] = [];
      const screens: Screen[] = [];
      const attributes: Attribute[] = [];
      const sites: Site[] = [];
      const sessions: Session[] = [];
      /** Keeps a valid record to write: after --replace every one, in a merge those that changed. */
      const keep = <Key, T>(list: T[], tracker: { classify(key: Key, record: T): string }, record: T | undefined, key: (record: T) => Key): void => {
        if (record !== undefined && (tracker.classify(key(record), record) !== 'unchanged' || replace)) list.push(record);
      };
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
            keep(films, changes.films, check.film(source, raw), (film) => film.id);
            if (films.length >= FILMS_PER_BATCH) await flushFilms();
          } else if (kind === 'package') keep(packages, changes.packages, check.package(source, raw), (p) => p.id);
          else if (kind === 'screen') keep(screens, changes.screens, check.screen(source, raw), (screen) => screen.id);
          else if (kind === 'attribute') keep(attributes, changes.attributes, check.attribute(source, raw), (attribute) => attribute.id);
          else if (kind === 'site') keep(sites, changes.site, check.site(source, raw), () => SITE_KEY);
          else {
            const session = check.session(source, raw);
            keep(sessions, changes.sessions, session && moveSession(session, options.moveSessionsByDays ?? 0), (s) => s.id);
          }
        }
      }
      await flushFilms();
      check.resolveReferences(replace ? NOTHING_EXISTING : changes.existing);
      if (check.problems.length > 0) throw new InvalidImportError(check.problems, check.warnings);

      const counts = {
        films: changes.films.counts(replace),
        packages: changes.packages.counts(replace),
        screens: changes.screens.counts(replace),
        attributes: changes.attributes.counts(replace),
        site: changes.site.counts(replace),
        sessions: changes.sessions.counts(replace),
      };
      const changed = Object.values(counts).some((c) => c.added + c.changed + c.removed > 0);
      if (write) {
        await savePackages(tx, customer, packages);
        await saveRecords(tx, PROGRAMME_TABLES.screen, customer, screens);
        await saveRecords(tx, PROGRAMME_TABLES.attribute, customer, attributes);
        await saveRecords(tx, PROGRAMME_TABLES.site, customer, sites);
        await saveRecords(tx, PROGRAMME_TABLES.session, customer, sessions);
      }
      const version = write && changed ? await bumpCatalogueVersion(tx, customer) : await loadCatalogueVersion(tx, customer);
      return { ...counts, version, written: write && changed, warnings: check.warnings };
    },
    { readOnly: !write },
  );
}
