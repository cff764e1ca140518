/**
 * Streaming readers of the API's own JSON and XML shapes: what `/v4/film`, `/v1/filmpackage`,
 * `/v1/screen`, `/v1/attribute`, `/v1/site` and `/v1/websession` answer, as a list or a single
 * record. Records come out one at a time, so a file of any size is read in bounded memory; the
 * input may come from anyone (a file, an upstream API), so none can make a reader hold more than
 * one record's worth, nest without end or guess an encoding.
 */
import { SaxesParser, type SaxesTagNS } from 'saxes';
import { getManyValues, none } from 'stream-chain/defs.js';
import { jsonParser, type Token } from 'stream-json/core/parser.js';
import { UnreadableInputError } from '../catalogue/problems.js';
import { NumberText, isRawRecord, type RawRecord, type RawValue } from '../catalogue/raw-record.js';
import { KIND_NOUNS, RECORD_KINDS, recogniseJsonRecord, type RecordKind } from './record-kinds.js';
import { arrayRootName, type WireField, type WireShape } from './wire-shape.js';

export type { RecordKind } from './record-kinds.js';

/** A record of a known kind, or a value that fits no resource and why. */
export type ReadRecord =
  | { readonly kind: RecordKind; readonly raw: RawRecord }
  | { readonly kind: 'misfit'; readonly raw: RawValue; readonly reason: string };

/**
 * Deepest nesting read. The API's shapes are five levels deep at most (ArrayOfFilmPackage,
 * FilmPackage, Films, FilmPackageFilm, FilmId); deeper input is refused as soon as it is seen.
 */
const MAX_DEPTH = 32;
/**
 * Longest value read, in characters: a text, a number, a property name. The longest field of
 * the API, a Synopsis, runs to a few thousand characters; this leaves room a hundred times over.
 */
const MAX_VALUE_LENGTH = 1_048_576;
/** Most characters one record may span: what a reader holds at once stays below it. */
const MAX_RECORD_LENGTH = 16 * MAX_VALUE_LENGTH;

function characters(count: number): string {
  return `${count.toLocaleString('en-US')} characters`;
}

type Encoding = 'utf-8' | 'utf-16le' | 'utf-16be';

/** Bytes decoded to find the first character that is not blank, before the whole: a list of hundreds of kilobytes comes as one chunk. */
const LEADING_BYTES = 4096;

/** The text of `bytes` in `encoding`, or of their first LEADING_BYTES when they are more: a character cut there is left out, not replaced. */
function leadingText(bytes: Buffer, encoding: Encoding): string {
  return new TextDecoder(encoding).decode(bytes.subarray(0, LEADING_BYTES), { stream: bytes.length > LEADING_BYTES });
}

/** Whether `chunk` is only blanks, as `trim` has them. */
function isBlank(chunk: Buffer): boolean {
  return leadingText(chunk, 'utf-8').trim() === '' && (chunk.length <= LEADING_BYTES || String(chunk).trim() === '');
}

/** The first character of `head` in `encoding` that is not blank; empty when there is none. */
function firstCharacter(head: Buffer, encoding: Encoding): string {
  const leading = leadingText(head, encoding).trimStart();
  return (leading === '' ? new TextDecoder(encoding).decode(head).trimStart() : leading).charAt(0);
}

function byteOrderMark(head: Buffer): Encoding | undefined {
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return 'utf-8';
  if (head[0] === 0xff && head[1] === 0xfe) return 'utf-16le';
  if (head[0] === 0xfe && head[1] === 0xff) return 'utf-16be';
  return undefined;
}

/**
 * Reads JSON or XML, told apart by the first character of the input. `expected` is the kind
 * of record the input must hold, when the caller knows it (an upstream's /v4/film).
 */
export async function* readRecords(input: AsyncIterable<Buffer>, file: string, expected?: RecordKind): AsyncGenerator<ReadRecord> {
  const chunks = input[Symbol.asyncIterator]();
  // However reading ends (a refusal, a caller that stops early), the input is closed, not left
  // open until collected.
  try {
    // The first bytes tell the format and the encoding; blank chunks before them are dropped.
    const parts: Buffer[] = [];
    let size = 0;
    while (size < 512) {
      const next = await chunks.next();
      if (next.done) break;
      if (size === 0 && isBlank(next.value)) continue;
      parts.push(next.value);
      size += next.value.length;
    }
    if (size === 0) throw new UnreadableInputError(file, 'the file is empty');
    // A list held in memory comes as one chunk: it is not copied.
    const head = parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts);
    // One chunk more tells whether the head is the whole input, as a list a sync holds in memory is.
    const after = await chunks.next();
    const replay = async function* (): AsyncGenerator<Buffer> {
      yield head;
      for (let next = after; !next.done; next = await chunks.next()) yield next.value;
    };
    const bom = byteOrderMark(head);
    if (firstCharacter(head, bom ?? 'utf-8') === '<') {
      yield* readXmlRecords(replay(), file, xmlEncoding(head, file), expected);
    } else if (bom !== undefined && bom !== 'utf-8') {
      throw new UnreadableInputError(file, `is encoded in ${bom.toUpperCase()} (it starts with its byte-order mark); JSON must be UTF-8`);
    } else {
      yield* (after.done === true ? readWholeJson(head, expected) : undefined) ?? readJsonRecords(replay(), file, expected);
    }
  } finally {
    await chunks.return?.();
  }
}

/**
 * Recognises an input's JSON records one after the other: `expected`, else the kind of the first
 * record known, is the kind of the input for those after it.
 */
function recogniserOf(expected: RecordKind | undefined): (value: RawValue) => ReadRecord {
  let fileKind = expected;
  return (value) => {
    const read = recogniseJsonRecord(value, fileKind);
    if ('reason' in read) return { kind: 'misfit', raw: value, reason: read.reason };
    fileKind ??= read.kind;
    return { kind: read.kind, raw: value as RawRecord };
  };
}

type JsonContainer = { readonly items: RawValue[] } | { readonly members: Record<string, RawValue>; key: string };

/** The rest of a number, from its first character on, as valid JSON writes it. */
const NUMBER = /-?\d[\d.eE+-]*/y;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MINUS = 0x2d;

/**
 * Whether each number of `text` (valid JSON) is written as JavaScript writes it back, so that its
 * value tells its text. A walk over the characters outside strings, each string passed over by
 * searching for its closing quote: a list of records is mostly strings.
 */
function numbersWrittenPlainly(text: string): boolean {
  for (let at = 0; at < text.length; ) {
    const code = text.charCodeAt(at);
    if (code === QUOTE) at = afterString(text, at);
    else if (code === MINUS || (code >= 0x30 && code <= 0x39)) {
      NUMBER.lastIndex = at;
      const number = (NUMBER.exec(text) as RegExpExecArray)[0];
      if (String(Number(number)) !== number) return false;
      at += number.length;
    } else at++;
  }
  return true;
}

/** Where the string opening at `at` in valid JSON ends: after the first quote that an even run of backslashes (none included) precedes. */
function afterString(text: string, at: number): number {
  for (let end = text.indexOf('"', at + 1); ; end = text.indexOf('"', end + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(end - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return end + 1;
  }
}

/**
 * `value`, parsed, with each number as its text, in place; undefined where it nests containers
 * deeper than `levels` (looking no deeper than that) or an object has a `__proto__` member.
 */
function rawOf(value: unknown, levels: number): RawValue | undefined {
  if (typeof value === 'number') return new NumberText(String(value));
  if (value === null || typeof value !== 'object') return value as RawValue;
  // The streaming reader does not keep a `__proto__` member, as JSON.parse does.
  if (levels === 0 || (!Array.isArray(value) && Object.hasOwn(value, '__proto__'))) return undefined;
  const members = value as Record<string, unknown>;
  for (const key of Object.keys(members)) {
    const raw = rawOf(members[key], levels - 1);
    if (raw === undefined) return undefined;
    members[key] = raw;
  }
  return value as RawValue;
}

/**
 * The records of a small input held whole, parsed at once: JSON.parse is several times faster than
 * the tokenizer, and most lists a sync reads are a few hundred kilobytes. Only for what the
 * streaming reader reads alike: valid UTF-8 and JSON, an object or an array at the root, within
 * its limits (no value can be longer in an input this short), each number written as JavaScript
 * writes it (`1.5`, not `1.50` or `-0`: its text is then known from its value), and no
 * `__proto__` member. Anything else is undefined, and read by the streaming reader, which keeps
 * each number's text and says what is wrong in its own words.
 */
function readWholeJson(bytes: Buffer, expected: RecordKind | undefined): ReadRecord[] | undefined {
  if (bytes.length > MAX_VALUE_LENGTH) return undefined;
  let parsed: unknown;
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    parsed = JSON.parse(text);
    if (!numbersWrittenPlainly(text)) return undefined;
  } catch {
    return undefined;
  }
  const root = rawOf(parsed, MAX_DEPTH);
  const items = Array.isArray(root) ? (root as readonly RawValue[]) : root !== undefined && isRawRecord(root) ? [root] : undefined;
  return items?.map(recogniserOf(expected));
}

async function* readJsonRecords(input: AsyncIterable<Buffer>, file: string, expected: RecordKind | undefined): AsyncGenerator<ReadRecord> {
  // The tokenizer is called once per chunk and answers all of its tokens at once: no stream
  // machinery and no promise per token. Strings, numbers and names come in pieces, so that a
  // value too long is refused before it is held whole.
  const tokenize = jsonParser({ packValues: false, streamValues: true });
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
  const stack: JsonContainer[] = [];
  let rootIsArray = false;
  let sawRoot = false;
  const recognise = recogniserOf(expected);
  const records: ReadRecord[] = [];
  /** The record being read, counted from 1, and what it holds so far. */
  let recordNumber = 1;
  let held = 0;
  /** The name, string or number being read. */
  let piece = '';

  const refuse = (reason: string): UnreadableInputError => new UnreadableInputError(file, `record ${recordNumber}: ${reason}`);
  const hold = (size: number): void => {
    held += size;
    if (held > MAX_RECORD_LENGTH) throw refuse(`longer than ${characters(MAX_RECORD_LENGTH)}`);
  };
  const emit = (value: RawValue): void => {
    records.push(recognise(value));
    recordNumber++;
    held = 0;
  };

  // Completes a value: a record when it is the root object or an element of the root array.
  const complete = (value: RawValue): void => {
    const parent = stack.at(-1);
    if (parent === undefined) {
      if (!rootIsArray) {
        if (!isRawRecord(value)) throw new UnreadableInputError(file, 'expected a JSON object or an array of objects');
        emit(value);
      }
    } else if (stack.length === 1 && rootIsArray) {
      emit(value);
    } else {
      hold(1);
      if ('items' in parent) parent.items.push(value);
      // A `__proto__` member is not kept: assigned, it would set the object's prototype, and the
      // object would seem to hold the members of its value.
      else if (parent.key !== '__proto__') parent.members[parent.key] = value;
    }
  };

  const consume = (tokens: readonly Token[]): void => {
    for (const token of tokens) {
      switch (token.name) {
        case 'startObject':
        case 'startArray':
          if (stack.length === MAX_DEPTH) throw refuse(`nested deeper than ${MAX_DEPTH} levels`);
          if (!sawRoot) rootIsArray = token.name === 'startArray';
          sawRoot = true;
          stack.push(token.name === 'startArray' ? { items: [] } : { members: {}, key: '' });
          break;
        case 'endObject':
        case 'endArray': {
          const container = stack.pop() as JsonContainer;
          if (stack.length > 0 || !rootIsArray) complete('items' in container ? container.items : container.members);
          break;
        }
        case 'startKey':
        case 'startString':
        case 'startNumber':
          piece = '';
          break;
        case 'stringChunk':
        case 'numberChunk':
          piece += token.value;
          if (piece.length > MAX_VALUE_LENGTH) throw refuse(`a value longer than ${characters(MAX_VALUE_LENGTH)}`);
          break;
        case 'endKey':
          hold(piece.length);
          (stack.at(-1) as { key: string }).key = piece;
          break;
        case 'endString':
          sawRoot = true;
          hold(piece.length);
          complete(piece);
          break;
        case 'endNumber':
          sawRoot = true;
          hold(piece.length);
          complete(new NumberText(piece));
          break;
        case 'nullValue':
        case 'trueValue':
        case 'falseValue':
          sawRoot = true;
          complete(token.value);
          break;
      }
    }
  };

  const tokensOf = (text: string | typeof none): readonly Token[] => {
    try {
      // Its type names only text, but the tokenizer is a stream-chain flushable: `none` flushes it.
      const output = tokenize(text as string);
      return output === none ? [] : getManyValues(output);
    } catch (error) {
      throw new UnreadableInputError(file, `not valid JSON (${(error as Error).message})`);
    }
  };
  const decode = (chunk?: Buffer): string => {
    try {
      return chunk === undefined ? decoder.decode() : decoder.decode(chunk, { stream: true });
    } catch {
      throw refuse('not valid UTF-8 (in this record or after it)');
    }
  };

  for await (const chunk of input) {
    consume(tokensOf(decode(chunk)));
    yield* records.splice(0);
  }
  consume(tokensOf(decode()));
  consume(tokensOf(none));
  if (!sawRoot) throw new UnreadableInputError(file, 'the file holds no JSON value');
  yield* records.splice(0);
}

/**
 * The encoding of an XML file: its byte-order mark, else its declaration, else UTF-8. Every XML
 * processor must read UTF-8 and UTF-16 (XML 1.0 §4.3.3), so those are decoded. Any other is
 * refused by name rather than decoded: a file declared ISO-8859-1 is as often windows-1252 in
 * fact, either reading silently changes some characters, and one command converts it for sure.
 */
function xmlEncoding(head: Buffer, file: string): Encoding {
  const bom = byteOrderMark(head);
  if (bom !== undefined) return bom;
  const declared = /^\s*<\?xml\s[^>]*?\bencoding\s*=\s*["']([^"']*)["']/.exec(head.toString('latin1', 0, 512))?.[1];
  if (declared === undefined || /^utf-?8$/i.test(declared)) return 'utf-8';
  throw new UnreadableInputError(
    file,
    `is encoded in ${declared}, as its XML declaration says; import reads XML in UTF-8, or in UTF-16 with a byte-order mark: convert it first, such as with iconv -f ${declared} -t UTF-8`,
  );
}

const XSI = 'http://www.w3.org/2001/XMLSchema-instance';

interface XmlRoot {
  readonly kind: RecordKind;
  readonly shape: WireShape<unknown>;
  /** `ArrayOfFilm` holds records; `Film` is one. */
  readonly list: boolean;
}

const XML_ROOTS = new Map<string, XmlRoot>(
  RECORD_KINDS.flatMap(({ kind, shape }): [string, XmlRoot][] => [
    [shape.name, { kind, shape: shape as WireShape<unknown>, list: false }],
    [arrayRootName(shape), { kind, shape: shape as WireShape<unknown>, list: true }],
  ]),
);

/** What the reader is inside of, from the root down. */
type XmlFrame =
  | { readonly type: 'record'; readonly shape: WireShape<unknown>; readonly values: Record<string, RawValue>; readonly onClose: (record: RawRecord) => void }
  | { readonly type: 'scalar'; readonly field: WireField<unknown>; readonly nil: boolean; text: string; readonly onClose: (value: RawValue) => void }
  | { readonly type: 'wrapper'; readonly itemShape: WireShape<unknown>; readonly itemElement: string; readonly items: RawValue[] }
  | { readonly type: 'texts'; readonly field: WireField<unknown>; readonly itemElement: string; readonly items: RawValue[] }
  | { readonly type: 'root'; readonly name: string; readonly kind: RecordKind; readonly shape: WireShape<unknown> }
  | { readonly type: 'ignored' };

function xmlScalar(field: WireField<unknown>, text: string): RawValue {
  if (field.kind === 'integer' || field.kind === 'percent') return new NumberText(text.trim());
  if (field.kind === 'boolean') {
    const word = text.trim();
    if (word === 'true' || word === '1') return true;
    if (word === 'false' || word === '0') return false;
  }
  return text;
}

async function* readXmlRecords(input: AsyncIterable<Buffer>, file: string, encoding: Encoding, expected: RecordKind | undefined): AsyncGenerator<ReadRecord> {
  const parser = new SaxesParser({ xmlns: true, position: true });
  const stack: XmlFrame[] = [];
  const records: ReadRecord[] = [];
  let sawRoot = false;
  /** The record being read, counted from 1, and where it began while it is open. */
  let recordNumber = 1;
  let recordStart: number | undefined;
  /** Where the last tag or text ended: saxes holds everything after it in one string. */
  let markupEnd = 0;

  const refuse = (reason: string): UnreadableInputError =>
    new UnreadableInputError(file, `${recordStart === undefined ? '' : `record ${recordNumber}, `}line ${parser.line}: ${reason}`);
  const emit = (read: ReadRecord): void => {
    records.push(read);
    recordNumber++;
    recordStart = undefined;
  };

  const openRecord = (shape: WireShape<unknown>, onClose: (record: RawRecord) => void): XmlFrame => {
    const values: Record<string, RawValue> = {};
    // A list absent from the XML is empty: nobody in People writes no People element.
    for (const field of shape.fields) if (field.kind === 'list' || field.kind === 'textList') values[field.name] = [];
    return { type: 'record', shape, values, onClose };
  };

  const scalarFrame = (field: WireField<unknown>, tag: SaxesTagNS, onClose: (value: RawValue) => void): XmlFrame => {
    const nil = Object.values(tag.attributes).some((a) => a.uri === XSI && a.local === 'nil' && a.value.trim() === 'true');
    return { type: 'scalar', field, nil, text: '', onClose };
  };

  const childFrame = (parent: XmlFrame, tag: SaxesTagNS): XmlFrame => {
    const name = tag.local;
    switch (parent.type) {
      case 'root':
        if (name !== parent.shape.name) {
          emit({ kind: 'misfit', raw: `<${tag.name}>`, reason: `fits no resource: <${parent.name}> lists <${parent.shape.name}> elements` });
          return { type: 'ignored' };
        }
        recordStart = parser.position;
        return openRecord(parent.shape, (raw) => emit({ kind: parent.kind, raw }));
      case 'wrapper':
        if (name !== parent.itemElement) return { type: 'ignored' };
        return openRecord(parent.itemShape, (raw) => parent.items.push(raw));
      case 'texts':
        if (name !== parent.itemElement) return { type: 'ignored' };
        return scalarFrame(parent.field, tag, (value) => parent.items.push(value));
      case 'record': {
        const field = parent.shape.fields.find((candidate) => candidate.name === name);
        if (field === undefined) return { type: 'ignored' };
        if (field.kind !== 'list' && field.kind !== 'textList') return scalarFrame(field, tag, (value) => (parent.values[name] = value));
        const items = parent.values[name] as RawValue[];
        if (field.kind === 'textList') return { type: 'texts', field, itemElement: field.itemElement, items };
        if (field.xml === 'repeated') return openRecord(field.item, (raw) => items.push(raw));
        return { type: 'wrapper', itemShape: field.item, itemElement: field.item.name, items };
      }
      default:
        return { type: 'ignored' };
    }
  };

  const openRoot = (tag: SaxesTagNS): XmlFrame => {
    const root = XML_ROOTS.get(tag.local);
    if (root === undefined) throw new UnreadableInputError(file, `unknown root element <${tag.name}>; expected ${[...XML_ROOTS.keys()].join(', ')}`);
    if (expected !== undefined && root.kind !== expected) throw new UnreadableInputError(file, `<${tag.name}> holds ${KIND_NOUNS[root.kind]}s, where ${KIND_NOUNS[expected]}s are expected`);
    sawRoot = true;
    if (root.list) return { type: 'root', name: tag.name, kind: root.kind, shape: root.shape };
    recordStart = parser.position;
    return openRecord(root.shape, (raw) => emit({ kind: root.kind, raw }));
  };

  // Handlers throw to stop the parser at once: saxes lets their errors through `write`.
  parser.on('opentag', (tag) => {
    markupEnd = parser.position;
    if (stack.length === MAX_DEPTH) throw refuse(`elements nested deeper than ${MAX_DEPTH} levels`);
    const parent = stack.at(-1);
    stack.push(parent === undefined ? openRoot(tag as SaxesTagNS) : childFrame(parent, tag as SaxesTagNS));
  });
  // A CDATA section is text written without escapes.
  const onText = (text: string): void => {
    markupEnd = parser.position;
    const frame = stack.at(-1);
    if (frame?.type !== 'scalar') return;
    frame.text += text;
    if (frame.text.length > MAX_VALUE_LENGTH) throw refuse(`${frame.field.name} is longer than ${characters(MAX_VALUE_LENGTH)}`);
  };
  parser.on('text', onText);
  parser.on('cdata', onText);
  parser.on('closetag', () => {
    markupEnd = parser.position;
    const frame = stack.pop();
    if (frame?.type === 'record') frame.onClose(frame.values);
    else if (frame?.type === 'scalar') frame.onClose(frame.nil ? null : xmlScalar(frame.field, frame.text));
  });
  parser.on('error', (error) => {
    throw new UnreadableInputError(file, `not well-formed XML (${error.message})`);
  });

  const decoder = new TextDecoder(encoding, { fatal: true, ignoreBOM: false });
  const write = (chunk?: Buffer): void => {
    let text: string;
    try {
      text = chunk === undefined ? decoder.decode() : decoder.decode(chunk, { stream: true });
    } catch {
      throw refuse(`not valid ${encoding.toUpperCase()} (on this line or after it)`);
    }
    parser.write(text);
    if (parser.position - markupEnd > MAX_VALUE_LENGTH) throw refuse(`a text, comment or tag longer than ${characters(MAX_VALUE_LENGTH)}`);
    if (recordStart !== undefined && parser.position - recordStart > MAX_RECORD_LENGTH) throw refuse(`longer than ${characters(MAX_RECORD_LENGTH)}`);
  };

  for await (const chunk of input) {
    write(chunk);
    yield* records.splice(0);
  }
  write();
  parser.close();
  if (!sawRoot) throw new UnreadableInputError(file, 'the file holds no XML element');
  yield* records.splice(0);
}
