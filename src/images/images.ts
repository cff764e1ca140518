/**
 * The pictures a catalogue names (CONTRACT §13), served at the size a page needs. The programme
 * asks this room for a picture's addresses (`describe`), and its route for a rendition at one of
 * them (`rendition`): the source is read once, safely, and kept in the database every server
 * shares, within `--image-cache`; renditions are made off the event loop, a few at a time, and
 * the latest kept in memory.
 *
 * Servers of one database share the sources they read rather than each reading its own: the
 * programme gives each source's size (its srcset and its `width` and `height`), which must be
 * the same on every server; a source read by one server is then served by all, and after its
 * host is gone, by a server started since; and a cinema's image host is asked once for the fleet.
 */
import { hash } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { AddressRule } from '../outbound/address-rule.js';
import { loadSharedSecret } from '../store/shared-secrets.js';
import { countSources, keepSource, loadSource, loadSourceSizes, type KeptSource, type SourceSize } from '../store/image-repository.js';
import type { SqlClient } from '../store/sql-client.js';
import { ByteLru } from './byte-lru.js';
import { PictureSigner, sourceId } from './picture-signer.js';
import { describePicture, type ImageDescription, type PictureDirectory } from './picture-directory.js';
import { CONTENT_TYPES, pictureFormat, renderPicture } from './rendition.js';
import { sourceSize } from './source-picture.js';
import { readSource, UnreadableSourceError } from './source-reader.js';
import { WorkQueue } from './work-queue.js';

export interface ImageSettings {
  /** `--image-source`: prefixes read from, and the only ones when any is named. */
  readonly sources: readonly string[];
  readonly timeoutMs: number;
  readonly maxBytes: number;
  /** `--image-cache`: what the sources kept in the database may take. */
  readonly cacheBytes: number;
  /** A seed's pictures, read from disk by host and path (the demo's). */
  readonly seedPictures?: string | undefined;
}

/** A rendition, as sent. */
export interface Rendition {
  readonly body: Buffer;
  readonly etag: string;
  readonly contentType: string;
}

/** The address is not one Marquee handed out: answered 404, and nothing is read. */
export class UnknownPictureError extends Error {
  constructor() {
    super('no picture is at this address');
    this.name = 'UnknownPictureError';
  }
}

/** Sources and renditions held in memory, for the renditions asked for next. */
const SOURCE_MEMORY_BYTES = 64 * 2 ** 20;
const RENDITION_MEMORY_BYTES = 64 * 2 ** 20;
/** How long a source that could not be read answers so without being tried again. */
const FAILURE_MEMORY_MS = 60_000;
/** Renditions waiting for their turn beyond which more are refused (503) until some are made. */
const MAX_WAITING = 1000;

/**
 * Resizing takes a core: a server keeps one free for its other answers. On two cores, one
 * picture is resized at a time.
 */
const PARALLEL_RENDITIONS = Math.max(1, availableParallelism() - 1);

export class Images implements PictureDirectory {
  /** Sizes learned so far: what `describe` answers changes with each. */
  private learned = 0;
  private readonly memory = { sources: new ByteLru<KeptSource>(SOURCE_MEMORY_BYTES), renditions: new ByteLru<Rendition>(RENDITION_MEMORY_BYTES) };
  /** Sources being read and renditions being made, which a second request for them waits for. */
  private readonly pending = { sources: new Map<string, Promise<KeptSource>>(), renditions: new Map<string, Promise<Rendition>>() };
  private readonly failures = new Map<string, { readonly error: UnreadableSourceError; readonly until: number }>();
  private readonly queue = new WorkQueue(PARALLEL_RENDITIONS, MAX_WAITING);
  private readonly rule: AddressRule;
  private timer: NodeJS.Timeout | undefined;
  private looking: Promise<void> | undefined;

  private constructor(
    private readonly db: SqlClient,
    private readonly signer: PictureSigner,
    private readonly settings: ImageSettings,
    private sizes: Map<string, SourceSize>,
    private sourceCount: number,
    private readonly onReadFailure: (url: URL, error: UnreadableSourceError) => void,
  ) {
    this.rule = new AddressRule({ prefixes: settings.sources, onlyPrefixes: true, flag: '--image-source' });
  }

  /** The pictures of `db`: its shared secret, made by the first server, and the sizes of the sources read so far. */
  static async open(db: SqlClient, settings: ImageSettings, onReadFailure: (url: URL, error: UnreadableSourceError) => void = () => {}): Promise<Images> {
    const secret = await loadSharedSecret(db, 'images');
    const count = await countSources(db);
    return new Images(db, new PictureSigner(secret), settings, await loadSourceSizes(db), count, onReadFailure);
  }

  get generation(): number {
    return this.learned;
  }

  describe(url: string | null): ImageDescription | null {
    return describePicture(this.signer, url, (parsed) => this.sizes.get(sourceId(parsed.href)));
  }

  /**
   * The rendition at an address the programme handed out, in the format `accept` prefers.
   * Rejects with UnknownPictureError for any other address, UnreadableSourceError when the
   * source cannot be read, QueueFullError when too many wait to be made.
   */
  async rendition(source: string, width: string, signature: string, accept: string | undefined): Promise<Rendition> {
    const asked = this.signer.verify(source, width, signature);
    if (asked === undefined) throw new UnknownPictureError();
    const picture = await this.source(asked.url);
    const format = pictureFormat(accept, picture.transparent);
    const key = `${picture.id} ${asked.width} ${format}`;
    const kept = this.memory.renditions.get(key);
    if (kept !== undefined) return kept;
    return this.once(this.pending.renditions, key, async () => {
      const body = await this.queue.run(() => renderPicture(picture.content, asked.width, format).catch((error: unknown) => this.unrenderable(picture, error)));
      const rendition = { body, etag: `"${hash('sha256', body, 'base64url')}"`, contentType: CONTENT_TYPES[format] };
      this.memory.renditions.set(key, rendition, body.length);
      return rendition;
    });
  }

  /** Follows the sources other servers read, every `intervalMs`. */
  watch(intervalMs: number, onError: (error: unknown) => void): void {
    this.timer = setInterval(() => {
      this.looking ??= this.look()
        .catch(onError)
        .finally(() => (this.looking = undefined));
    }, intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.looking;
    await Promise.allSettled([...this.pending.sources.values(), ...this.pending.renditions.values()]);
  }

  /** Learns the sizes of sources read since last looked, by this server or another. */
  private async look(): Promise<void> {
    const count = await countSources(this.db);
    if (count === this.sourceCount) return;
    this.sizes = await loadSourceSizes(this.db);
    this.sourceCount = count;
    this.learned++;
  }

  /**
   * A source whose header was read but whose picture cannot be decoded (cut short, say) is as
   * unreadable as one never read, and is not tried again for as long.
   */
  private unrenderable(source: KeptSource, error: unknown): never {
    const unreadable = new UnreadableSourceError(`${source.url} cannot be read as a picture: ${(error as Error).message}`);
    this.failures.set(source.id, { error: unreadable, until: Date.now() + FAILURE_MEMORY_MS });
    this.onReadFailure(new URL(source.url), unreadable);
    throw unreadable;
  }

  /** The source at `url`: in memory, else kept in the database, else read from its host and kept. */
  private async source(url: URL): Promise<KeptSource> {
    const id = sourceId(url.href);
    const failure = this.failures.get(id);
    if (failure !== undefined && Date.now() < failure.until) throw failure.error;
    const inMemory = this.memory.sources.get(id);
    if (inMemory !== undefined) return inMemory;
    return this.once(this.pending.sources, id, async () => {
      const source = (await loadSource(this.db, id, new Date())) ?? (await this.read(id, url));
      this.memory.sources.set(id, source, source.content.length);
      this.learnSize(source);
      return source;
    });
  }

  private async read(id: string, url: URL): Promise<KeptSource> {
    try {
      const content = await readSource(url, { rule: this.rule, timeoutMs: this.settings.timeoutMs, maxBytes: this.settings.maxBytes, seedPictures: this.settings.seedPictures });
      const source = { id, url: url.href, content, ...(await sourceSize(url, content)) };
      await keepSource(this.db, source, this.settings.cacheBytes, new Date());
      this.failures.delete(id);
      return source;
    } catch (error) {
      if (!(error instanceof UnreadableSourceError)) throw error;
      this.failures.set(id, { error, until: Date.now() + FAILURE_MEMORY_MS });
      this.onReadFailure(url, error);
      throw error;
    }
  }

  /** Knows the size of `source` from now on, as other servers will once they look. */
  private learnSize(source: KeptSource): void {
    if (this.sizes.has(source.id)) return;
    this.sizes.set(source.id, { width: source.width, height: source.height, transparent: source.transparent });
    this.learned++;
  }

  /** The work under `key`, done once however many ask for it while it is under way. */
  private once<T>(pending: Map<string, Promise<T>>, key: string, work: () => Promise<T>): Promise<T> {
    const under = pending.get(key);
    if (under !== undefined) return under;
    const started = work().finally(() => pending.delete(key));
    pending.set(key, started);
    return started;
  }
}
