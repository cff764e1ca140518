/**
 * Reads a picture from the URL a catalogue names (CONTRACT §13), within limits a hostile or
 * broken host cannot stretch: only addresses the AddressRule allows, each redirect checked
 * again, at most three of them, one deadline for the whole read, and a most in bytes, counted as
 * they arrive whatever the host announces. Pictures made for a seed (the demo's) are read from
 * the seed's own directory instead, by host and path, so that it needs no network.
 */
import { readFile, stat } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import type { AddressRule } from '../outbound/address-rule.js';
import { RefusedAddressError } from '../outbound/address-rule.js';
import { Deadline } from '../outbound/deadline.js';
import { sendOutbound } from '../outbound/outbound-request.js';

/** A source that cannot be read: 404 when its host says it has no such picture, else 502. */
export class UnreadableSourceError extends Error {
  constructor(
    message: string,
    readonly status: 404 | 502 = 502,
  ) {
    super(message);
    this.name = 'UnreadableSourceError';
  }
}

export interface SourceLimits {
  readonly rule: AddressRule;
  /** For the whole read, redirects included. */
  readonly timeoutMs: number;
  readonly maxBytes: number;
  /** A seed's pictures, as `DIR/HOST/PATH`: read from there when the file exists. */
  readonly seedPictures?: string | undefined;
}

const MAX_REDIRECTS = 3;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** What the host is asked for: the formats Marquee reads, none other. */
const ACCEPT = 'image/avif,image/webp,image/png,image/jpeg,image/gif;q=0.9';

/** The file a seed made for `url`, if it has one. */
async function seedFile(url: URL, directory: string): Promise<string | undefined> {
  const root = resolve(directory);
  let path: string;
  try {
    path = decodeURIComponent(url.pathname);
  } catch {
    // A path whose escapes decode to no text names no seed file: it is read from its host.
    return undefined;
  }
  const file = resolve(join(root, url.hostname, path));
  if (!file.startsWith(root + sep)) return undefined;
  const found = await stat(file).catch(() => undefined);
  return found?.isFile() === true ? file : undefined;
}

function tooLarge(url: URL, maxBytes: number): UnreadableSourceError {
  return new UnreadableSourceError(`${url.href} is larger than --image-max-bytes (${maxBytes} bytes)`);
}

/** The bytes at `url`, or UnreadableSourceError saying why not. */
export async function readSource(url: URL, limits: SourceLimits): Promise<Buffer> {
  if (limits.seedPictures !== undefined) {
    const file = await seedFile(url, limits.seedPictures);
    if (file !== undefined) {
      if ((await stat(file)).size > limits.maxBytes) throw tooLarge(url, limits.maxBytes);
      return readFile(file);
    }
  }
  const deadline = new Deadline(limits.timeoutMs);
  try {
    return await readOverHttp(url, limits, deadline.signal);
  } catch (error) {
    if (error instanceof UnreadableSourceError) throw error;
    if (error instanceof RefusedAddressError) throw new UnreadableSourceError(error.message);
    if (deadline.passed) throw new UnreadableSourceError(`${url.href} was not read within --image-timeout (${limits.timeoutMs} ms)`);
    throw new UnreadableSourceError(`${url.href} could not be read: ${(error as Error).message}`);
  } finally {
    deadline.end();
  }
}

async function readOverHttp(first: URL, limits: SourceLimits, signal: AbortSignal): Promise<Buffer> {
  let url = first;
  for (let redirects = 0; ; redirects++) {
    const response = await sendOutbound(url, limits.rule, { signal, headers: { accept: ACCEPT, 'user-agent': 'Marquee' } });
    const status = response.statusCode ?? 0;
    const location = response.headers.location;
    if (REDIRECTS.has(status) && location !== undefined) {
      response.destroy();
      if (redirects === MAX_REDIRECTS) throw new UnreadableSourceError(`${first.href} redirects more than ${MAX_REDIRECTS} times`);
      url = new URL(location, url);
      continue;
    }
    if (status !== 200) {
      response.destroy();
      throw new UnreadableSourceError(`${url.href} answered ${status}`, status === 404 || status === 410 ? 404 : 502);
    }
    if (Number(response.headers['content-length'] ?? 0) > limits.maxBytes) {
      response.destroy();
      throw tooLarge(url, limits.maxBytes);
    }
    const chunks: Buffer[] = [];
    let bytes = 0;
    for await (const chunk of response as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      if (bytes > limits.maxBytes) {
        response.destroy();
        throw tooLarge(url, limits.maxBytes);
      }
      chunks.push(chunk);
    }
    return Buffer.concat(chunks, bytes);
  }
}
