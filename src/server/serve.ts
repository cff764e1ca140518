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
import { ConnectionDrain } from './connection-drain.js';
import { LiveCatalogue } from './live-catalogue.js';

export type ServeSettings = Settings<
  | 'database'
  | 'port'
  | 'host'
  | 'xmlNamespace'
  | 'cacheControl'
  | 'pollInterval'
  | 'logLevel'
  | 'requestTimeout'
  | 'headersTimeout'
  | 'idleTimeout'
  | 'keepAliveTimeout'
  | 'maxRequestsPerSocket'
  | 'maxHeaderSize'
  | 'shutdownTimeout'
>;

export interface ServeOptions {
  readonly settings: ServeSettings;
  /** Files imported into the default customer when its catalogue has never been loaded. */
  readonly seedFiles: readonly string[];
}

export interface RunningServer {
  readonly app: FastifyInstance;
  readonly url: string;
  /**
   * Stops accepting connections, lets the requests in flight finish for up to the shutdown
   * timeout, cuts the connections still open after it, then closes the database.
   */
  close(): Promise<void>;
}

async function seedIfEmpty(db: SqlClient, app: FastifyInstance, files: readonly string[]): Promise<void> {
  if (files.length === 0 || (await loadCatalogueVersion(db, DEFAULT_CUSTOMER)) > 0) return;
  const result = await importFiles(db, { customer: DEFAULT_CUSTOMER, files, replace: true });
  app.log.info({ films: result.films, packages: result.packages, files }, 'seeded the empty catalogue');
}

export async function startServer({ settings, seedFiles }: ServeOptions): Promise<RunningServer> {
  const db = await openDatabase(settings.database);
  const live = new LiveCatalogue(db, new XmlWriter(settings.xmlNamespace), (customer, snapshot) =>
    app.log.info({ customer, version: snapshot.version, films: snapshot.films.length, packages: snapshot.packages.length }, 'catalogue loaded'),
  );
  const app = buildApp({
    catalogues: live,
    cacheControl: settings.cacheControl,
    xmlNamespace: settings.xmlNamespace,
    logger: { level: settings.logLevel },
    limits: settings,
  });
  const connections = new ConnectionDrain(app.server);
  try {
    await seedIfEmpty(db, app, seedFiles);
    await live.refresh();
    live.watch(settings.pollInterval, (error) => app.log.error({ err: error }, 'catalogue reload failed'));
    await app.listen({ port: settings.port, host: settings.host });
  } catch (error) {
    live.stop();
    await app.close();
    await db.close();
    throw error;
  }
  const address = app.server.address();
  const url = typeof address === 'object' && address !== null ? `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}` : String(address);
  return {
    app,
    url,
    async close() {
      live.stop();
      await connections.drain(
        () => app.close(),
        settings.shutdownTimeout,
        (open) => app.log.warn({ connections: open, shutdownTimeoutMs: settings.shutdownTimeout }, 'shutdown timeout: cutting the connections still open'),
      );
      await db.close();
    },
  };
}

/**
 * Closes the server on the first SIGTERM or SIGINT, letting requests in flight finish; a second
 * signal ends the process at once, as the signal does by default.
 */
export function closeOnSignals(server: RunningServer): void {
  const shutdown = (signal: NodeJS.Signals): void => {
    server.app.log.info({ signal }, 'shutting down');
    // Closing the server also closes its idle connections. Letting this turn of the event loop
    // end first lets the server read the requests that arrived with the signal, so that they
    // count as in flight rather than their connections being closed as idle.
    setImmediate(() =>
      server.close().then(
        () => {
          server.app.log.info('stopped');
          process.exit(0);
        },
        (error: unknown) => {
          server.app.log.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      ),
    );
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}
