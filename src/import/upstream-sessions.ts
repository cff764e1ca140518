/**
 * A cinema's session and web session lists as its upstream wrote them, record by record: each
 * session known by a digest of its bytes, each web session by a digest of its Url's, the one
 * thing a session takes of it. A sync that finds one session changed in lists of 300 then reads,
 * checks and compares that session alone, and leaves the others as they are stored: a session
 * whose bytes are those of a session of the lists its last sync wrote, and whose web session has
 * the Url it had then, is that session, and was stored as it says.
 *
 * Anything the records cannot be told apart by (lists that are not arrays of objects, an Id that
 * is not a whole number, an Id twice in a list, a Url twice in a record or not a plain value)
 * sends the sync back to reading the lists whole, where the import says what is wrong.
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
/** The names of the members read, as bytes. */
const ID_NAME = [...Buffer.from('Id')];
const URL_NAME = [...Buffer.from('Url')];

function isSpace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/** The first place from `at` on that holds no white space. */
function pastSpace(bytes: Buffer, at: number): number {
  while (isSpace(bytes[at])) at++;
  return at;
}

/** Whether the string from `opening` to its closing quote at `closing` is `name`, written plainly. */
function isName(bytes: Buffer, opening: number, closing: number, name: readonly number[]): boolean {
  if (closing - opening - 1 !== name.length) return false;
  for (let index = 0; index < name.length; index++) if (bytes[opening + 1 + index] !== name[index]) return false;
  return true;
}

/** Where the quote that closes the string opened at `opening` is; the length of `bytes` when none does. */
function closingQuote(bytes: Buffer, opening: number): number {
  let at = opening + 1;
  for (; at < bytes.length; at++) {
    const byte = bytes[at];
    if (byte === QUOTE) break;
    if (byte === BACKSLASH) at++;
  }
  return Math.min(at, bytes.length);
}

/** Where the string, `null` or other word that starts at `at` ends; -1 for an object or an array, or a string never closed. */
function endOfPlainValue(bytes: Buffer, at: number): number {
  if (bytes[at] === OPEN_BRACE || bytes[at] === OPEN_BRACKET) return -1;
  if (bytes[at] === QUOTE) {
    const closing = closingQuote(bytes, at);
    return closing < bytes.length ? closing + 1 : -1;
  }
  while (at < bytes.length && bytes[at] !== COMMA && bytes[at] !== CLOSE_BRACE && !isSpace(bytes[at])) at++;
  return at;
}

/** The objects of an array, as `objectsOfArray` finds them. */
export interface FoundObjects {
  readonly starts: number[];
  readonly ends: number[];
  /**
   * The whole number each one's Id is written as; NaN when it has no Id, or one written
   * otherwise, or two, or two Urls, or a Url that is an object or an array.
   */
  readonly ids: number[];
  /** Where the value of each one's Url starts and ends: -1 when it has none (and nothing to go by when its Id is NaN). */
  readonly urlStarts: number[];
  readonly urlEnds: number[];
}

/** What a byte outside a string is to the walk of `objectsOfArray`: it passes over all but quotes, braces and brackets. */
const PASSED = 0;
const OPENS_STRING = 1;
const OPENS = 2;
const CLOSES = 3;
const BYTE_ROLES = new Uint8Array(256);
BYTE_ROLES[QUOTE] = OPENS_STRING;
BYTE_ROLES[OPEN_BRACE] = BYTE_ROLES[OPEN_BRACKET] = OPENS;
BYTE_ROLES[CLOSE_BRACE] = BYTE_ROLES[CLOSE_BRACKET] = CLOSES;
/** The depth of an array's objects' members: the array is 1 deep. */
const MEMBER_DEPTH = 2;

/**
 * Each object of a JSON array of objects: where it starts and ends, its Id and where its Url is.
 * Undefined when the bytes are not such an array, as far as finding the objects tells: what each
 * holds is the import's to judge.
 *
 * Two passes: a walk of every byte that finds the objects and the strings of their members short
 * enough to be "Id" or "Url", then a look at what lies between the objects and at those strings.
 * One loop that did it all took half as long again a byte (2.5 ns rather than 1.6), and walking a
 * cinema's two lists of 300 was about a tenth of what a sync of one changed session cost.
 */
export function objectsOfArray(bytes: Buffer): FoundObjects | undefined {
  const starts: number[] = [];
  const ends: number[] = [];
  /** The opening quote of each string of an object's own members that may be the name "Id" or "Url". */
  const shortStrings: number[] = [];
  const length = bytes.length;
  let depth = 0;
  for (let at = 0; at < length; at++) {
    const role = BYTE_ROLES[bytes[at] as number];
    if (role === PASSED) continue;
    if (role === OPENS_STRING) {
      const opening = at;
      // Passed over here rather than by `closingQuote`: most bytes are in strings, and this loop must stay tight.
      for (let byte = bytes[++at]; byte !== QUOTE; byte = bytes[++at]) {
        if (byte === BACKSLASH) at++;
        if (at >= length) return undefined;
      }
      if (depth === MEMBER_DEPTH && at - opening <= URL_NAME.length + 1) shortStrings.push(opening);
    } else if (role === OPENS) {
      if (depth === 1) {
        if (bytes[at] !== OPEN_BRACE) return undefined;
        starts.push(at);
      }
      depth++;
    } else if (--depth === 1) ends.push(at + 1);
    else if (depth === 0) break;
  }
  // An object never closed has no end: the array is not whole.
  return depth === 0 ? membersOf(bytes, starts, ends, shortStrings) : undefined;
}

/**
 * The objects `objectsOfArray` found, when the array is theirs alone (white space, its brackets
 * and a comma between two), each with its Id and Url read from the strings that may name them.
 */
function membersOf(bytes: Buffer, starts: number[], ends: number[], shortStrings: readonly number[]): FoundObjects | undefined {
  let at = pastSpace(bytes, 0);
  if (bytes[at] !== OPEN_BRACKET) return undefined;
  at = pastSpace(bytes, at + 1);
  for (const [index, start] of starts.entries()) {
    if (index > 0) {
      if (bytes[at] !== COMMA) return undefined;
      at = pastSpace(bytes, at + 1);
    }
    if (at !== start || bytes[(ends[index] as number) - 1] !== CLOSE_BRACE) return undefined;
    at = pastSpace(bytes, ends[index] as number);
  }
  if (bytes[at] !== CLOSE_BRACKET || pastSpace(bytes, at + 1) !== bytes.length) return undefined;

  const ids: number[] = [];
  const urlStarts: number[] = [];
  const urlEnds: number[] = [];
  let next = 0;
  for (const end of ends) {
    let id: number | undefined;
    let urlStart = -1;
    let urlEnd = -1;
    for (; next < shortStrings.length && (shortStrings[next] as number) < end; next++) {
      const opening = shortStrings[next] as number;
      const closing = closingQuote(bytes, opening);
      // A name is followed by a colon; the text "Id" or "Url" as a value is not.
      if (isName(bytes, opening, closing, ID_NAME)) {
        const value = wholeNumberValue(bytes, closing + 1);
        if (value !== undefined) id = id === undefined ? value : NaN;
      } else if (isName(bytes, opening, closing, URL_NAME)) {
        const value = valueAfterColon(bytes, closing + 1);
        if (value !== undefined) {
          const valueEnd = endOfPlainValue(bytes, value);
          // A Url twice, or one that is an object or an array: the record cannot be told apart.
          if (urlStart !== -1 || valueEnd === -1) id = NaN;
          urlStart = value;
          urlEnd = valueEnd;
        }
      }
    }
    ids.push(id ?? NaN);
    urlStarts.push(urlStart);
    urlEnds.push(urlEnd);
  }
  return { starts, ends, ids, urlStarts, urlEnds };
}

/** Where the value of the member whose name ends just before `at` starts; undefined when no colon follows (the name was a value). */
function valueAfterColon(bytes: Buffer, at: number): number | undefined {
  at = pastSpace(bytes, at);
  return bytes[at] === COLON ? pastSpace(bytes, at + 1) : undefined;
}

/**
 * The value of the member whose name ends just before `from`, when it is a whole number written
 * plainly (NaN when it is written otherwise); undefined when no colon follows (a string value).
 */
function wholeNumberValue(bytes: Buffer, from: number): number | undefined {
  let at = valueAfterColon(bytes, from);
  if (at === undefined) return undefined;
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

  /** Whether the list had a record of this digest at `index`. */
  isAt(digest: string, index: number): boolean {
    return this.digests.startsWith(digest, index * DIGEST_LENGTH);
  }

  /** Whether the list had a record of this digest, looked for first where a record at `index` would be. */
  has(digest: string, index: number): boolean {
    if (this.isAt(digest, index)) return true;
    for (let at = this.digests.indexOf(digest); at !== -1; at = this.digests.indexOf(digest, at + 1)) if (at % DIGEST_LENGTH === 0) return true;
    return false;
  }
}

/** A list's records, each with its Id and whether the last sync's list had it as it is now. */
interface ListRecords {
  readonly bytes: Buffer;
  readonly found: FoundObjects;
  readonly known: readonly boolean[];
  readonly digests: RecordDigests;
}

/** The objects of a list, when each has an Id of its own. */
function objectsWithIds(bytes: Buffer): FoundObjects | undefined {
  const found = objectsOfArray(bytes);
  return found === undefined || found.ids.some(Number.isNaN) || new Set(found.ids).size !== found.ids.length ? undefined : found;
}

/** The bytes of the record at `index`. */
function recordAt(bytes: Buffer, { starts, ends }: FoundObjects, index: number): Buffer {
  return bytes.subarray(starts[index], ends[index]);
}

/** A session list's records, each known when `previous` had it byte for byte; undefined when they cannot be told apart. */
function sessionRecords(bytes: Buffer, previous: RecordDigests | undefined): ListRecords | undefined {
  const found = objectsWithIds(bytes);
  if (found === undefined) return undefined;
  const digests = found.starts.map((_, index) => digestOf(recordAt(bytes, found, index)));
  const known = digests.map((digest, index) => previous?.has(digest, index) === true);
  return { bytes, found, known, digests: new RecordDigests(digests.join('')) };
}

/**
 * A web session list's records, each known when the web session of its Id in `previous` had its
 * Url byte for byte: a session takes nothing else of its web session, and a Url is a tenth of
 * the record. Undefined when they cannot be told apart.
 */
function webSessionRecords(bytes: Buffer, previous: UpstreamSessions | undefined): ListRecords | undefined {
  const found = objectsWithIds(bytes);
  if (found === undefined) return undefined;
  const { ids, urlStarts, urlEnds } = found;
  const digests = urlStarts.map((start, index) => digestOf(start === -1 ? NO_URL : bytes.subarray(start, urlEnds[index])));
  const known = digests.map((digest, index) => previous?.hadUrl(ids[index] as number, index, digest) === true);
  return { bytes, found, known, digests: new RecordDigests(digests.join('')) };
}

/** What a web session without a Url is digested as: no Url's bytes are empty. */
const NO_URL = Buffer.alloc(0);

/** What the last sync wrote of a cinema's sessions, as its upstream wrote them. */
export class UpstreamSessions {
  private constructor(
    /** The digest of each session record. */
    private readonly sessions: RecordDigests,
    /** The sessions that had a web session, in the order of the web session list: one that goes takes its Url with it. */
    private readonly onSale: Float64Array,
    /** The digest of the Url of each of them. */
    private readonly urls: RecordDigests,
  ) {}

  /** Whether the web session of `id`, looked for first at `index`, had a Url of this digest. */
  hadUrl(id: number, index: number, digest: string): boolean {
    const at = this.onSale[index] === id ? index : this.onSale.indexOf(id);
    return at !== -1 && this.urls.isAt(digest, at);
  }

  /**
   * The sessions of the lists read now that must be read, checked and compared, and those left as
   * stored, when the sessions are stored as the lists `previous` describes left them; all of them
   * are read without `previous`. Undefined when the records cannot be told apart: then the lists
   * are read whole.
   */
  static toRead(sessions: Buffer, webSessions: Buffer, previous: UpstreamSessions | undefined): SessionsToRead | undefined {
    const list = sessionRecords(sessions, previous?.sessions);
    const webList = webSessionRecords(webSessions, previous);
    if (list === undefined || webList === undefined) return undefined;
    const upstream = new UpstreamSessions(list.digests, Float64Array.from(webList.found.ids), webList.digests);
    // A session is read again when its record or its web session's Url is new, or its web session is gone.
    const changed = new Set<number>();
    for (const { found, known } of [list, webList]) found.ids.forEach((id, index) => known[index] || changed.add(id));
    const webIds = new Set(webList.found.ids);
    for (const id of previous?.onSale ?? []) if (!webIds.has(id)) changed.add(id);
    const kept = list.found.ids.filter((id) => !changed.has(id));
    if (kept.length === 0) return { sessions, webSessions, kept, upstream };
    const ofChanged = ({ bytes, found }: ListRecords): Buffer =>
      jsonArray(found.ids.flatMap((id, index) => (changed.has(id) ? [recordAt(bytes, found, index)] : [])));
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
