/**
 * An answer built once per snapshot: its bytes, its strong ETag, and its compressed forms.
 * A request then costs a lookup and a write.
 */
import { hash } from 'node:crypto';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { HeldBytes } from './held-bytes.js';

export type FormatName = 'json' | 'xml';
export type ContentCoding = 'br' | 'gzip';

/** SHA-1's length, in bytes: the digests an ETag is made of. */
export const SHA1_BYTES = 20;

/** A body and its strong ETag: a compressed form, or an answer whose writer made its ETag. */
export interface TaggedBody {
  readonly body: Buffer;
  readonly etag: string;
}

/** Bodies smaller than this gain too little from compression to be worth the work. */
const MIN_COMPRESSIBLE_BYTES = 1024;
/** Larger bodies are compressed in the background, off the request path (about a millisecond of work). */
const MAX_COMPRESSED_ON_REQUEST = 64 * 1024;

// Quality 5 and level 6 compress a catalogue list in tens of milliseconds; the highest
// settings cost seconds for a few percent more.
const BROTLI_OPTIONS = { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } };
const GZIP_OPTIONS = { level: 6 };
const compressAsync: Readonly<Record<ContentCoding, (body: Buffer) => Promise<Buffer>>> = {
  br: (body) => promisify(zlib.brotliCompress)(body, BROTLI_OPTIONS),
  gzip: (body) => promisify(zlib.gzip)(body, GZIP_OPTIONS),
};
const compressSync: Readonly<Record<ContentCoding, (body: Buffer) => Buffer>> = {
  br: (body) => zlib.brotliCompressSync(body, BROTLI_OPTIONS),
  gzip: (body) => zlib.gzipSync(body, GZIP_OPTIONS),
};

export class Representation {
  /**
   * Hashed on first use, unless given: a catalogue is published whole when one of its answers is
   * asked for, and most of its records are never asked for before it is published again.
   */
  private tag: string | undefined;
  /**
   * Compressed forms once made; null where compression did not pay. A cache, never a change of
   * content, made on the first compressed request in each coding: most records are never asked
   * for compressed, and a map for each of them made a publication's garbage collections copy
   * thousands more objects.
   */
  private encodings: Map<ContentCoding, TaggedBody | null> | undefined;
  /** The compressions under way or done in the thread pool, by coding. */
  private compressing: Map<ContentCoding, Promise<void>> | undefined;
  /** Compressed requests of a large body, counted until its compression begins. */
  private compressedAsks = 0;

  /**
   * `held` counts the compressed forms as they are made. `etag` is given by a writer that made it
   * from the digests of the body's pieces (a list's records, the programme's texts); otherwise
   * the ETag is the body's SHA-1.
   */
  constructor(
    readonly body: Buffer,
    private readonly held?: HeldBytes,
    etag?: string,
  ) {
    this.tag = etag;
  }

  get etag(): string {
    return (this.tag ??= `"${hash('sha1', this.body, 'base64url')}"`);
  }

  get compressible(): boolean {
    return this.body.length >= MIN_COMPRESSIBLE_BYTES;
  }

  /**
   * The body in `coding`, or undefined when it is not (yet) worth sending. A small body is
   * compressed on its first request in that coding. A large one is compressed in the thread pool,
   * since compressing megabytes on the request path would stall every other request, and only
   * from its second compressed request on: a list that changes every minute is often asked once
   * an edition (a sync or a CDN revalidating after each change), and compressing each edition
   * for a client that had already been sent it whole cost more than the change itself.
   */
  encoded(coding: ContentCoding): TaggedBody | undefined {
    if (!this.compressible) return undefined;
    const encoded = this.encodings?.get(coding);
    if (encoded !== undefined) return encoded ?? undefined;
    if (this.body.length <= MAX_COMPRESSED_ON_REQUEST) return this.keep(coding, compressSync[coding](this.body)) ?? undefined;
    if (++this.compressedAsks > 1) void this.compressed(coding);
    return undefined;
  }

  /** What it holds: its body, and its compressed forms made so far. */
  get bytes(): number {
    let bytes = this.body.length;
    for (const encoded of this.encodings?.values() ?? []) if (encoded !== null) bytes += encoded.body.length;
    return bytes;
  }

  /**
   * Resolves once the body is compressed in `coding` in the thread pool, begun on the first call.
   * An answer written for a request waits for it, so that even its first client gets it
   * compressed; a prebuilt one goes out as it is meanwhile.
   */
  compressed(coding: ContentCoding): Promise<void> {
    if (!this.compressible) return Promise.resolve();
    this.compressing ??= new Map();
    let compressing = this.compressing.get(coding);
    if (compressing === undefined) {
      compressing = compressAsync[coding](this.body).then(
        (compressed) => void this.keep(coding, compressed),
        // Only a lack of memory makes zlib fail: the body goes on being sent as it is, which every client takes.
        () => {},
      );
      this.compressing.set(coding, compressing);
    }
    return compressing;
  }

  private keep(coding: ContentCoding, compressed: Buffer): TaggedBody | null {
    // Under ~10 % saved, the identity body is as good and spares the client the decoding.
    const encoded = compressed.length < this.body.length * 0.9 ? { body: compressed, etag: `${this.etag.slice(0, -1)}-${coding}"` } : null;
    if (encoded !== null) this.held?.add(compressed.length);
    this.encodings ??= new Map();
    this.encodings.set(coding, encoded);
    return encoded;
  }
}

/** The same resource in each format. */
export type Representations = Readonly<Record<FormatName, Representation>>;
