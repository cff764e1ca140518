/**
 * Mirrors a Veezi-compatible API (the original service or another Marquee) into a customer's
 * catalogue: every list is downloaded, then imported with --replace in one transaction, so a
 * failure at any point leaves the catalogue as it was. ETags make an unchanged upstream cost one
 * 304 answer per list and nothing else. Each session takes its Url from the upstream's web
 * sessions.
 */
import { createReadStream } from 'node:fs';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { rawToJson, type RawValue } from '../catalogue/raw-record.js';
import type { ByteSize } from '../config.js';
import { readRecords, type ReadRecord } from '../formats/record-readers.js';
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
  /** The largest answer read, decompressed: an upstream cannot fill the disk. */
  readonly maxDownload: ByteSize;
  /** Problems listed when the upstream's records break rules; the rest are counted. */
  readonly maxProblems: number;
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
 * The lists read, the file each is kept in and the kind of its records. An upstream that answers
 * 404 for an optional one has none of it: no site, or a server that does not serve screens and
 * sessions.
 */
const RESOURCES = [
  { path: '/v4/film', file: 'films.json', kind: 'film', optional: false },
  { path: '/v1/filmpackage', file: 'filmpackages.json', kind: 'package', optional: false },
  { path: '/v1/screen', file: 'screens.json', kind: 'screen', optional: true },
  { path: '/v1/attribute', file: 'attributes.json', kind: 'attribute', optional: true },
  { path: '/v1/site', file: 'site.json', kind: 'site', optional: true },
  { path: '/v1/session', file: 'sessions.json', kind: 'session', optional: true },
  { path: '/v1/websession', file: 'websessions.json', kind: 'session', optional: true },
] as const;

/** The ETag kept for a list the upstream does not have, so that its 404 counts as unchanged. */
const ABSENT = 'absent';

interface Download {
  readonly notModified: boolean;
  readonly etag: string | null;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 5;

/**
 * Fetches `url`, following redirects itself: at most MAX_REDIRECTS, and once a redirect leaves
 * the origin (scheme, host, port) the token is no longer sent, as browsers and curl do.
 */
async function fetchFollowing(url: string, headers: Readonly<Record<string, string>>, signal: AbortSignal): Promise<Response> {
  let current = new URL(url);
  let sent = headers;
  for (let redirects = 0; ; redirects++) {
    const response = await fetch(current, { headers: sent, redirect: 'manual', signal });
    const location = response.headers.get('location');
    if (!REDIRECTS.has(response.status) || location === null) return response;
    await response.body?.cancel();
    const next = URL.canParse(location, current.href) ? new URL(location, current) : undefined;
    if (next?.protocol !== 'http:' && next?.protocol !== 'https:') throw new SyncError(`${url}: redirected to '${location}', which is no http(s) address`);
    if (redirects === MAX_REDIRECTS) throw new SyncError(`${url}: more than ${MAX_REDIRECTS} redirects, the last to ${next.href}`);
    if (next.origin !== current.origin) {
      const { veeziaccesstoken: _token, authorization: _authorization, ...others } = sent;
      sent = others;
    }
    current = next;
  }
}

/**
 * The chunks of an answer, failing once they pass `limit` bytes: counted decompressed, so that a
 * small bomb stops too. Once `stop` aborts, a read in flight is cancelled here: undici leaves it
 * pending for ever when the abort comes after the last byte but before the end.
 */
async function* capped(body: ReadableStream<Uint8Array>, stop: AbortSignal, limit: number, tooLarge: () => SyncError): AsyncGenerator<Uint8Array> {
  const reader = body.getReader();
  const cancel = (): void => void reader.cancel(stop.reason).catch(() => undefined);
  stop.addEventListener('abort', cancel, { once: true });
  try {
    for (let bytes = 0; ; ) {
      const { done, value } = await reader.read();
      stop.throwIfAborted();
      if (done) return;
      bytes += value.length;
      if (bytes > limit) throw tooLarge();
      yield value;
    }
  } finally {
    stop.removeEventListener('abort', cancel);
    await reader.cancel().catch(() => undefined);
  }
}

async function download(url: string, options: SyncOptions, etag: string | null, file: string, optional = false, signal?: AbortSignal): Promise<Download> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.token !== undefined) headers['veeziaccesstoken'] = options.token;
  if (etag !== null) headers['if-none-match'] = etag;
  const timeout = AbortSignal.timeout(60_000);
  const stop = signal ? AbortSignal.any([signal, timeout]) : timeout;
  let response: Response;
  try {
    response = await fetchFollowing(url, headers, stop);
  } catch (error) {
    if (error instanceof SyncError) throw error;
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
  const { bytes, text } = options.maxDownload;
  const tooLarge = (): SyncError => new SyncError(`${url}: the answer is larger than ${text}, the limit of --max-download (MARQUEE_MAX_DOWNLOAD)`);
  // A length announced is the length decoded only when nothing is compressed.
  if (!response.headers.has('content-encoding') && Number(response.headers.get('content-length')) > bytes) {
    await response.body.cancel();
    throw tooLarge();
  }
  try {
    // writeFile closes the file before it settles, so nothing is written once the directory is removed.
    await writeFile(file, capped(response.body, stop, bytes, tooLarge));
  } catch (error) {
    if (error instanceof SyncError) throw error;
    throw new TransientError(`${url}: the answer broke off (${describeFetchError(error)})`);
  }
  return { notModified: false, etag: response.headers.get('etag') };
}

/**
 * Downloads side by side. When one fails the others are stopped, and every one has ended, its
 * file closed, before the failure is passed on: the directory is removed right after.
 */
async function downloadAll(downloads: readonly ((signal: AbortSignal) => Promise<Download>)[]): Promise<Download[]> {
  const round = new AbortController();
  let failure: { readonly error: unknown } | undefined;
  const answers = await Promise.all(
    downloads.map((start) =>
      start(round.signal).catch((error: unknown) => {
        failure ??= { error };
        round.abort();
        return undefined;
      }),
    ),
  );
  if (failure !== undefined) throw failure.error;
  return answers as Download[];
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
  const list = `${base}/v4/film`;
  const lacksSequence = (read: ReadRecord): read is ReadRecord & { kind: 'film' } =>
    read.kind === 'film' && read.raw['DisplaySequence'] === undefined && typeof read.raw['Id'] === 'string';
  let incomplete = false;
  for await (const read of readRecords(createReadStream(file), list, 'film')) {
    if (lacksSequence(read)) {
      incomplete = true;
      break;
    }
  }
  if (!incomplete) return;
  const single = join(directory, 'film.json');
  async function* completed(): AsyncGenerator<string> {
    let separator = '[';
    for await (const read of readRecords(createReadStream(file), list, 'film')) {
      let record: RawValue = read.raw;
      if (lacksSequence(read)) {
        const url = `${list}/${encodeURIComponent(read.raw['Id'] as string)}`;
        await withRetries(options, () => download(url, options, null, single));
        for await (const detail of readRecords(createReadStream(single), url, 'film')) {
          if (detail.kind === 'film') record = { ...read.raw, DisplaySequence: detail.raw['DisplaySequence'] };
        }
      }
      yield `${separator}${rawToJson(record)}`;
      separator = ',';
    }
    yield separator === '[' ? '[]' : ']';
  }
  await writeFile(`${file}.complete`, completed());
  await rename(`${file}.complete`, file);
}

/** Writes each session of `file` again with the Url of its web session, or null where it has none. */
async function addUrls(file: string, list: string, webSessions: { readonly file: string; readonly list: string } | undefined): Promise<void> {
  const urls = new Map<string, RawValue>();
  if (webSessions !== undefined) {
    for await (const read of readRecords(createReadStream(webSessions.file), webSessions.list, 'session')) {
      if (read.kind === 'session' && read.raw['Id'] !== undefined && read.raw['Url'] !== undefined) urls.set(rawToJson(read.raw['Id']), read.raw['Url']);
    }
  }
  async function* completed(): AsyncGenerator<string> {
    let separator = '[';
    for await (const read of readRecords(createReadStream(file), list, 'session')) {
      const record = read.kind === 'misfit' ? read.raw : { ...read.raw, Url: urls.get(read.raw['Id'] === undefined ? '' : rawToJson(read.raw['Id'])) ?? null };
      yield `${separator}${rawToJson(record)}`;
      separator = ',';
    }
    yield separator === '[' ? '[]' : ']';
  }
  await writeFile(`${file}.complete`, completed());
  await rename(`${file}.complete`, file);
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
      downloadAll(
        RESOURCES.map((resource, index) => (signal) => {
          const etag = conditional ? (current?.etags[resource.path] ?? null) : null;
          return download(base + resource.path, options, etag, files[index] as string, resource.optional, signal);
        }),
      );
    const downloads = await withRetries(options, async () => {
      const answers = await fetchAll(true);
      // The catalogue is replaced whole: once any list changed, every one is needed in full.
      return answers.every((answer) => answer.notModified) || answers.every((answer) => !answer.notModified) ? answers : fetchAll(false);
    });
    if (downloads.every((d) => d.notModified)) return { unchanged: true };
    await completeFilms(files[0] as string, base, options, directory);
    // Lists the upstream has, each named by its address in problems and holding its own kind.
    const lists = new Map(
      RESOURCES.flatMap((resource, index) =>
        downloads[index]?.etag === ABSENT ? [] : [[resource.path, { path: files[index] as string, name: base + resource.path, kind: resource.kind }] as const],
      ),
    );
    const sessions = lists.get('/v1/session');
    const webSessions = lists.get('/v1/websession');
    if (sessions !== undefined) await addUrls(sessions.path, sessions.name, webSessions && { file: webSessions.path, list: webSessions.name });
    lists.delete('/v1/websession');
    const result = await importFiles(db, {
      customer: options.customer,
      files: [...lists.values()],
      replace: true,
      maxProblems: options.maxProblems,
    });
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
