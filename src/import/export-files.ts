/** Writes a customer's catalogue as the files that `import --replace` reads back to the same catalogue. */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CatalogueSnapshot } from '../catalogue/snapshot.js';
import { PublishedCatalogue } from '../formats/published-catalogue.js';
import type { FormatName } from '../formats/representation.js';
import type { XmlWriter } from '../formats/xml-writer.js';
import { loadCatalogue, loadCatalogueVersion } from '../store/catalogue-repository.js';
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
}

export async function exportFiles(db: SqlClient, xml: XmlWriter, options: ExportOptions): Promise<ExportResult> {
  const snapshot = await db.transaction(
    async (tx) => new CatalogueSnapshot(await loadCatalogue(tx, options.customer), await loadCatalogueVersion(tx, options.customer)),
    { readOnly: true },
  );
  // The exported bytes are the API's own answers, so a round trip is checked byte for byte.
  const published = await PublishedCatalogue.publish(snapshot, xml);
  await mkdir(options.directory, { recursive: true });
  const files = [
    join(options.directory, `films.${options.format}`),
    join(options.directory, `filmpackages.${options.format}`),
  ] as const;
  await writeFile(files[0], published.filmList()[options.format].body);
  await writeFile(files[1], published.packageList()[options.format].body);
  return { files, films: snapshot.films.length, packages: snapshot.packages.length };
}
