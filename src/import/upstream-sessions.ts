/**
 * A cinema's session and web session lists as its upstream wrote them, record by record: each
 * record known by a digest of its bytes, with its Id. A sync that finds one session changed
 * in lists of 300 then reads, checks and compares that session alone, and leaves the others as
 * they are stored: a record whose bytes are those of a record of the lists its last sync wrote
 * is that record, and was stored as it says.
 *
 * Anything the records cannot be told apart by (lists that are not arrays of objects, an Id that
 * is not a whole number, an Id twice in a list) sends the sync back to reading the lists whole,
 * where the import says what is wrong.
 */
import { hash } from 'node:crypto';

/** A digest's length: SHA-1 in base64url. */
const DIGEST_LENGTH = 27;

function digestOf(bytes: Buffer): string {
  return hash('sha1', bytes, 'base64url');
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

function isSpace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/**
 * Where each object of a JSON array of objects starts and ends; undefined when the bytes are not
 * one (as far as finding them tells: what each object holds is the import's to judge).
 */
export function objectsOfArray(bytes: Buffer): { readonly starts: number[]; readonly ends: number[] } | undefined {
  const starts: number[] = [];
  const ends: number[] = [];
  const length = bytes.length;
  let at = 0;
  const skipSpace = (): void => {
    while (isSpace(bytes[at])) at++;
  };
  skipSpace();
  if (bytes[at++] !== OPEN_BRACKET) return undefined;
  skipSpace();
  if (bytes[at] === CLOSE_BRACKET) at++;
  else {
    for (;;) {
      if (bytes[at] !== OPEN_BRACE) return undefined;
      const start = at;
      let depth = 0;
      for (; at < length; at++) {
        const byte = bytes[at];
        if (byte === QUOTE) {
          for (at++; at < length && bytes[at] !== QUOTE; at++) if (bytes[at] === BACKSLASH) at++;
        } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) depth++;
        else if ((byte === CLOSE_BRACE || byte === CLOSE_BRACKET) && --depth === 0) break;
      }
      if (at >= length) return undefined;
      starts.push(start);
      ends.push(++at);
      skipSpace();
      const next = bytes[at++];
      if (next === CLOSE_BRACKET) break;
      if (next !== COMMA) return undefined;
      skipSpace();
    }
  }
  skipSpace();
  return at === length ? { starts, ends } : undefined;
}

/** The record's Id, when it is a whole number; undefined otherwise, or when the record is not JSON. */
function idOf(record: Buffer): number | undefined {
  try {
    const id: unknown = (JSON.parse(record.toString('utf8')) as Record<string, unknown>)['Id'];
    return Number.isSafeInteger(id) ? (id as number) : undefined;
  } catch {
    return undefined;
  }
}

/** One list's records, packed: the digest of each one's bytes, joined, and its Id, in the list's order. */
class RecordDigests {
  constructor(
    private readonly digests: string,
    readonly ids: Float64Array,
  ) {}

  /** The Id of the record of this digest, looked for first where a record at `index` would be. */
  idOf(digest: string, index: number): number | undefined {
    if (this.digests.startsWith(digest, index * DIGEST_LENGTH)) return this.ids[index];
    for (let at = this.digests.indexOf(digest); at !== -1; at = this.digests.indexOf(digest, at + 1)) {
      if (at % DIGEST_LENGTH === 0) return this.ids[at / DIGEST_LENGTH];
    }
    return undefined;
  }
}

/** A list's records, each with its Id and whether the last sync's lists had it, byte for byte. */
interface ListRecords {
  readonly records: readonly Buffer[];
  readonly ids: readonly number[];
  readonly known: readonly boolean[];
  readonly digests: RecordDigests;
}

/** The list's records, their Ids taken from `previous` where it had them; undefined when they cannot be told apart. */
function listRecords(bytes: Buffer, previous: RecordDigests | undefined): ListRecords | undefined {
  const found = objectsOfArray(bytes);
  if (found === undefined) return undefined;
  const records: Buffer[] = [];
  const ids: number[] = [];
  const known: boolean[] = [];
  const digests: string[] = [];
  for (const [index, start] of found.starts.entries()) {
    const record = bytes.subarray(start, found.ends[index]);
    const digest = digestOf(record);
    const knownId = previous?.idOf(digest, index);
    const id = knownId ?? idOf(record);
    if (id === undefined) return undefined;
    records.push(record);
    ids.push(id);
    known.push(knownId !== undefined);
    digests.push(digest);
  }
  if (new Set(ids).size !== ids.length) return undefined;
  return { records, ids, known, digests: new RecordDigests(digests.join(''), Float64Array.from(ids)) };
}

/** What the last sync wrote of a cinema's sessions, as its upstream wrote them. */
export class UpstreamSessions {
  private constructor(
    private readonly sessions: RecordDigests,
    private readonly webSessions: RecordDigests,
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
    const upstream = new UpstreamSessions(list.digests, webList.digests);
    // A session is read again when its record or its web session's is new, or its web session is gone.
    const changed = new Set<number>();
    list.ids.forEach((id, index) => list.known[index] || changed.add(id));
    webList.ids.forEach((id, index) => webList.known[index] || changed.add(id));
    const webIds = new Set(webList.ids);
    for (const id of previous?.webSessions.ids ?? []) if (!webIds.has(id)) changed.add(id);
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
