/**
 * Reading one list from an upstream, as a hostile one might answer it: redirects followed by
 * hand (a few, and the token never sent to another origin), a deadline on every request, and
 * every byte kept counted against what one sync may keep, decompressed, so that no upstream can
 * fill the memory or the disk.
 */
import { writeFile } from 'node:fs/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { pipeline, type Readable, type Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { ByteSize } from '../config.js';
import { Deadline } from '../outbound/deadline.js';
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
 * The pieces a decoder gives its output in. zlib's default, 16 KB, made a session list of 190 KB
 * a dozen trips to the thread pool and through the stream, which cost more than the decoding:
 * 0.88 ms of CPU a list, against 0.55 ms in pieces of 256 KB. A decoder writes into a buffer of
 * that size: 2 MB for eight syncs at once.
 */
const DECODED_CHUNK_BYTES = 256 * 1024;
/** What each content coding asked for is undone by. */
const DECODERS: ReadonlyMap<string, (options: { readonly chunkSize: number }) => Transform> = new Map([
  ['gzip', createGunzip],
  ['x-gzip', createGunzip],
  ['deflate', createInflate],
  ['br', createBrotliDecompress],
]);
const ACCEPT_ENCODING = 'br, gzip, deflate';

/**
 * One GET of `url`, answered by its head. node:http rather than fetch: a list read through fetch's
 * web streams cost twice the CPU, and a sync reads two a minute of each of a thousand cinemas.
 * A kept-alive connection the upstream closed meanwhile is found only when written to: the
 * request is then sent once more on a new one, as Node.js advises for requests that can be.
 */
function get(url: URL, headers: Readonly<Record<string, string>>, signal: AbortSignal, retried = false): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, { headers, signal }, resolve);
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (request.reusedSocket && error.code === 'ECONNRESET' && !retried && !signal.aborted) resolve(get(url, headers, signal, true));
      else reject(error);
    });
    request.end();
  });
}

/**
 * Fetches `url`, following redirects itself: at most MAX_REDIRECTS, and once a redirect leaves
 * the origin (scheme, host, port) the token is no longer sent, as browsers and curl do.
 */
async function fetchFollowing(url: string, headers: Readonly<Record<string, string>>, signal: AbortSignal): Promise<IncomingMessage> {
  let current = new URL(url);
  let sent = headers;
  for (let redirects = 0; ; redirects++) {
    const response = await get(current, sent, signal);
    const { location } = response.headers;
    if (!REDIRECTS.has(response.statusCode ?? 0) || location === undefined) return response;
    response.destroy();
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

/** The bytes of an answer, decoded as its Content-Encoding says; undefined for a coding not asked for. */
function decodedBody(response: IncomingMessage): Readable | undefined {
  const coding = response.headers['content-encoding']?.trim().toLowerCase() ?? 'identity';
  if (coding === 'identity') return response;
  const decoder = DECODERS.get(coding)?.({ chunkSize: DECODED_CHUNK_BYTES });
  // However either ends, both are closed: an error of one is the other's too.
  return decoder === undefined ? undefined : pipeline(response, decoder, () => undefined);
}

function describeRequestError(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
}

/** Retry-After in seconds or as an HTTP date, in milliseconds from now; undefined when absent or unreadable. */
function retryAfterMs(header: string | undefined): number | undefined {
  if (header === undefined) return undefined;
  const ms = /^\d+$/.test(header.trim()) ? Number(header.trim()) * 1000 : Date.parse(header) - Date.now();
  return Number.isFinite(ms) ? Math.max(0, ms) : undefined;
}

/** Reads one list, conditionally when an ETag is given. */
export async function fetchList(request: ListRequest): Promise<ListAnswer> {
  const deadline = new Deadline(request.timeoutMs, request.signal);
  try {
    return await fetchWithin(deadline, request);
  } finally {
    deadline.end();
  }
}

async function fetchWithin(deadline: Deadline, request: ListRequest): Promise<ListAnswer> {
  const { url, budget } = request;
  const headers: Record<string, string> = { accept: 'application/json', 'accept-encoding': ACCEPT_ENCODING };
  if (request.token !== undefined) headers['veeziaccesstoken'] = request.token;
  if (request.etag !== null) headers['if-none-match'] = request.etag;
  const failed = (error: unknown, brokeOff: boolean): SyncError => {
    if (error instanceof SyncError) return error;
    if (deadline.passed) return new TransientSyncError(`${url}: no whole answer within ${request.timeoutMs / 1000} s (--upstream-timeout)`);
    const reason = describeRequestError(error);
    return new TransientSyncError(`${url}: ${brokeOff ? `the answer broke off (${reason})` : reason}`);
  };
  let response: IncomingMessage;
  try {
    response = await fetchFollowing(url, headers, deadline.signal);
  } catch (error) {
    throw failed(error, false);
  }
  const status = response.statusCode ?? 0;
  // A 304 has no body, and its connection serves the next list; any other answer is left unread.
  if (status === 304) {
    response.resume();
    return { status: 'not modified' };
  }
  if (status !== 200) {
    response.destroy();
    if (status === 404 && request.optional) return { status: 'absent' };
    const answered = `${url} answered ${status} ${response.statusMessage ?? ''}`.trimEnd();
    if (TRANSIENT_STATUSES.has(status)) throw new TransientSyncError(answered, retryAfterMs(response.headers['retry-after']));
    throw new SyncError(`${answered}${status === 401 || status === 403 ? ' (check the token)' : ''}`);
  }
  const body = decodedBody(response);
  if (body === undefined) {
    response.destroy();
    throw new SyncError(`${url}: answered in the content coding '${response.headers['content-encoding']}', which was not asked for`);
  }
  // A length announced is the length decoded only when nothing is compressed.
  if (body === response && Number(response.headers['content-length']) > budget.left) {
    response.destroy();
    throw budget.exceeded(url);
  }
  try {
    return { status: 'read', etag: response.headers.etag ?? null, body: await budget.keep(request.file, body, url) };
  } catch (error) {
    throw failed(error, true);
  }
}
