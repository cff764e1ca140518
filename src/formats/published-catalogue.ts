/**
 * Every answer of one catalogue snapshot, prebuilt in JSON and XML: the film list, each film,
 * the package list and each package. Lists are assembled from the records already written.
 */
import type { CatalogueSnapshot } from '../catalogue/snapshot.js';
import { jsonArray, jsonRecord } from './json-writer.js';
import { representation, type Representations } from './representation.js';
import { FILM_SHAPE, PACKAGE_SHAPE, type WireShape } from './wire-shape.js';
import { xmlChildren, type XmlWriter } from './xml-writer.js';

interface PublishedCollection<Key> {
  readonly list: Representations;
  readonly items: ReadonlyMap<Key, Representations>;
}

function publish<T, Key>(shape: WireShape<T>, records: readonly T[], key: (record: T) => Key, xml: XmlWriter): PublishedCollection<Key> {
  const items = new Map<Key, Representations>();
  const jsonItems: string[] = [];
  const xmlItems: string[] = [];
  for (const record of records) {
    const json = jsonRecord(shape, record);
    const children = xmlChildren(shape, record);
    jsonItems.push(json);
    xmlItems.push(children);
    items.set(key(record), { json: representation(json), xml: representation(xml.record(shape, children)) });
  }
  return {
    list: { json: representation(jsonArray(jsonItems)), xml: representation(xml.arrayDocument(shape, xmlItems)) },
    items,
  };
}

export class PublishedCatalogue {
  private readonly films: PublishedCollection<string>;
  private readonly packages: PublishedCollection<number>;

  constructor(
    readonly snapshot: CatalogueSnapshot,
    xml: XmlWriter,
  ) {
    this.films = publish(FILM_SHAPE, snapshot.films, (film) => film.id, xml);
    this.packages = publish(PACKAGE_SHAPE, snapshot.packages, (filmPackage) => filmPackage.id, xml);
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
