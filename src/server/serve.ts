/**
 * The server process: opens the database, looks at the stored catalogues, listens, publishes each
 * customer's catalogue on its first request, follows new imports, and shuts down gracefully on
 * SIGTERM or SIGINT.
 */
import { DEFAULT_CUSTOMER } from '../catalogue/model.js';
import { CacheTags } from '../changes/cache-tags.js';
import { StoredChangeFeed } from '../changes/change-feed.js';
import { WebhookCourier, type CourierSettings } from '../changes/webhook-courier.js';
import { ConfigError, type Settings } from '../config.js';
import { XmlWriter } from '../formats/xml-writer.js';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../http/app.js';
import { Images } from '../images/images.js';
import { importFiles } from '../import/import-files.js';
import { daysToToday } from '../import/seed-dates.js';
import { createLogger } from '../observability/logger.js';
import { AddressRule } from '../outbound/address-rule.js';
import { loadCatalogueVersion } from '../store/catalogue-repository.js';
import { NoDatabaseError, openDatabase } from '../store/database.js';
import { DatabaseBusyError, type SqlClient } from '../store/sql-client.js';
import { loadSharedSecret } from '../store/shared-secrets.js';
import { GracefulClose } from './graceful-close.js';
import { LiveCatalogue } from './live-catalogue.js';
import { LiveTokens } from './live-tokens.js';

export type ServeSettings = Settings<
  | 'database'
  | 'readDatabase'
  | 'port'
  | 'host'
  | 'xmlNamespace'
  | 'cacheControl'
  | 'pollInterval'
  | 'cacheMemory'
  | 'rateLimit'
  | 'rateBurst'
  | 'publicRateLimit'
  | 'publicRateBurst'
  | 'programmeCacheControl'
  | 'trustProxy'
  | 'corsOrigins'
  | 'metricsCustomers'
  | 'requestLog'
  | 'logLevel'
  | 'requestTimeout'
  | 'headersTimeout'
  | 'idleTimeout'
  | 'keepAliveTimeout'
  | 'maxRequestsPerSocket'
  | 'maxHeaderSize'
  | 'shutdownTimeout'
  | 'webhookTarget'
  | 'changeRetention'
  | 'imageSources'
  | 'imageTimeout'
  | 'imageMaxBytes'
  | 'imageCache'
>;

export interface ServeOptions {
  readonly settings: ServeSettings;
  /** Files imported into the default customer when its catalogue has never been loaded. */
  readonly seedFiles: readonly string[];
  /** Move the seed's sessions by whole days so that the first falls on the day of seeding. */
  readonly seedToday?: boolean;
  /** Shorter waits between a webhook's tries, and a shorter deadline for each, than the contract's: for tests only, which must not wait hours. */
  readonly webhookTimings?: Pick<CourierSettings, 'schedule' | 'requestTimeoutMs'>;
  /** Pictures that came with the seed, as `DIR/HOST/PATH`, read from there rather than from their hosts. */
  readonly seedPictures?: string | undefined;
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

/** How often a server looks for pictures other servers read, whose sizes its programme then gives. */
const IMAGE_POLL_INTERVAL_MS = 2000;

async function seedIfEmpty(db: SqlClient, app: FastifyInstance, files: readonly string[], today: boolean): Promise<void> {
  if (files.length === 0 || (await loadCatalogueVersion(db, DEFAULT_CUSTOMER)) > 0) return;
  const days = today ? await daysToToday(files, Date.now()) : 0;
  const result = await importFiles(db, { customer: DEFAULT_CUSTOMER, files, replace: true, moveSessionsByDays: days });
  app.log.info({ films: result.films, packages: result.packages, sessions: result.sessions, sessionsMovedByDays: days, files }, 'seeded the empty catalogue');
}

export async function startServer({ settings, seedFiles, seedToday = false, seedPictures, webhookTimings }: ServeOptions): Promise<RunningServer> {
  const db = await openDatabase(settings.database);
  const tags = new CacheTags(await loadSharedSecret(db, 'cache-tags').catch(async (error: unknown) => {
    await db.close();
    throw error;
  }));
  let reads = db;
  if (settings.readDatabase !== undefined) {
    reads = await openDatabase(settings.readDatabase, { readOnly: true }).catch(async (error: unknown) => {
      await db.close();
      // It is the primary or a replica of it: one that is not there is a mistyped name, never made.
      if (error instanceof NoDatabaseError) throw new ConfigError(`${error.message} (--read-database, MARQUEE_READ_DATABASE): it reads the primary or a replica of it`);
      throw error;
    });
  }
  const closeDatabases = async (): Promise<void> => {
    if (reads !== db) await reads.close();
    await db.close();
  };
  // Pictures are kept on the primary, which every server writes to.
  const images = await Images.open(
    db,
    { sources: settings.imageSources, timeoutMs: settings.imageTimeout, maxBytes: settings.imageMaxBytes.bytes, cacheBytes: settings.imageCache.bytes, seedPictures },
    (url, error) => app.log.warn({ err: error, source: url.href }, 'a picture could not be read from its source'),
  ).catch(async (error: unknown) => {
    await closeDatabases();
    throw error;
  });
  const live = new LiveCatalogue(reads, new XmlWriter(settings.xmlNamespace), {
    budgetBytes: settings.cacheMemory.bytes,
    events: {
      onBuild: (customer, published, durationMs, from) =>
        app.log.info(
          {
            customer,
            version: published.version,
            ...published.counts,
            from,
            durationMs: Math.round(durationMs),
          },
          'catalogue published',
        ),
      onEvict: (customer, bytes) => app.log.debug({ customer, bytes, cacheMemory: settings.cacheMemory.text }, 'catalogue let go to stay within --cache-memory'),
    },
  });
  // Tokens live on the primary, where their last use is written. Logged at start and whenever
  // tokens are issued or revoked, so the log says when a service opens or closes.
  const tokens = new LiveTokens(db, (set) => {
    if (set.open) app.log.warn(`no access token exists: the '${DEFAULT_CUSTOMER}' customer is served to anyone without a token until 'marquee token create' issues one`);
    else app.log.info({ tokens: set.size }, 'access tokens loaded: every API request needs one');
  });
  const courier = new WebhookCourier(
    db,
    { rule: new AddressRule({ prefixes: settings.webhookTarget, onlyPrefixes: false, flag: '--webhook-target' }), tags, retentionMs: settings.changeRetention, ...webhookTimings },
    {
      onDelivered: (webhook, version, status) => app.log.debug({ webhook, version, status }, 'webhook delivered'),
      onFailed: (webhook, version, failure, nextInMs) => app.log.warn({ webhook, version, failure, nextInSeconds: Math.round(nextInMs / 1000) }, 'webhook delivery failed'),
      onDisabled: (webhook, reason) => app.log.warn({ webhook, reason }, 'webhook endpoint disabled'),
      onDatabaseError: (error) => app.log.warn({ err: error }, 'webhook deliveries: the database did not answer'),
    },
  );
  const app = buildApp({
    catalogues: live,
    tokens,
    cacheControl: settings.cacheControl,
    rateLimit: settings.rateLimit === null ? undefined : { perSecond: settings.rateLimit, burst: settings.rateBurst },
    publicRateLimit: settings.publicRateLimit === null ? undefined : { perSecond: settings.publicRateLimit, burst: settings.publicRateBurst },
    programmeCacheControl: settings.programmeCacheControl,
    trustedProxies: settings.trustProxy,
    corsOrigins: settings.corsOrigins,
    xmlNamespace: settings.xmlNamespace,
    metricsCustomers: settings.metricsCustomers,
    requestLog: settings.requestLog,
    logger: createLogger({ level: settings.logLevel }),
    limits: settings,
    cacheTags: tags,
    changes: new StoredChangeFeed(db, tags),
    webhooks: courier,
    images,
  });
  let delivering: Promise<void> | undefined;
  const stopDelivering = async (): Promise<void> => {
    courier.stop();
    await delivering;
  };
  const graceful = new GracefulClose(app.server);
  // Before fastify closes the server: by then every connection has ended.
  app.addHook('preClose', () =>
    graceful.close(settings.shutdownTimeout, (open) =>
      app.log.warn({ connections: open, shutdownTimeoutMs: settings.shutdownTimeout }, 'shutdown timeout: cutting the connections still open'),
    ),
  );
  let url: string;
  try {
    await seedIfEmpty(db, app, seedFiles, seedToday);
    await live.refresh();
    await tokens.refresh();
    live.watch({
      intervalMs: settings.pollInterval,
      notifications: db,
      onHealthChange: (health, error) => {
        if (health.databaseAnswering) app.log.info('the database answers again');
        else app.log.error({ err: error }, 'the database does not answer; serving the catalogues last loaded');
      },
    });
    images.watch(IMAGE_POLL_INTERVAL_MS, (error) => app.log.warn({ err: error }, 'looking for pictures read by other servers failed'));
    tokens.watch(settings.pollInterval, (error, action) => {
      // Expected while an import holds the database: what was not written is tried again.
      if (error instanceof DatabaseBusyError) app.log.debug({ err: error }, `${action} postponed`);
      else app.log.warn({ err: error }, `${action} failed`);
    });
    url = await app.listen({ port: settings.port, host: settings.host });
    delivering = courier.run();
    // A new install (the demo, say) tells where its programme and its page are, to open them at once.
    if (tokens.open) {
      const calendar = `${url.replace(/^http/, 'webcal')}/programme.ics`;
      const page = `${url}/whats-on`;
      app.log.info({ programme: `${url}/programme`, page, calendar }, `the programme is at ${url}/programme, its page at ${page}; subscribe to its calendar at ${calendar}`);
    }
  } catch (error) {
    await stopDelivering();
    await live.stop();
    await images.stop();
    await tokens.stop();
    await app.close();
    await closeDatabases();
    throw error;
  }
  return {
    app,
    url,
    async close() {
      // The listener closes, and the shutdown timeout starts, at once: stopping the background
      // work (the webhooks' courier, the catalogue's watch of the database) takes its own time.
      await Promise.all([app.close(), stopDelivering(), live.stop()]);
      await images.stop();
      try {
        // After the last request, so that its use is written too.
        await tokens.stop();
      } finally {
        await closeDatabases();
      }
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
          // The log's last lines are written as the process exits.
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
