/**
 * Writes records in the API's XML wire form, as the .NET DataContractSerializer does: elements in
 * ordinal alphabetical order, `i:nil` for null, the data-contract namespace on the root.
 */
import { formatMillionths } from '../catalogue/split-percent.js';
import type { ListFraming } from './list-bytes.js';
import { arrayRootName, type Scalar, type ScalarKind, type WireShape } from './wire-shape.js';
import { escapeXmlAttribute, escapeXmlText } from './xml-text.js';

export const DEFAULT_XML_NAMESPACE = 'http://schemas.datacontract.org/2004/07/Vista.Online.BackOffice.Api.Models.V1';
const XML_SCHEMA_INSTANCE = 'http://www.w3.org/2001/XMLSchema-instance';

function xmlScalar(kind: ScalarKind, value: Exclude<Scalar, null>): string {
  if (kind === 'percent') return formatMillionths(value as number);
  return typeof value === 'string' ? escapeXmlText(value) : String(value);
}

function xmlElement(name: string, content: string, attributes = ''): string {
  return content === '' ? `<${name}${attributes}/>` : `<${name}${attributes}>${content}</${name}>`;
}

/** The child elements of one record, without the record's own element. */
export function xmlChildren<T>(shape: WireShape<T>, record: T): string {
  let xml = '';
  for (const field of shape.xmlFields) {
    if (field.kind === 'list') {
      const items: readonly unknown[] = field.read(record);
      const itemShape: WireShape<unknown> = field.item;
      if (field.xml === 'repeated') {
        for (const item of items) xml += xmlElement(field.name, xmlChildren(itemShape, item));
      } else {
        xml += xmlElement(field.name, items.map((item) => xmlElement(itemShape.name, xmlChildren(itemShape, item))).join(''));
      }
      continue;
    }
    if (field.kind === 'textList') {
      const namespace = field.itemNamespace;
      const element = namespace === undefined ? field.itemElement : `${namespace.prefix}:${field.itemElement}`;
      const items = field.read(record).map((item) => xmlElement(element, escapeXmlText(item))).join('');
      // .NET declares the items' namespace on the list's element, also when the list is empty.
      xml += xmlElement(field.name, items, namespace === undefined ? '' : ` xmlns:${namespace.prefix}="${namespace.uri}"`);
      continue;
    }
    const value = field.read(record);
    xml += value === null ? `<${field.name} i:nil="true"/>` : xmlElement(field.name, xmlScalar(field.kind, value));
  }
  return xml;
}

/** The root tags of a shape's one-record documents. */
interface DocumentRoot {
  readonly start: Buffer;
  readonly end: Buffer;
}

/** Writes XML documents whose root carries the configured data-contract namespace. */
export class XmlWriter {
  private readonly namespaces: string;
  /** Made once per shape rather than for every record. */
  private readonly documentRoots = new Map<string, DocumentRoot>();

  constructor(namespace: string = DEFAULT_XML_NAMESPACE) {
    this.namespaces = ` xmlns:i="${XML_SCHEMA_INSTANCE}" xmlns="${escapeXmlAttribute(namespace)}"`;
  }

  /** One record as a document, from its children as written by `xmlChildren`. */
  document(shape: Named, children: Uint8Array): Buffer {
    const root = this.documentRoot(shape);
    return Buffer.concat([root.start, children, root.end]);
  }

  /** How a list document is joined from each record's children (see `joinList`). */
  arrayFraming(shape: Named): ListFraming {
    return {
      start: Buffer.from(this.arrayStart(shape)),
      itemStart: Buffer.from(`<${shape.name}>`),
      itemEnd: Buffer.from(`</${shape.name}>`),
      end: Buffer.from(arrayEnd(shape)),
    };
  }

  /** The opening tag of a list document, for writers that stream the records. */
  arrayStart(shape: Named): string {
    return `<${arrayRootName(shape)}${this.namespaces}>`;
  }

  private documentRoot(shape: Named): DocumentRoot {
    let root = this.documentRoots.get(shape.name);
    if (root === undefined) {
      root = { start: Buffer.from(`<${shape.name}${this.namespaces}>`), end: Buffer.from(`</${shape.name}>`) };
      this.documentRoots.set(shape.name, root);
    }
    return root;
  }
}

type Named = Pick<WireShape<unknown>, 'name'>;

export function arrayEnd(shape: Named): string {
  return `</${arrayRootName(shape)}>`;
}

/** One record of a list, from its children as written by `xmlChildren`. */
export function xmlListItem(shape: Named, children: string): string {
  return xmlElement(shape.name, children);
}
