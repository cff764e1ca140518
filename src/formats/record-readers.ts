/**
 * Streaming readers of the API's own JSON and XML shapes: what `/v4/film` and `/v1/filmpackage`
 * answer, as a list or a single record. Records come out one at a time, so a file of any size
 * is read in bounded memory.
 */
import { SaxesParser, type SaxesTagNS } from 'saxes';
import { getManyValues, none } from 'stream-chain/defs.js';
import { jsonParser, type Token } from 'stream-json/core/parser.js';
import { UnreadableInputError } from '../catalogue/problems.js';
import { NumberText, isRawRecord, type RawRecord, type RawValue } from '../catalogue/raw-record.js';
import { RECORD_KINDS, jsonRecordKind, type RecordKind } from './record-kinds.js';
import { arrayRootName, type WireField, type WireShape } from './wire-shape.js';

export interface ReadRecord {
  readonly kind: RecordKind;
  /** Usually a record; anything else is reported by the importer as a problem. */
  readonly raw: RawValue;
}

/** Reads JSON or XML, told apart by the first character of the input. */
export async function* readRecords(input: AsyncIterable<Buffer | string>, file: string): AsyncGenerator<ReadRecord> {
  const chunks = input[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>;
  let first = await chunks.next();
  while (!first.done && String(first.value).trim() === '') first = await chunks.next();
  if (first.done) throw new UnreadableInputError(file, 'the file is empty');
  const head = first.value;
  async function* replay(): AsyncGenerator<Buffer | string> {
    yield head;
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) yield next.value;
  }
  const isXml = String(head).replace(/^\uFEFF/, '').trimStart().startsWith('<');
  yield* isXml ? readXmlRecords(replay(), file) : readJsonRecords(replay(), file);
}

type JsonContainer = { readonly items: RawValue[] } | { readonly members: Record<string, RawValue>; key: string };

export async function* readJsonRecords(input: AsyncIterable<Buffer | string>, file: string): AsyncGenerator<ReadRecord> {
  // The tokenizer is called once per chunk and answers all of its tokens at once: no stream
  // machinery and no promise per token.
  const tokenize = jsonParser({ streamValues: false });
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
  const stack: JsonContainer[] = [];
  let rootIsArray = false;
  let sawRoot = false;
  const records: ReadRecord[] = [];

  // Completes a value: a record when it is the root object or an element of the root array.
  const complete = (value: RawValue): void => {
    const parent = stack.at(-1);
    if (parent === undefined) {
      if (!rootIsArray) {
        if (!isRawRecord(value)) throw new UnreadableInputError(file, 'expected a JSON object or an array of objects');
        records.push({ kind: jsonRecordKind(value), raw: value });
      }
    } else if (stack.length === 1 && rootIsArray) {
      records.push({ kind: jsonRecordKind(value), raw: value });
    } else if ('items' in parent) {
      parent.items.push(value);
    } else {
      parent.members[parent.key] = value;
    }
  };

  const consume = (tokens: readonly Token[]): void => {
    for (const token of tokens) {
      switch (token.name) {
        case 'startObject':
          sawRoot = true;
          stack.push({ members: {}, key: '' });
          break;
        case 'startArray':
          if (!sawRoot) rootIsArray = true;
          sawRoot = true;
          stack.push({ items: [] });
          break;
        case 'endObject':
        case 'endArray': {
          const container = stack.pop() as JsonContainer;
          if (stack.length > 0 || !rootIsArray) complete('items' in container ? container.items : container.members);
          break;
        }
        case 'keyValue':
          (stack.at(-1) as { key: string }).key = token.value;
          break;
        case 'stringValue':
        case 'nullValue':
        case 'trueValue':
        case 'falseValue':
          sawRoot = true;
          complete(token.value);
          break;
        case 'numberValue':
          sawRoot = true;
          complete(new NumberText(token.value));
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

  for await (const chunk of input) {
    let text: string;
    try {
      text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    } catch {
      throw new UnreadableInputError(file, 'not valid UTF-8');
    }
    consume(tokensOf(text));
    yield* records.splice(0);
  }
  consume(tokensOf(none));
  if (!sawRoot) throw new UnreadableInputError(file, 'the file holds no JSON value');
  yield* records.splice(0);
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
  | { readonly type: 'root'; readonly shape: WireShape<unknown> }
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

export async function* readXmlRecords(input: AsyncIterable<Buffer | string>, file: string): AsyncGenerator<ReadRecord> {
  const parser = new SaxesParser({ xmlns: true, position: true });
  const stack: XmlFrame[] = [];
  const records: ReadRecord[] = [];
  let kind: RecordKind | undefined;
  let failure: Error | undefined;

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
        if (name !== parent.shape.name) return { type: 'ignored' };
        return openRecord(parent.shape, (raw) => records.push({ kind: kind as RecordKind, raw }));
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

  parser.on('opentag', (tag) => {
    const parent = stack.at(-1);
    if (parent === undefined) {
      const root = XML_ROOTS.get(tag.local);
      if (root === undefined) {
        failure = new UnreadableInputError(file, `unknown root element <${tag.name}>; expected ${[...XML_ROOTS.keys()].join(', ')}`);
        return;
      }
      kind = root.kind;
      stack.push(root.list ? { type: 'root', shape: root.shape } : openRecord(root.shape, (raw) => records.push({ kind: root.kind, raw })));
      return;
    }
    stack.push(childFrame(parent, tag as SaxesTagNS));
  });
  parser.on('text', (text) => {
    const frame = stack.at(-1);
    if (frame?.type === 'scalar') frame.text += text;
  });
  parser.on('closetag', () => {
    const frame = stack.pop();
    if (frame?.type === 'record') frame.onClose(frame.values);
    else if (frame?.type === 'scalar') frame.onClose(frame.nil ? null : xmlScalar(frame.field, frame.text));
  });
  parser.on('error', (error) => {
    failure ??= new UnreadableInputError(file, `not well-formed XML (${error.message})`);
  });

  const decoder = new TextDecoder('utf-8', { fatal: false });
  for await (const chunk of input) {
    parser.write(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
    if (failure) throw failure;
    yield* records.splice(0);
  }
  parser.close();
  if (failure) throw failure;
  if (kind === undefined) throw new UnreadableInputError(file, 'the file holds no XML element');
  yield* records.splice(0);
}
