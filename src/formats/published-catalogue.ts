/**
 * Every answer of one catalogue snapshot, prebuilt in JSON and XML: the film list, each film,
 * the package list and each package. Lists are assembled from the records already written and
 * compressed ahead; building yields to the event loop now and then, so requests answered from
 * the previous snapshot never wait long while a new one is built.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { CatalogueSnapshot } from '../catalogue/snapshot.js';
import { jsonArray, jsonRecord } from './json-writer.js';
import { Representation, type Representations } from './representation.js';
import { FILM_SHAPE, PACKAGE_SHAPE, type WireShape } from './wire-shape.js';
import { xmlChildren, type XmlWriter } from './xml-writer.js';

interface PublishedCollection<Key> {
  readonly list: Representations;
  readonly items: ReadonlyMap<Key, Representations>;
}

/** Records written between two yields to the event loop: a few milliseconds of work. */
const RECORDS_PER_TURN = 200;

async function publish<T, Key>(shape: WireShape<T>, records: readonly T[], key: (record: T) => Key, xml: XmlWriter): Promise<PublishedCollection<Key>> {
  const items = new Map<Key, Representations>();
  const jsonItems: string[] = [];
  const xmlItems: string[] = [];
  for (const [index, record] of records.entries()) {
    if (index > 0 && index % RECORDS_PER_TURN === 0) await nextTurn();
    const json = jsonRecord(shape, record);
    const children = xmlChildren(shape, record);
    jsonItems.push(json);
    xmlItems.push(children);
    items.set(key(record), { json: Representation.of(json), xml: Representation.of(xml.record(shape, children)) });
  }
  await nextTurn();
  const list = { json: Representation.of(jsonArray(jsonItems)), xml: Representation.of(xml.arrayDocument(shape, xmlItems)) };
  await Promise.all([list.json.precompress(), list.xml.precompress()]);
  return { list, items };
}

export class PublishedCatalogue {
  private constructor(
    readonly snapshot: CatalogueSnapshot,
    private readonly films: PublishedCollection<string>,
    private readonly packages: PublishedCollection<number>,
  ) {}

  static async publish(snapshot: CatalogueSnapshot, xml: XmlWriter): Promise<PublishedCatalogue> {
    const films = await publish(FILM_SHAPE, snapshot.films, (film) => film.id, xml);
    const packages = await publish(PACKAGE_SHAPE, snapshot.packages, (filmPackage) => filmPackage.id, xml);
    return new PublishedCatalogue(snapshot, films, packages);
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
