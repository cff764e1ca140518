/**
 * Mirrors a Veezi-compatible API (the original service or another Marquee) into a customer's
 * catalogue: every list is downloaded, then imported with --replace in one transaction, so a
 * failure at any point leaves the catalogue as it was. ETags make an unchanged upstream cost one
 * 304 answer per list and nothing else. Each session takes its Url from the upstream's web
 * sessions.
 */
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { setTimeout as sleep } from 'node:timers/promises';
import { isRawRecord, rawToJson, type RawRecord, type RawValue } from '../catalogue/raw-record.js';
import { readRecords } from '../formats/record-readers.js';
import { loadCatalogueVersion } from '../store/catalogue-repository.js';
import type { SqlClient } from '../store/sql-client.js';
import { loadSyncSource, saveSyncSource } from '../store/sync-repository.js';
import { importFiles, type ImportResult } from './import-files.js';

export interface SyncOptions {
  readonly customer: string;
  /** The upstream's base address, such as https://api.example/cinema (the paths are added to it). */
  readonly from: string;
  readonly token: string | undefined;
  /** How many times a transient failure is tried again, waiting `retryDelayMs`, then twice as long each time. */
  readonly retries: number;
  readonly retryDelayMs: number;
  /** Told of each try that failed and will be tried again. */
  readonly onRetry?: (reason: string, delayMs: number) => void;
}

export type SyncResult = { readonly unchanged: true } | { readonly unchanged: false; readonly result: ImportResult };

/** The upstream could not be read; the local catalogue is as it was. */
export class SyncError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SyncError';
  }
}

/** A failure worth trying again: the network, or an upstream that says it is busy or broken. */
class TransientError extends SyncError {}

/**
 * The lists read, and the file each is kept in. An upstream that answers 404 for an optional one
 * has none of it: no site, or a server that does not serve screens and sessions.
 */
const RESOURCES = [
  { path: '/v4/film', file: 'films.json', optional: false },
  { path: '/v1/filmpackage', file: 'filmpackages.json', optional: false },
  { path: '/v1/screen', file: 'screens.json', optional: true },
  { path: '/v1/attribute', file: 'attributes.json', optional: true },
  { path: '/v1/site', file: 'site.json', optional: true },
  { path: '/v1/session', file: 'sessions.json', optional: true },
  { path: '/v1/websession', file: 'websessions.json', optional: true },
] as const;

/** The ETag kept for a list the upstream does not have, so that its 404 counts as unchanged. */
const ABSENT = 'absent';

interface Download {
  readonly notModified: boolean;
  readonly etag: string | null;
}

async function download(url: string, options: SyncOptions, etag: string | null, file: string, optional = false): Promise<Download> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.token !== undefined) headers['veeziaccesstoken'] = options.token;
  if (etag !== null) headers['if-none-match'] = etag;
  let response: Response;
  try {
    response = await fetch(url, { headers, signal: AbortSignal.timeout(60_000) });
  } catch (error) {
    throw new TransientError(`${url}: ${describeFetchError(error)}`);
  }
  if (response.status === 304) return { notModified: true, etag };
  if (response.status === 404 && optional) {
    await response.body?.cancel();
    return { notModified: etag === ABSENT, etag: ABSENT };
  }
  if (response.status >= 500 || response.status === 429 || response.status === 408) {
    await response.body?.cancel();
    throw new TransientError(`${url} answered ${response.status} ${response.statusText}`);
  }
  if (response.status !== 200 || response.body === null) {
    await response.body?.cancel();
    const hint = response.status === 401 || response.status === 403 ? ' (check --token)' : '';
    throw new SyncError(`${url} answered ${response.status} ${response.statusText}${hint}`);
  }
  try {
    await pipeline(Readable.fromWeb(response.body as WebReadableStream), createWriteStream(file));
  } catch (error) {
    throw new TransientError(`${url}: the answer broke off (${describeFetchError(error)})`);
  }
  return { notModified: false, etag: response.headers.get('etag') };
}

function describeFetchError(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}

async function withRetries<T>(options: SyncOptions, attempt: () => Promise<T>): Promise<T> {
  for (let tries = 0; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof TransientError) || tries >= options.retries) throw error;
      const delayMs = options.retryDelayMs * 2 ** tries;
      options.onRetry?.(error.message, delayMs);
      await sleep(delayMs);
    }
  }
}

/**
 * The original service's film list leaves DisplaySequence out (its single-film answer has it):
 * each film without one is read on its own, and the list is written again with it.
 */
async function completeFilms(file: string, base: string, options: SyncOptions, directory: string): Promise<void> {
  const lacksSequence = (raw: RawValue): raw is RawRecord => isRawRecord(raw) && raw['DisplaySequence'] === undefined && typeof raw['Id'] === 'string';
  let incomplete = false;
  for await (const { raw } of readRecords(createReadStream(file), file)) {
    if (lacksSequence(raw)) {
      incomplete = true;
      break;
    }
  }
  if (!incomplete) return;
  const single = join(directory, 'film.json');
  const completed = `${file}.complete`;
  const out = createWriteStream(completed);
  let separator = '[';
  for await (const { raw } of readRecords(createReadStream(file), file)) {
    let record = raw;
    if (lacksSequence(raw)) {
      const url = `${base}/v4/film/${encodeURIComponent(raw['Id'] as string)}`;
      await withRetries(options, () => download(url, options, null, single));
      for await (const { raw: detail } of readRecords(createReadStream(single), url)) {
        if (isRawRecord(detail)) record = { ...raw, DisplaySequence: detail['DisplaySequence'] };
      }
    }
    if (!out.write(`${separator}${rawToJson(record)}`)) await once(out, 'drain');
    separator = ',';
  }
  out.end(separator === '[' ? '[]' : ']');
  await once(out, 'finish');
  await rename(completed, file);
}

/** Writes each session of `file` again with the Url of its web session, or null where it has none. */
async function addUrls(file: string, webSessionsFile: string | undefined): Promise<void> {
  const urls = new Map<string, RawValue>();
  if (webSessionsFile !== undefined) {
    for await (const { raw } of readRecords(createReadStream(webSessionsFile), webSessionsFile)) {
      if (isRawRecord(raw) && raw['Id'] !== undefined && raw['Url'] !== undefined) urls.set(rawToJson(raw['Id']), raw['Url']);
    }
  }
  const completed = `${file}.complete`;
  const out = createWriteStream(completed);
  let separator = '[';
  for await (const { raw } of readRecords(createReadStream(file), file)) {
    const record = isRawRecord(raw) ? { ...raw, Url: urls.get(raw['Id'] === undefined ? '' : rawToJson(raw['Id'])) ?? null } : raw;
    if (!out.write(`${separator}${rawToJson(record)}`)) await once(out, 'drain');
    separator = ',';
  }
  out.end(separator === '[' ? '[]' : ']');
  await once(out, 'finish');
  await rename(completed, file);
}

export async function syncOnce(db: SqlClient, options: SyncOptions): Promise<SyncResult> {
  const base = options.from.replace(/\/+$/, '');
  const source = await loadSyncSource(db, options.customer, base);
  // ETags speak for the local catalogue only while nothing else has changed it.
  const current = source !== undefined && source.catalogueVersion === (await loadCatalogueVersion(db, options.customer)) ? source : undefined;
  const directory = await mkdtemp(join(tmpdir(), 'marquee-sync-'));
  try {
    const files = RESOURCES.map((resource) => join(directory, resource.file));
    const fetchAll = (conditional: boolean): Promise<Download[]> =>
      Promise.all(
        RESOURCES.map((resource, index) =>
          download(base + resource.path, options, conditional ? (current?.etags[resource.path] ?? null) : null, files[index] as string, resource.optional),
        ),
      );
    const downloads = await withRetries(options, async () => {
      const answers = await fetchAll(true);
      // The catalogue is replaced whole: once any list changed, every one is needed in full.
      return answers.every((answer) => answer.notModified) || answers.every((answer) => !answer.notModified) ? answers : fetchAll(false);
    });
    if (downloads.every((d) => d.notModified)) return { unchanged: true };
    await completeFilms(files[0] as string, base, options, directory);
    const present = (path: string): string | undefined => {
      const index = RESOURCES.findIndex((resource) => resource.path === path);
      return downloads[index]?.etag === ABSENT ? undefined : files[index];
    };
    const sessions = present('/v1/session');
    if (sessions !== undefined) await addUrls(sessions, present('/v1/websession'));
    const imported = RESOURCES.filter((resource) => resource.path !== '/v1/websession').flatMap((resource) => present(resource.path) ?? []);
    const result = await importFiles(db, { customer: options.customer, files: imported, replace: true });
    const etags: Record<string, string> = {};
    RESOURCES.forEach((resource, index) => {
      const etag = downloads[index]?.etag;
      if (etag !== undefined && etag !== null) etags[resource.path] = etag;
    });
    await saveSyncSource(db, options.customer, base, { etags, catalogueVersion: result.version });
    return { unchanged: false, result };
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}
