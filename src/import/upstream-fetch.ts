/**
 * Reading one list from an upstream, as a hostile one might answer it: redirects followed by
 * hand (a few, and the token never sent to another origin), a deadline on every request, and
 * every byte kept counted against what one sync may keep, decompressed, so that no upstream can
 * fill the memory or the disk.
 */
import { writeFile } from 'node:fs/promises';
import type { ByteSize } from '../config.js';
import type { InputBytes } from './import-files.js';

/** The upstream could not be read, or answered what cannot be mirrored; the local catalogue is as it was. */
export class SyncError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SyncError';
  }
}

/** A failure worth trying again soon: the network, or an upstream that says it is busy or broken. */
export class TransientSyncError extends SyncError {
  /** How long the upstream asked to be left alone (Retry-After), if it did. */
  readonly retryAfterMs: number | undefined;

  constructor(message: string, retryAfterMs?: number) {
    super(message);
    this.retryAfterMs = retryAfterMs;
  }
}

/** Bytes gathered into one write of a temporary file. */
const WRITE_BYTES = 256 * 1024;
/**
 * An answer up to this size is kept in memory; a larger one goes to a temporary file. Most lists
 * are a few hundred kilobytes, read every minute: writing each to a file and streaming it back was
 * a quarter of the sync's CPU. A few syncs at once hold a few megabytes so.
 */
const IN_MEMORY_BYTES = 1024 * 1024;

/** `chunks` as buffers, each told to `take` as it comes; the source is closed however reading ends. */
async function* counted(chunks: AsyncIterable<string | Uint8Array>, take: (bytes: number) => void): AsyncGenerator<Buffer> {
  for await (const chunk of chunks) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
    take(buffer.length);
    yield buffer;
  }
}

/** `first`, then the buffers of `rest` gathered into writes of WRITE_BYTES: a write per chunk (a record, or what the network brought) cost more than the parsing. */
async function* inWrites(first: Buffer, rest: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  yield first;
  let pending: Buffer[] = [];
  let bytes = 0;
  for await (const buffer of rest) {
    pending.push(buffer);
    bytes += buffer.length;
    if (bytes < WRITE_BYTES) continue;
    yield Buffer.concat(pending, bytes);
    pending = [];
    bytes = 0;
  }
  if (bytes > 0) yield Buffer.concat(pending, bytes);
}

/**
 * What one sync may keep of its answers, in memory and in temporary files, answers and what is
 * made from them alike: `--max-download`. Counted as bytes arrive, so that a sync stops the moment
 * it passes.
 */
export class WriteBudget {
  private written = 0;

  constructor(private readonly limit: ByteSize) {}

  /** The bytes still allowed. */
  get left(): number {
    return this.limit.bytes - this.written;
  }

  /** Counts `bytes` written for `url`; fails once the sync has written more than the limit. */
  take(bytes: number, url: string): void {
    this.written += bytes;
    if (this.written > this.limit.bytes) throw this.exceeded(url);
  }

  exceeded(url: string): SyncError {
    return new SyncError(`${url}: the answers of one sync are larger than ${this.limit.text}, the limit of --max-download (MARQUEE_MAX_DOWNLOAD)`);
  }

  /**
   * Keeps `chunks`, counted: in memory up to IN_MEMORY_BYTES, else in `file`. writeFile closes the
   * file before it settles, failure or not.
   */
  async keep(file: () => Promise<string>, chunks: AsyncIterable<string | Uint8Array>, url: string): Promise<InputBytes> {
    const buffers = counted(chunks, (bytes) => this.take(bytes, url));
    try {
      const held: Buffer[] = [];
      let bytes = 0;
      while (bytes <= IN_MEMORY_BYTES) {
        const next = await buffers.next();
        if (next.done === true) return { bytes: Buffer.concat(held, bytes) };
        held.push(next.value);
        bytes += next.value.length;
      }
      const path = await file();
      await writeFile(path, inWrites(Buffer.concat(held, bytes), buffers));
      return { file: path };
    } finally {
      // However it ends, the source is closed: an answer left half-read would hold its connection.
      await buffers.return(undefined);
    }
  }
}

export interface ListRequest {
  readonly url: string;
  readonly token: string | undefined;
  /** Sent as If-None-Match: the ETag of the answer last taken. */
  readonly etag: string | null;
  /** Where the answer is written when it is too large to keep in memory: a path made on first use. */
  readonly file: () => Promise<string>;
  /** A 404 means the upstream has none of this list, rather than a failure. */
  readonly optional: boolean;
  readonly timeoutMs: number;
  readonly budget: WriteBudget;
  /** Stops the request, as the process stops. */
  readonly signal: AbortSignal;
}

/** What a list answered: not modified, absent (a 404 where allowed), or its bytes read with its ETag. */
export type ListAnswer = { readonly status: 'not modified' } | { readonly status: 'absent' } | { readonly status: 'read'; readonly etag: string | null; readonly body: InputBytes };

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 5;
/** Answers that say the upstream is busy or broken for now. */
const TRANSIENT_STATUSES = new Set([408, 429, 500, 502, 503, 504]);

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
 * The chunks of an answer. Once `stop` aborts, a read in flight is cancelled here: undici leaves
 * it pending for ever when the abort comes after the last byte but before the end.
 */
async function* chunksOf(body: ReadableStream<Uint8Array>, stop: AbortSignal): AsyncGenerator<Uint8Array> {
  const reader = body.getReader();
  const cancel = (): void => void reader.cancel(stop.reason).catch(() => undefined);
  stop.addEventListener('abort', cancel, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      stop.throwIfAborted();
      if (done) return;
      yield value;
    }
  } finally {
    stop.removeEventListener('abort', cancel);
    await reader.cancel().catch(() => undefined);
  }
}

function describeFetchError(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}

/** Retry-After in seconds or as an HTTP date, in milliseconds from now; undefined when absent or unreadable. */
function retryAfterMs(header: string | null): number | undefined {
  if (header === null) return undefined;
  const ms = /^\d+$/.test(header.trim()) ? Number(header.trim()) * 1000 : Date.parse(header) - Date.now();
  return Number.isFinite(ms) ? Math.max(0, ms) : undefined;
}

/** Reads one list, conditionally when an ETag is given. */
export async function fetchList(request: ListRequest): Promise<ListAnswer> {
  const { url, budget } = request;
  const headers: Record<string, string> = { accept: 'application/json' };
  if (request.token !== undefined) headers['veeziaccesstoken'] = request.token;
  if (request.etag !== null) headers['if-none-match'] = request.etag;
  const deadline = AbortSignal.timeout(request.timeoutMs);
  const stop = AbortSignal.any([request.signal, deadline]);
  const failed = (error: unknown, brokeOff: boolean): SyncError => {
    if (error instanceof SyncError) return error;
    if (deadline.aborted) return new TransientSyncError(`${url}: no whole answer within ${request.timeoutMs / 1000} s (--upstream-timeout)`);
    const reason = describeFetchError(error);
    return new TransientSyncError(`${url}: ${brokeOff ? `the answer broke off (${reason})` : reason}`);
  };
  let response: Response;
  try {
    response = await fetchFollowing(url, headers, stop);
  } catch (error) {
    throw failed(error, false);
  }
  if (response.status === 304) return { status: 'not modified' };
  if (response.status !== 200 || response.body === null) {
    await response.body?.cancel();
    if (response.status === 404 && request.optional) return { status: 'absent' };
    const answered = `${url} answered ${response.status} ${response.statusText}`;
    if (TRANSIENT_STATUSES.has(response.status)) throw new TransientSyncError(answered, retryAfterMs(response.headers.get('retry-after')));
    throw new SyncError(`${answered}${response.status === 401 || response.status === 403 ? ' (check the token)' : ''}`);
  }
  // A length announced is the length decoded only when nothing is compressed.
  if (!response.headers.has('content-encoding') && Number(response.headers.get('content-length')) > budget.left) {
    await response.body.cancel();
    throw budget.exceeded(url);
  }
  let body: InputBytes;
  try {
    body = await budget.keep(request.file, chunksOf(response.body, stop), url);
  } catch (error) {
    throw failed(error, true);
  }
  return { status: 'read', etag: response.headers.get('etag'), body };
}
