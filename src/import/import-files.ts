/**
 * An import, all or nothing: every record of every file is read and checked as it streams by,
 * valid records are written in batches inside one transaction, and the transaction commits
 * only when the whole input passed. Otherwise it rolls back and the catalogue is exactly as it
 * was; a crash at any moment leaves it so too. Only records that changed are written, and a
 * replace deletes those the input does not have.
 */
import { createReadStream } from 'node:fs';
import { access, constants, stat } from 'node:fs/promises';
import { changedKinds, touchesAnything, type CatalogueChange, type ChangeKind } from '../catalogue/catalogue-change.js';
import { ImportCheck } from '../catalogue/import-check.js';
import type { Attribute, Film, FilmPackage, Screen, Session, Site } from '../catalogue/model.js';
import { DEFAULT_MAX_PROBLEMS, UnreadableInputError, type Problem, type ProblemList } from '../catalogue/problems.js';
import { describeValue, type RawRecord } from '../catalogue/raw-record.js';
import { CHANGE_KIND_OF, RECORD_KINDS } from '../formats/record-kinds.js';
import { readRecords, type RecordKind } from '../formats/record-readers.js';
import { commitCatalogueChange, deleteFilms, deletePackages, loadCatalogueVersion, savePackages, saveFilms } from '../store/catalogue-repository.js';
import { PROGRAMME_TABLES, deleteRecords, saveRecords } from '../store/record-tables.js';
import type { SqlClient } from '../store/sql-client.js';
import { loadNamedRecords, SITE_KEY, StoredSessions, trackChanges, type ChangeCounts, type NamedRecords } from './catalogue-changes.js';
import { moveSession } from './seed-dates.js';

/** An input's bytes: in a file, or already in memory (a small answer a sync read). */
export type InputBytes = { readonly file: string } | { readonly bytes: Buffer };

/** The input's bytes, a chunk at a time. */
export async function* inputChunks(input: InputBytes): AsyncGenerator<Buffer> {
  if ('bytes' in input) yield input.bytes;
  else yield* createReadStream(input.file) as AsyncIterable<Buffer>;
}

/**
 * A file to import by its path, or an input with the name problems give it and the kind of record
 * it must hold, and what completes each of its records before it is checked (a session's Url,
 * taken from elsewhere).
 */
export type ImportFile = string | (InputBytes & { readonly name: string; readonly kind: RecordKind; readonly complete?: (raw: RawRecord) => RawRecord });

export interface ImportOptions {
  readonly customer: string;
  readonly files: readonly ImportFile[];
  /**
   * Make the catalogue exactly the input (`true`), or make the records of these kinds exactly the
   * input's and leave the others as they are; otherwise (`false`) add and update by id.
   */
  readonly replace: boolean | ReadonlySet<RecordKind>;
  /** Check and count the changes, write nothing. */
  readonly dryRun?: boolean;
  /** Whole days by which every session's times are moved (a seed's demo programme, made current). */
  readonly moveSessionsByDays?: number;
  /** Problems and warnings listed; the rest are only counted, so that any input fits in memory. */
  readonly maxProblems?: number;
  /**
   * The stored sessions, as an earlier import left them, for an import that replaces them: they
   * are compared with, not read. The import fails with StaleSessionsError, writing nothing, when
   * the catalogue is no longer at their version.
   */
  readonly storedSessions?: StoredSessions | undefined;
  /**
   * Stored sessions the input leaves as they are, without holding them: given with
   * `storedSessions`, by a sync that found their upstream records as its last sync wrote them.
   */
  readonly keptSessions?: readonly number[] | undefined;
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
  /** The ids of the records added, changed and removed, by kind: the kinds left alone are absent. */
  readonly change: CatalogueChange;
  /** The catalogue version after the import; unchanged when nothing changed or on a dry run. */
  readonly version: number;
  readonly written: boolean;
  /** The sessions as the import leaves them, when it replaced them; undefined otherwise, and on a dry run. */
  readonly storedSessions: StoredSessions | undefined;
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

/** The stored sessions an import was given are no longer the catalogue's: another write came first. Nothing was written. */
export class StaleSessionsError extends Error {
  constructor(customer: string) {
    super(`the sessions of '${customer}' changed while they were compared; nothing was changed`);
    this.name = 'StaleSessionsError';
  }
}

const FILMS_PER_BATCH = 500;

/** What sessions may name as an import that made `change` leaves the catalogue: as before it, unless the change touched more than sessions. */
async function namedAfter(tx: SqlClient, customer: string, change: CatalogueChange, before: NamedRecords): Promise<NamedRecords> {
  return changedKinds(change).every((kind) => kind === 'sessions') ? before : loadNamedRecords(tx, customer);
}

async function fileSize(file: string): Promise<number> {
  try {
    await access(file, constants.R_OK);
    return (await stat(file)).size;
  } catch (error) {
    throw UnreadableInputError.of(file, error);
  }
}

/** The input's bytes, telling `onBytes` how far the reading got. */
async function* readCounting(input: InputBytes, onBytes: (bytesRead: number) => void): AsyncGenerator<Buffer> {
  let bytesRead = 0;
  for await (const chunk of inputChunks(input)) {
    bytesRead += chunk.length;
    onBytes(bytesRead);
    yield chunk;
  }
}

const EVERY_KIND: ReadonlySet<RecordKind> = new Set(RECORD_KINDS.map(({ kind }) => kind));

interface SizedFile {
  readonly input: InputBytes;
  readonly name: string;
  readonly kind: RecordKind | undefined;
  readonly complete: ((raw: RawRecord) => RawRecord) | undefined;
  readonly bytes: number;
}

/** The files to import, each found readable before any transaction waits for the database. */
async function sizedFiles(files: readonly ImportFile[]): Promise<SizedFile[]> {
  const sized: SizedFile[] = [];
  for (const file of files) {
    const { name, kind, complete, ...input } = typeof file === 'string' ? { file, name: file, kind: undefined, complete: undefined } : file;
    sized.push({ input, name, kind, complete, bytes: 'bytes' in input ? input.bytes.length : await fileSize(input.file) });
  }
  return sized;
}

export async function importFiles(db: SqlClient, options: ImportOptions): Promise<ImportResult> {
  const files = await sizedFiles(options.files);
  return db.transaction((tx) => importSized(tx, files, options), { readOnly: options.dryRun === true });
}

/** An import in the caller's transaction, so that other writes commit or roll back with it. */
export async function importInto(tx: SqlClient, options: ImportOptions): Promise<ImportResult> {
  return importSized(tx, await sizedFiles(options.files), options);
}

async function importSized(tx: SqlClient, files: readonly SizedFile[], options: ImportOptions): Promise<ImportResult> {
  const { customer } = options;
  const replaced = options.replace === true ? EVERY_KIND : options.replace === false ? new Set<RecordKind>() : options.replace;
  const write = options.dryRun !== true;
  const check = new ImportCheck(options.maxProblems ?? DEFAULT_MAX_PROBLEMS);
  const kinds = files.every((file) => file.kind !== undefined) ? new Set(files.map((file) => file.kind as RecordKind)) : EVERY_KIND;
  const { storedSessions } = options;
  const keptSessions = options.keptSessions ?? [];
  if (storedSessions !== undefined && !replaced.has('session')) throw new Error('stored sessions are given only to an import that replaces the sessions');
  if (keptSessions.length > 0 && storedSessions === undefined) throw new Error('kept sessions are given only with the stored sessions');
  const changes = await trackChanges(tx, customer, kinds, storedSessions);
  for (const id of keptSessions) changes.sessions.keep(id);

  let films: Film[] = [];
  // The other records are fewer and may name records further on in the input, so they are
  // written once the whole input has passed.
  const packages: FilmPackage[] = [];
  const screens: Screen[] = [];
  const attributes: Attribute[] = [];
  const sites: Site[] = [];
  const sessions: Session[] = [];
  /** Keeps a valid record to write, if it is new or changed. */
  const keep = <Key, T>(list: T[], tracker: { classify(key: Key, record: T): string }, record: T | undefined, key: (record: T) => Key): void => {
    if (record !== undefined && tracker.classify(key(record), record) !== 'unchanged') list.push(record);
  };
  const flushFilms = async (): Promise<void> => {
    if (write && check.problems.count === 0) await saveFilms(tx, customer, films);
    films = [];
  };

  let records = 0;
  for (const { input, name: file, kind: expected, complete = (raw: RawRecord) => raw, bytes: fileBytes } of files) {
    const chunks = readCounting(input, (bytesRead) => options.onProgress?.({ file, bytesRead, fileBytes, records }));
    let record = 0;
    for await (const read of readRecords(chunks, file, expected)) {
      records++;
      const source = { file, record: ++record };
      if (read.kind === 'misfit') {
        check.problems.add({ ...source, id: undefined, field: '', rule: read.reason, value: describeValue(read.raw) });
        continue;
      }
      const raw = complete(read.raw);
      if (read.kind === 'film') {
        keep(films, changes.films, check.film(source, raw), (film) => film.id);
        if (films.length >= FILMS_PER_BATCH) await flushFilms();
      } else if (read.kind === 'package') keep(packages, changes.packages, check.package(source, raw), (p) => p.id);
      else if (read.kind === 'screen') keep(screens, changes.screens, check.screen(source, raw), (screen) => screen.id);
      else if (read.kind === 'attribute') keep(attributes, changes.attributes, check.attribute(source, raw), (attribute) => attribute.id);
      else if (read.kind === 'site') keep(sites, changes.site, check.site(source, raw), () => SITE_KEY);
      else {
        const session = check.session(source, raw);
        keep(sessions, changes.sessions, session && moveSession(session, options.moveSessionsByDays ?? 0), (s) => s.id);
      }
    }
  }
  await flushFilms();
  check.resolveReferences(changes.existingBeside(replaced));
  if (check.problems.count > 0) {
    // Checked against stored sessions of another version, the input's problems may be that version's.
    if (storedSessions !== undefined && (await loadCatalogueVersion(tx, customer)) !== storedSessions.version) throw new StaleSessionsError(customer);
    throw new InvalidImportError(check.problems, check.warnings);
  }

  const kindChanges = {
    films: changes.films.change(replaced.has('film')),
    packages: changes.packages.change(replaced.has('package')),
    screens: changes.screens.change(replaced.has('screen')),
    attributes: changes.attributes.change(replaced.has('attribute')),
    site: changes.site.change(replaced.has('site')),
    sessions: changes.sessions.change(replaced.has('session')),
  };
  const summaryOrder = Object.values(CHANGE_KIND_OF);
  const counts = Object.fromEntries(summaryOrder.map((kind) => [kind, changes[kind].counts(kindChanges[kind])])) as Record<ChangeKind, ChangeCounts>;
  const change: CatalogueChange = Object.fromEntries(summaryOrder.map((kind) => [kind, kindChanges[kind]] as const).filter(([, kindChange]) => touchesAnything(kindChange)));
  const changed = changedKinds(change).length > 0;
  if (write) {
    await savePackages(tx, customer, packages);
    await saveRecords(tx, PROGRAMME_TABLES.screen, customer, screens);
    await saveRecords(tx, PROGRAMME_TABLES.attribute, customer, attributes);
    await saveRecords(tx, PROGRAMME_TABLES.site, customer, sites);
    await saveRecords(tx, PROGRAMME_TABLES.session, customer, sessions);
    // What the records kept name was checked above; packages go before the films they name.
    await deleteRecords(tx, PROGRAMME_TABLES.session, customer, kindChanges.sessions.removed);
    await deleteRecords(tx, PROGRAMME_TABLES.site, customer, kindChanges.site.removed);
    await deletePackages(tx, customer, kindChanges.packages.removed);
    await deleteRecords(tx, PROGRAMME_TABLES.attribute, customer, kindChanges.attributes.removed);
    await deleteRecords(tx, PROGRAMME_TABLES.screen, customer, kindChanges.screens.removed);
    await deleteFilms(tx, customer, kindChanges.films.removed);
  }
  const version = write && changed ? (await commitCatalogueChange(tx, customer, change)).version : await loadCatalogueVersion(tx, customer);
  // The version read in this transaction, or the one its commit made, tells whether a write came between.
  if (storedSessions !== undefined && version !== storedSessions.version + (write && changed ? 1 : 0)) throw new StaleSessionsError(customer);
  return {
    ...counts,
    change,
    version,
    written: write && changed,
    storedSessions: write && replaced.has('session') ? StoredSessions.of(version, changes.sessions.replacedDigests(), await namedAfter(tx, customer, change, changes.named)) : undefined,
    warnings: check.warnings.listed,
    warningCount: check.warnings.count,
  };
}
