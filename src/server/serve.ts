/**
 * The server process: opens the database, loads the catalogues, listens, follows new imports,
 * and shuts down gracefully on SIGTERM or SIGINT.
 */
import type { FastifyInstance } from 'fastify';
import { DEFAULT_CUSTOMER } from '../catalogue/model.js';
import type { Settings } from '../config.js';
import { XmlWriter } from '../formats/xml-writer.js';
import { buildApp } from '../http/app.js';
import { importFiles } from '../import/import-files.js';
import { loadCatalogueVersion } from '../store/catalogue-repository.js';
import { openDatabase } from '../store/database.js';
import type { SqlClient } from '../store/sql-client.js';
import { LiveCatalogue } from './live-catalogue.js';

export type ServeSettings = Settings<'database' | 'readDatabase' | 'port' | 'host' | 'xmlNamespace' | 'cacheControl' | 'pollInterval' | 'logLevel'>;

export interface ServeOptions {
  readonly settings: ServeSettings;
  /** Files imported into the default customer when its catalogue has never been loaded. */
  readonly seedFiles: readonly string[];
}

export interface RunningServer {
  readonly app: FastifyInstance;
  readonly url: string;
  close(): Promise<void>;
}

async function seedIfEmpty(db: SqlClient, app: FastifyInstance, files: readonly string[]): Promise<void> {
  if (files.length === 0 || (await loadCatalogueVersion(db, DEFAULT_CUSTOMER)) > 0) return;
  const result = await importFiles(db, { customer: DEFAULT_CUSTOMER, files, replace: true });
  app.log.info({ films: result.films, packages: result.packages, files }, 'seeded the empty catalogue');
}

export async function startServer({ settings, seedFiles }: ServeOptions): Promise<RunningServer> {
  const db = await openDatabase(settings.database);
  let reads = db;
  if (settings.readDatabase !== undefined) {
    reads = await openDatabase(settings.readDatabase, { readOnly: true }).catch(async (error: unknown) => {
      await db.close();
      throw error;
    });
  }
  const closeDatabases = async (): Promise<void> => {
    if (reads !== db) await reads.close();
    await db.close();
  };
  const live = new LiveCatalogue(reads, new XmlWriter(settings.xmlNamespace), (customer, snapshot) =>
    app.log.info({ customer, version: snapshot.version, films: snapshot.films.length, packages: snapshot.packages.length }, 'catalogue loaded'),
  );
  const app = buildApp({ catalogues: live, cacheControl: settings.cacheControl, logger: { level: settings.logLevel } });
  try {
    await seedIfEmpty(db, app, seedFiles);
    await live.refresh();
    live.watch({
      intervalMs: settings.pollInterval,
      notifications: db,
      onHealthChange: (health, error) => {
        if (health.databaseAnswering) app.log.info('the database answers again');
        else app.log.error({ err: error }, 'the database does not answer; serving the catalogues last loaded');
      },
    });
    await app.listen({ port: settings.port, host: settings.host });
  } catch (error) {
    await live.stop();
    await app.close();
    await closeDatabases();
    throw error;
  }
  const address = app.server.address();
  const url = typeof address === 'object' && address !== null ? `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}` : String(address);
  return {
    app,
    url,
    async close() {
      await live.stop();
      await app.close();
      await closeDatabases();
    },
  };
}

/** Closes the server on the first SIGTERM or SIGINT, letting requests in flight finish. */
export function closeOnSignals(server: RunningServer): void {
  const shutdown = (signal: NodeJS.Signals): void => {
    server.app.log.info({ signal }, 'shutting down');
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        server.app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}
