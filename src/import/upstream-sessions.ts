/**
 * A cinema's session and web session lists as its upstream wrote them, record by record: each
 * record known by a digest of its bytes. A sync that finds one session changed in lists of 300
 * then reads, checks and compares that session alone, and leaves the others as they are stored:
 * a record whose bytes are those of a record of the lists its last sync wrote is that record,
 * and was stored as it says.
 *
 * Anything the records cannot be told apart by (lists that are not arrays of objects, an Id that
 * is not a whole number, an Id twice in a list) sends the sync back to reading the lists whole,
 * where the import says what is wrong.
 */
import { hash } from 'node:crypto';

/**
 * A record's digest: 96 bits of its SHA-1, in base64url. It tells apart the few hundred records
 * of one cinema's lists, where two alike by chance are out of reach, in 16 bytes: a process keeps
 * them for every cinema it syncs.
 */
function digestOf(bytes: Buffer): string {
  return hash('sha1', bytes, 'base64url').slice(0, DIGEST_LENGTH);
}

const DIGEST_LENGTH = 16;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const MINUS = 0x2d;
const ZERO = 0x30;
const NINE = 0x39;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
/** Of the name `"Id"`. */
const LETTER_I = 0x49;
const LETTER_D = 0x64;

function isSpace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/** The first place from `at` on that holds no white space. */
function pastSpace(bytes: Buffer, at: number): number {
  while (isSpace(bytes[at])) at++;
  return at;
}

/**
 * Each object of a JSON array of objects: where it starts and ends, and the whole number its Id
 * is written as (NaN when it has no Id, or an Id written otherwise, or twice). Undefined when the
 * bytes are not such an array, as far as finding the objects tells: what each holds is the
 * import's to judge.
 */
export function objectsOfArray(bytes: Buffer): { readonly starts: number[]; readonly ends: number[]; readonly ids: number[] } | undefined {
  const starts: number[] = [];
  const ends: number[] = [];
  const ids: number[] = [];
  const length = bytes.length;
  // No closure shares `at`: one would keep it out of a register, at every byte.
  let at = pastSpace(bytes, 0);
  if (bytes[at++] !== OPEN_BRACKET) return undefined;
  at = pastSpace(bytes, at);
  if (bytes[at] === CLOSE_BRACKET) at++;
  else {
    for (;;) {
      if (bytes[at] !== OPEN_BRACE) return undefined;
      const start = at;
      let depth = 0;
      let id: number | undefined;
      for (; at < length; at++) {
        const byte = bytes[at];
        if (byte === QUOTE) {
          const opening = at;
          for (at++; at < length; at++) {
            const inString = bytes[at];
            if (inString === QUOTE) break;
            if (inString === BACKSLASH) at++;
          }
          if (depth === 1 && at === opening + 3 && bytes[opening + 1] === LETTER_I && bytes[opening + 2] === LETTER_D) {
            const value = wholeNumberValue(bytes, at + 1);
            // The text "Id" as a value is followed by no colon: no Id.
            if (value !== undefined) id = id === undefined ? value : NaN;
          }
        } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) depth++;
        else if ((byte === CLOSE_BRACE || byte === CLOSE_BRACKET) && --depth === 0) break;
      }
      if (at >= length) return undefined;
      starts.push(start);
      ends.push(++at);
      ids.push(id ?? NaN);
      at = pastSpace(bytes, at);
      const next = bytes[at++];
      if (next === CLOSE_BRACKET) break;
      if (next !== COMMA) return undefined;
      at = pastSpace(bytes, at);
    }
  }
  at = pastSpace(bytes, at);
  return at === length ? { starts, ends, ids } : undefined;
}

/**
 * The value of the member whose name ends just before `at`, when it is a whole number written
 * plainly (NaN when it is written otherwise); undefined when no colon follows (a string value).
 */
function wholeNumberValue(bytes: Buffer, at: number): number | undefined {
  at = pastSpace(bytes, at);
  if (bytes[at++] !== COLON) return undefined;
  at = pastSpace(bytes, at);
  const negative = bytes[at] === MINUS;
  if (negative) at++;
  const first = at;
  let value = 0;
  for (let byte = bytes[at]; byte !== undefined && byte >= ZERO && byte <= NINE; byte = bytes[++at]) value = value * 10 + (byte - ZERO);
  const digits = at - first;
  at = pastSpace(bytes, at);
  const plain = digits > 0 && (digits === 1 || bytes[first] !== ZERO) && (bytes[at] === COMMA || bytes[at] === CLOSE_BRACE);
  return plain && Number.isSafeInteger(value) ? (negative ? -value : value) : NaN;
}

/** The digest of each record of a list, in the list's order, joined. */
class RecordDigests {
  constructor(private readonly digests: string) {}

  /** Whether the list had a record of this digest, looked for first where a record at `index` would be. */
  has(digest: string, index: number): boolean {
    if (this.digests.startsWith(digest, index * DIGEST_LENGTH)) return true;
    for (let at = this.digests.indexOf(digest); at !== -1; at = this.digests.indexOf(digest, at + 1)) if (at % DIGEST_LENGTH === 0) return true;
    return false;
  }
}

/** A list's records, each with its Id and whether the last sync's list had it, byte for byte. */
interface ListRecords {
  readonly records: readonly Buffer[];
  readonly ids: readonly number[];
  readonly known: readonly boolean[];
  readonly digests: RecordDigests;
}

/** The list's records, and which of them `previous` had; undefined when they cannot be told apart. */
function listRecords(bytes: Buffer, previous: RecordDigests | undefined): ListRecords | undefined {
  const found = objectsOfArray(bytes);
  if (found === undefined || found.ids.some(Number.isNaN) || new Set(found.ids).size !== found.ids.length) return undefined;
  const records = found.starts.map((start, index) => bytes.subarray(start, found.ends[index]));
  const digests = records.map(digestOf);
  const known = digests.map((digest, index) => previous?.has(digest, index) === true);
  return { records, ids: found.ids, known, digests: new RecordDigests(digests.join('')) };
}

/** What the last sync wrote of a cinema's sessions, as its upstream wrote them. */
export class UpstreamSessions {
  private constructor(
    private readonly sessions: RecordDigests,
    private readonly webSessions: RecordDigests,
    /** The sessions that had a web session: one that goes takes its Url with it. */
    private readonly onSale: Float64Array,
  ) {}

  /**
   * The sessions of the lists read now that must be read, checked and compared, and those left as
   * stored, when the sessions are stored as the lists `previous` describes left them; all of them
   * are read without `previous`. Undefined when the records cannot be told apart: then the lists
   * are read whole.
   */
  static toRead(sessions: Buffer, webSessions: Buffer, previous: UpstreamSessions | undefined): SessionsToRead | undefined {
    const list = listRecords(sessions, previous?.sessions);
    const webList = listRecords(webSessions, previous?.webSessions);
    if (list === undefined || webList === undefined) return undefined;
    const upstream = new UpstreamSessions(list.digests, webList.digests, Float64Array.from(webList.ids));
    // A session is read again when its record or its web session's is new, or its web session is gone.
    const changed = new Set<number>();
    list.ids.forEach((id, index) => list.known[index] || changed.add(id));
    webList.ids.forEach((id, index) => webList.known[index] || changed.add(id));
    const webIds = new Set(webList.ids);
    for (const id of previous?.onSale ?? []) if (!webIds.has(id)) changed.add(id);
    const kept = list.ids.filter((id) => !changed.has(id));
    if (kept.length === 0) return { sessions, webSessions, kept, upstream };
    const ofChanged = ({ records, ids }: ListRecords): Buffer => jsonArray(records.filter((_, index) => changed.has(ids[index] as number)));
    return { sessions: ofChanged(list), webSessions: ofChanged(webList), kept, upstream };
  }
}

function jsonArray(records: readonly Buffer[]): Buffer {
  const separator = Buffer.from(',');
  return Buffer.concat([Buffer.from('['), ...records.flatMap((record, index) => (index === 0 ? [record] : [separator, record])), Buffer.from(']')]);
}

/** The lists of a sync, narrowed to the sessions it must read. */
export interface SessionsToRead {
  /** A JSON array of the session records to read, as the upstream wrote them: the whole list when none is kept. */
  readonly sessions: Buffer;
  /** The web session records of those sessions, likewise. */
  readonly webSessions: Buffer;
  /** The Ids of the sessions left as stored: their records are those the last sync wrote. */
  readonly kept: readonly number[];
  /** The lists read now, record by record: what the next sync compares with once these are written. */
  readonly upstream: UpstreamSessions;
}
