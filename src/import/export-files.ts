/** Writes a customer's catalogue as the files that `import --replace` reads back to the same catalogue. */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LISTED_KINDS } from '../catalogue/catalogue-change.js';
import { ByteSlabs } from '../formats/byte-slabs.js';
import { PublishedCatalogue, type CollectionName } from '../formats/published-catalogue.js';
import type { FormatName, Representations } from '../formats/representation.js';
import { WEB_SESSION_SHAPE } from '../formats/wire-shape.js';
import { writeRecords, WrittenList } from '../formats/written-records.js';
import type { XmlWriter } from '../formats/xml-writer.js';
import { storedCatalogue } from '../store/catalogue-reader.js';
import type { SqlClient } from '../store/sql-client.js';

export interface ExportOptions {
  readonly customer: string;
  readonly directory: string;
  readonly format: FormatName;
}

export interface ExportResult {
  readonly files: readonly string[];
  readonly films: number;
  readonly packages: number;
  readonly screens: number;
  readonly attributes: number;
  readonly sites: number;
  readonly sessions: number;
}

/** The file of each exported list, by the collection it holds. */
const LIST_FILES: readonly (readonly [file: string, collection: CollectionName])[] = [
  ['films', 'film'],
  ['filmpackages', 'package'],
  ['screens', 'screen'],
  ['attributes', 'attribute'],
];

export async function exportFiles(db: SqlClient, xml: XmlWriter, options: ExportOptions): Promise<ExportResult> {
  const stored = storedCatalogue(db, options.customer);
  const snapshot = await stored.snapshot(new Set(LISTED_KINDS));
  // The exported bytes are the API's own answers, so a round trip is checked byte for byte.
  // Sessions are written with their Url, as web sessions are, so that none is lost.
  const published = await PublishedCatalogue.publish(snapshot, xml, stored, LIST_FILES.map(([, collection]) => collection));
  const answers: [string, Representations][] = [];
  for (const [file, collection] of LIST_FILES) answers.push([file, (await published.part(collection)).list]);
  if (published.site !== null) answers.push(['site', published.site]);
  answers.push(['sessions', WrittenList.of(WEB_SESSION_SHAPE, await writeRecords(WEB_SESSION_SHAPE, snapshot.sessions, new ByteSlabs()), xml)]);
  await mkdir(options.directory, { recursive: true });
  const files: string[] = [];
  for (const [name, answer] of answers) {
    const file = join(options.directory, `${name}.${options.format}`);
    await writeFile(file, answer[options.format].body);
    files.push(file);
  }
  return {
    files,
    films: snapshot.films.length,
    packages: snapshot.packages.length,
    screens: snapshot.screens.length,
    attributes: snapshot.attributes.length,
    sites: snapshot.site === null ? 0 : 1,
    sessions: snapshot.sessions.length,
  };
}
