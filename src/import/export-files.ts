/** Writes a customer's catalogue as the files that `import --replace` reads back to the same catalogue. */
import { lstat, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LISTED_KINDS } from '../catalogue/catalogue-change.js';
import { ByteSlabs } from '../formats/byte-slabs.js';
import { makeDirectory } from '../store/make-directory.js';
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

/** Every file an export may write, in either format. */
const EXPORT_FILES: readonly string[] = [...LIST_FILES.map(([file]) => file), 'site', 'sessions'].flatMap((name) => [`${name}.json`, `${name}.xml`]);

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
  makeDirectory(options.directory);
  const files: string[] = [];
  for (const [name, answer] of answers) {
    const file = join(options.directory, `${name}.${options.format}`);
    await writeFile(file, answer[options.format].body);
    files.push(file);
  }
  // A file an earlier export left, of a list now empty (the site) or in the other format, would be
  // read back by `import --replace DIR`, bringing back what was deleted or failing on two of a kind.
  const written = new Set(answers.map(([name]) => `${name}.${options.format}`));
  for (const name of EXPORT_FILES) {
    const path = join(options.directory, name);
    // A folder of such a name is no input to an import (expandInputs passes over it), and is left.
    if (!written.has(name) && (await lstat(path).catch(() => undefined))?.isDirectory() === false) await rm(path);
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
