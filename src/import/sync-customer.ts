/**
 * One sync of one customer from its upstream (the original service or another Marquee): the lists
 * due are read one after the other, each conditionally, so that an unchanged list costs one 304
 * answer. The lists that changed are checked like an import and written in one transaction, each
 * replacing the customer's records of its kind and leaving the others as they are; a failure at
 * any point leaves the catalogue as it was. Each session takes its Url from the upstream's web
 * sessions.
 *
 * A list is refused, with every other of the sync, when it would break what the catalogue keeps:
 * a film list that drops a film that kept sessions still show, or sessions that name a film not
 * yet mirrored. A sync of the sessions alone that is refused so reads the other lists too, which
 * may bring the film they name.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UnreadableInputError } from '../catalogue/problems.js';
import { rawToJson, type RawRecord, type RawValue } from '../catalogue/raw-record.js';
import type { ByteSize } from '../config.js';
import type { RecordKind } from '../formats/record-kinds.js';
import { readRecords, type ReadRecord } from '../formats/record-readers.js';
import { loadCatalogueVersion } from '../store/catalogue-repository.js';
import type { SqlClient } from '../store/sql-client.js';
import type { SyncState } from '../store/sync-repository.js';
import type { StoredSessions } from './catalogue-changes.js';
import { importInto, inputChunks, InvalidImportError, StaleSessionsError, type ImportFile, type ImportResult, type InputBytes } from './import-files.js';
import { fetchList, WriteBudget, type ListAnswer } from './upstream-fetch.js';
import type { Upstream } from './upstream-list.js';
import { UpstreamSessions, type SessionsToRead } from './upstream-sessions.js';

/**
 * The lists, each of one kind of record, in the order they are read: what sessions name first.
 * An upstream that answers 404 for an optional one has none of it: no site, or a server that
 * does not serve screens and sessions. Sessions are read with the web sessions, which carry the
 * Url of those on sale.
 */
const LISTS = [
  { kind: 'film', paths: ['/v4/film'], optional: false },
  { kind: 'package', paths: ['/v1/filmpackage'], optional: false },
  { kind: 'screen', paths: ['/v1/screen'], optional: true },
  { kind: 'attribute', paths: ['/v1/attribute'], optional: true },
  { kind: 'site', paths: ['/v1/site'], optional: true },
  { kind: 'session', paths: ['/v1/session', '/v1/websession'], optional: true },
] as const satisfies readonly { readonly kind: RecordKind; readonly paths: readonly string[]; readonly optional: boolean }[];

type List = (typeof LISTS)[number];

/** The ETag kept for a list the upstream does not have, so that its 404 counts as unchanged. */
const ABSENT = 'absent';

export interface SyncLimits {
  /** The longest one request may take, its whole answer read. */
  readonly timeoutMs: number;
  /** What one sync may keep of its answers, in memory and in temporary files, decompressed. */
  readonly maxDownload: ByteSize;
  /** Problems listed when the upstream's records break rules; the rest are counted. */
  readonly maxProblems: number;
}

/** What a sync took, to be recorded in the transaction that writes it. */
export interface Taken {
  /** Every list was read. */
  readonly full: boolean;
  /** The ETag of each list, by path, as the catalogue now stands. */
  readonly etags: Readonly<Record<string, string>>;
  readonly catalogueVersion: number;
  /** What the lists that changed did to the catalogue; undefined when none changed. */
  readonly result: ImportResult | undefined;
}

/** What a sync process keeps of a customer's sessions from one sync of it to the next. */
export interface KnownSessions {
  /** As they are stored, at a catalogue version. */
  readonly stored: StoredSessions;
  /** The upstream's lists they were written from, record by record, when those could be told apart. */
  readonly upstream: UpstreamSessions | undefined;
}

export interface SyncRequest {
  readonly upstream: Upstream;
  /** Read every list, rather than the sessions alone. */
  readonly full: boolean;
  /** What the last sync of the customer left. */
  readonly state: SyncState;
  /** The catalogue's version as the sync starts, read as the customer was claimed. */
  readonly version: number;
  /** The customer's sessions, as this process's last sync of it left them, if it knows them. */
  readonly knownSessions: KnownSessions | undefined;
  readonly limits: SyncLimits;
  /** Stops the sync, as the process stops; the catalogue is left as it was. */
  readonly signal: AbortSignal;
  /** Records what was taken, in the transaction that writes it; throws to undo the whole sync. */
  readonly record: (tx: SqlClient, taken: Taken) => Promise<void>;
}

export interface SyncOutcome extends Taken {
  /** The kinds of record whose lists changed and were written. */
  readonly kinds: readonly RecordKind[];
  /** The customer's sessions as the sync leaves them, when it knows them: to give its next sync. */
  readonly knownSessions: KnownSessions | undefined;
}

/** A list read: the answer to each of its paths, and its URL. */
interface ReadList {
  readonly list: List;
  readonly answers: readonly ListAnswer[];
  readonly urls: readonly string[];
}

const changed = (read: ReadList): boolean => read.answers.some((answer) => answer.status !== 'not modified');

export async function syncCustomer(db: SqlClient, request: SyncRequest): Promise<SyncOutcome> {
  const { state, version } = request;
  // ETags speak for the local catalogue only while nothing else has changed it; otherwise every list is read whole.
  const current = state.catalogueVersion === version;
  const etags = current ? state.etags : {};
  const full = request.full || !current;
  const known = request.knownSessions?.stored.version === version ? request.knownSessions : undefined;
  try {
    return await syncLists(db, request, full, etags, version, known);
  } catch (error) {
    // Another write came between: the catalogue is read again.
    if (error instanceof StaleSessionsError) return syncCustomer(db, { ...request, version: await loadCatalogueVersion(db, state.customer), knownSessions: undefined });
    if (full || !(error instanceof InvalidImportError)) throw error;
    return syncLists(db, request, true, etags, version, known);
  }
}

/**
 * Where a sync keeps the answers too large to hold in memory: a temporary directory, made on first
 * use (most syncs read small lists only) and removed with all it holds.
 */
class SpillDirectory {
  private made: Promise<string> | undefined;

  /** The path of `name` in the directory, made when first asked for. */
  file(name: string): () => Promise<string> {
    return async () => join(await (this.made ??= mkdtemp(join(tmpdir(), 'marquee-sync-'))), name);
  }

  async remove(): Promise<void> {
    await this.made?.then((directory) => rm(directory, { recursive: true, force: true }), () => undefined);
  }
}

/**
 * Reads the lists, and writes those that changed; `version` is the local catalogue's, which `etags`
 * and `known` (the sessions, when known) describe while nothing changes.
 */
async function syncLists(
  db: SqlClient,
  request: SyncRequest,
  full: boolean,
  etags: Readonly<Record<string, string>>,
  version: number,
  known: KnownSessions | undefined,
): Promise<SyncOutcome> {
  const { upstream, limits } = request;
  const spill = new SpillDirectory();
  try {
    const budget = new WriteBudget(limits.maxDownload);
    const fetch = (path: string, etag: string | null, optional: boolean): Promise<ListAnswer> =>
      fetchList({
        url: upstream.url + path,
        token: upstream.token,
        etag,
        file: spill.file(`${path.slice(1).replaceAll('/', '-')}.json`),
        optional,
        timeoutMs: limits.timeoutMs,
        budget,
        signal: request.signal,
      });
    const reads: ReadList[] = [];
    for (const list of full ? LISTS : LISTS.filter((candidate) => candidate.kind === 'session')) {
      const answers: ListAnswer[] = [];
      for (const path of list.paths) answers.push(await fetch(path, etags[path] ?? null, list.optional));
      // A list read from two paths needs both in full once either changed.
      if (answers.some((answer) => answer.status !== 'not modified')) {
        for (const [index, path] of list.paths.entries()) {
          if (answers[index]?.status === 'not modified') answers[index] = await fetch(path, null, list.optional);
        }
      }
      const absentBefore = list.paths.every((path) => etags[path] === ABSENT);
      const stillAbsent = absentBefore && answers.every((answer) => answer.status === 'absent');
      reads.push({ list, answers: stillAbsent ? answers.map(() => ({ status: 'not modified' })) : answers, urls: list.paths.map((path) => upstream.url + path) });
    }

    const tags = new Map(Object.entries(etags));
    for (const { list, answers } of reads) {
      list.paths.forEach((path, index) => {
        const answer = answers[index];
        if (answer?.status === 'absent') tags.set(path, ABSENT);
        else if (answer?.status === 'read' && answer.etag !== null) tags.set(path, answer.etag);
        else if (answer?.status === 'read') tags.delete(path);
      });
    }
    const taken = Object.fromEntries(tags);
    const changes = reads.filter(changed);
    if (changes.length === 0) {
      const outcome = { full, etags: taken, catalogueVersion: version, result: undefined, kinds: [], knownSessions: known };
      await db.transaction((tx) => request.record(tx, outcome));
      return outcome;
    }

    const kinds = changes.map(({ list }) => list.kind);
    const replace = new Set(kinds);
    const files: ImportFile[] = [];
    let sessions: SessionLists | undefined;
    for (const { list, answers: [answer, webAnswer], urls: [url, webUrl] } of changes) {
      if (answer?.status !== 'read' || url === undefined) continue;
      if (list.kind === 'session') sessions = { body: answer.body, url, web: webAnswer?.status === 'read' && webUrl !== undefined ? { body: webAnswer.body, url: webUrl } : undefined };
      else files.push({ ...(list.kind === 'film' ? await completeFilms(answer.body, url, request, budget, spill) : answer.body), name: url, kind: list.kind });
    }
    // When the sessions alone changed, those whose records are as the last sync wrote them are kept as stored.
    const toRead = sessions === undefined ? undefined : sessionsToRead(sessions, kinds.length === 1 ? known?.upstream : undefined);
    const write = async (narrowed: SessionsToRead | undefined): Promise<SyncOutcome> => {
      const sessionFiles = sessions === undefined ? [] : [await sessionsFile(sessions, narrowed)];
      return db.transaction(async (tx) => {
        const storedSessions = replace.has('session') ? known?.stored : undefined;
        const options = { customer: request.state.customer, files: [...files, ...sessionFiles], replace, maxProblems: limits.maxProblems, storedSessions, keptSessions: narrowed?.kept };
        const result = await importInto(tx, options);
        const knownSessions = result.storedSessions === undefined ? undefined : { stored: result.storedSessions, upstream: toRead?.upstream };
        const outcome = { full, etags: taken, catalogueVersion: result.version, result, kinds, knownSessions };
        await request.record(tx, outcome);
        return outcome;
      });
    };
    try {
      return await write(toRead);
    } catch (error) {
      // A record refused, or unreadable, is told by its place in the list as the upstream wrote it: the lists are read whole.
      const refused = error instanceof InvalidImportError || error instanceof UnreadableInputError;
      if (refused && toRead !== undefined && toRead.kept.length > 0) return await write(undefined);
      throw error;
    }
  } finally {
    await spill.remove();
  }
}

/** A session list read, and the web session list read with it. */
interface SessionLists {
  readonly body: InputBytes;
  readonly url: string;
  readonly web: { readonly body: InputBytes; readonly url: string } | undefined;
}

/** The sessions to read of lists held in memory, compared with `previous`; undefined when they are read whole. */
function sessionsToRead({ body, web }: SessionLists, previous: UpstreamSessions | undefined): SessionsToRead | undefined {
  return 'bytes' in body && web !== undefined && 'bytes' in web.body ? UpstreamSessions.toRead(body.bytes, web.body.bytes, previous) : undefined;
}

/** The sessions to import: those `narrowed` names, or the whole list; each with the Url of its web session. */
async function sessionsFile({ body, url, web }: SessionLists, narrowed: SessionsToRead | undefined): Promise<ImportFile> {
  const webSessions = web === undefined ? undefined : { body: narrowed === undefined ? web.body : { bytes: narrowed.webSessions }, url: web.url };
  return { ...(narrowed === undefined ? body : { bytes: narrowed.sessions }), name: url, kind: 'session', complete: await withUrls(webSessions) };
}

/**
 * The original service's film list leaves DisplaySequence out of every film (its single-film
 * answer has it): then each film without one is read on its own, and the list is written again
 * with it. Its first film tells; a list that has it there is taken as it is, and the import
 * refuses a film further on that lacks it.
 */
async function completeFilms(films: InputBytes, list: string, request: SyncRequest, budget: WriteBudget, spill: SpillDirectory): Promise<InputBytes> {
  const lacksSequence = (read: ReadRecord): read is ReadRecord & { kind: 'film' } =>
    read.kind === 'film' && read.raw['DisplaySequence'] === undefined && typeof read.raw['Id'] === 'string';
  let incomplete = false;
  for await (const read of readRecords(inputChunks(films), list, 'film')) {
    incomplete = lacksSequence(read);
    break;
  }
  if (!incomplete) return films;
  const { upstream, limits } = request;
  async function* completed(): AsyncGenerator<string> {
    let separator = '[';
    for await (const read of readRecords(inputChunks(films), list, 'film')) {
      let record: RawValue = read.raw;
      if (lacksSequence(read)) {
        const url = `${list}/${encodeURIComponent(read.raw['Id'] as string)}`;
        const answer = await fetchList({ url, token: upstream.token, etag: null, file: spill.file('film.json'), optional: false, timeoutMs: limits.timeoutMs, budget, signal: request.signal });
        if (answer.status === 'read') {
          for await (const detail of readRecords(inputChunks(answer.body), url, 'film')) {
            if (detail.kind === 'film') record = { ...read.raw, DisplaySequence: detail.raw['DisplaySequence'] };
          }
        }
      }
      yield `${separator}${rawToJson(record)}`;
      separator = ',';
    }
    yield separator === '[' ? '[]' : ']';
  }
  return budget.keep(spill.file('films-complete.json'), completed(), list);
}

/** What gives each session the Url of its web session, or null where it has none. */
async function withUrls(webSessions: { readonly body: InputBytes; readonly url: string } | undefined): Promise<(raw: RawRecord) => RawRecord> {
  const urls = new Map<string, RawValue>();
  if (webSessions !== undefined) {
    for await (const read of readRecords(inputChunks(webSessions.body), webSessions.url, 'session')) {
      if (read.kind === 'session' && read.raw['Id'] !== undefined && read.raw['Url'] !== undefined) urls.set(rawToJson(read.raw['Id']), read.raw['Url']);
    }
  }
  return (raw) => ({ ...raw, Url: urls.get(raw['Id'] === undefined ? '' : rawToJson(raw['Id'])) ?? null });
}
