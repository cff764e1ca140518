/**
 * Every answer of one catalogue snapshot, prebuilt in JSON and XML: the film list, each film,
 * the package list and each package. Lists are joined from the bytes of the records already
 * written; building yields to the event loop now and then, so requests answered from the
 * previous snapshot never wait long while a new one is built.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { CatalogueSnapshot } from '../catalogue/snapshot.js';
import { ByteSlabs } from './byte-slabs.js';
import { jsonArray, jsonRecord } from './json-writer.js';
import { Representation, type Representations } from './representation.js';
import { FILM_SHAPE, PACKAGE_SHAPE, type WireShape } from './wire-shape.js';
import { xmlChildren, type XmlWriter } from './xml-writer.js';

interface PublishedCollection<Key> {
  readonly list: Representations;
  readonly items: ReadonlyMap<Key, Representations>;
}

/** Records written between two yields to the event loop: a few milliseconds of work. */
const RECORDS_PER_TURN = 100;

async function publish<T, Key>(shape: WireShape<T>, records: readonly T[], key: (record: T) => Key, xml: XmlWriter): Promise<PublishedCollection<Key>> {
  const items = new Map<Key, Representations>();
  const slabs = new ByteSlabs();
  const jsonItems: Buffer[] = [];
  const xmlItems: Buffer[] = [];
  for (const [index, record] of records.entries()) {
    if (index > 0 && index % RECORDS_PER_TURN === 0) await nextTurn();
    const json = slabs.write(jsonRecord(shape, record));
    const { document, children } = xml.record(shape, xmlChildren(shape, record), slabs);
    jsonItems.push(json);
    xmlItems.push(children);
    items.set(key(record), { json: new Representation(json), xml: new Representation(document) });
  }
  await nextTurn();
  const list = { json: new Representation(jsonArray(jsonItems)) };
  await nextTurn();
  return { list: { ...list, xml: new Representation(xml.arrayDocument(shape, xmlItems)) }, items };
}

/**
 * Keeps the answers only, not the records they were written from: those would double what a
 * catalogue holds in memory, and every garbage collection would go through them.
 */
export class PublishedCatalogue {
  private constructor(
    /** The stored catalogue version the answers were written from. */
    readonly version: number,
    private readonly films: PublishedCollection<string>,
    private readonly packages: PublishedCollection<number>,
  ) {}

  static async publish(snapshot: CatalogueSnapshot, xml: XmlWriter): Promise<PublishedCatalogue> {
    const films = await publish(FILM_SHAPE, snapshot.films, (film) => film.id, xml);
    const packages = await publish(PACKAGE_SHAPE, snapshot.packages, (filmPackage) => filmPackage.id, xml);
    return new PublishedCatalogue(snapshot.version, films, packages);
  }

  get filmCount(): number {
    return this.films.items.size;
  }

  get packageCount(): number {
    return this.packages.items.size;
  }

  /**
   * Compresses the lists, one at a time in the thread pool. Run after the catalogue is in
   * service: until a list's compressed form is ready it is sent uncompressed, and compressing
   * one body at a time leaves the event loop its share of a busy core.
   */
  async precompressLists(): Promise<void> {
    for (const list of [this.films.list, this.packages.list]) {
      await list.json.precompress();
      await list.xml.precompress();
    }
  }

  filmList(): Representations {
    return this.films.list;
  }

  film(id: string): Representations | undefined {
    return this.films.items.get(id);
  }

  packageList(): Representations {
    return this.packages.list;
  }

  package(id: number): Representations | undefined {
    return this.packages.items.get(id);
  }
}
