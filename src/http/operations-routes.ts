/**
 * What operators and orchestrators ask a server: is the process alive (`/healthz`), may it take
 * traffic (`/readyz`), and how is it doing (`/metrics`, Prometheus text). Never behind a token.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { PACKAGE_VERSION } from '../package-version.js';
import { problemDocumentation } from '../reference/api-schemas.js';
import { HttpError } from './http-error.js';
import { PROMETHEUS_CONTENT_TYPE, PrometheusText, labels } from './prometheus-text.js';
import type { RequestMetrics } from './request-metrics.js';

/** What readiness checks need to know about the catalogues a server answers from. */
export interface CatalogueHealth {
  /** Every stored catalogue has been loaded at least once. */
  readonly loaded: boolean;
  /** The last look at the database succeeded. */
  readonly databaseAnswering: boolean;
}

/** One customer's catalogue as a server answers from it. */
export interface ServedCatalogue {
  readonly customer: string;
  readonly version: number;
  readonly films: number;
  readonly packages: number;
  /** When the import that made this version committed. */
  readonly changedAt: Date | undefined;
  /** How often this server has loaded the customer's catalogue: once at start, then once per import. */
  readonly loads: number;
}

export interface CatalogueStatistics {
  readonly catalogues: readonly ServedCatalogue[];
  /** Looks at the database for new catalogues that failed. */
  readonly failedRefreshes: number;
}

/** What the operations endpoints read from the catalogues a server answers from. */
export interface CatalogueMonitor {
  health(): CatalogueHealth;
  statistics(): CatalogueStatistics;
}

export interface OperationsRouteOptions {
  readonly catalogues: CatalogueMonitor;
  readonly metrics: RequestMetrics;
}

const JSON_TYPE = 'application/json; charset=utf-8';
const STATUS_SCHEMA = Type.Object({ status: Type.String() }, { additionalProperties: false });
const STARTED_SECONDS = performance.timeOrigin / 1000;

function writeCatalogueMetrics(out: PrometheusText, statistics: CatalogueStatistics, health: CatalogueHealth, now: number): void {
  const perCustomer = (name: string, help: string, value: (catalogue: ServedCatalogue) => number | undefined, type: 'gauge' | 'counter' = 'gauge'): void => {
    out.family(name, type, help);
    for (const catalogue of statistics.catalogues) {
      const sample = value(catalogue);
      if (sample !== undefined) out.sample(name, labels({ customer: catalogue.customer }), sample);
    }
  };
  perCustomer('marquee_catalogue_version', 'Version of the catalogue being served; every committed import adds one.', (c) => c.version);
  perCustomer('marquee_catalogue_age_seconds', 'Seconds since the import of the catalogue being served committed.', (c) =>
    c.changedAt === undefined ? undefined : Math.max(0, (now - c.changedAt.getTime()) / 1000),
  );
  perCustomer('marquee_catalogue_films', 'Films in the catalogue being served.', (c) => c.films);
  perCustomer('marquee_catalogue_packages', 'Film packages in the catalogue being served.', (c) => c.packages);
  perCustomer('marquee_catalogue_reloads_total', 'Catalogues this server has loaded: one at start, then one per import it picked up.', (c) => c.loads, 'counter');
  out.family('marquee_catalogue_refresh_failures_total', 'counter', 'Looks at the database for a new catalogue that failed.');
  out.sample('marquee_catalogue_refresh_failures_total', '', statistics.failedRefreshes);
  out.family('marquee_ready', 'gauge', '1 when the catalogue is loaded and the database answers, else 0.');
  out.sample('marquee_ready', '', health.loaded && health.databaseAnswering ? 1 : 0);
}

export function registerOperationsRoutes(app: FastifyInstance, options: OperationsRouteOptions): void {
  const { catalogues, metrics } = options;
  const tags = ['Operations'];
  let shuttingDown = false;
  app.addHook('preClose', (done) => {
    shuttingDown = true;
    done();
  });

  app.get(
    '/healthz',
    {
      schema: {
        summary: 'Liveness',
        description: 'Answers 200 while the process runs and its event loop turns.',
        operationId: 'health',
        tags,
        response: { 200: { description: 'The process is alive.', content: { 'application/json': { schema: STATUS_SCHEMA } } } },
      },
    },
    async (_request, reply) => reply.header('cache-control', 'no-store').type(JSON_TYPE).send('{"status":"alive"}'),
  );

  app.get(
    '/readyz',
    {
      schema: {
        summary: 'Readiness',
        description: 'Answers 200 once every catalogue is loaded and while the database answers; 503 before, while the database does not answer, and during shutdown.',
        operationId: 'ready',
        tags,
        response: {
          200: { description: 'The server can answer catalogue requests.', content: { 'application/json': { schema: STATUS_SCHEMA } } },
          503: problemDocumentation('The server cannot answer catalogue requests now; the detail says why.'),
        },
      },
    },
    async (_request, reply) => {
      const health = catalogues.health();
      const unavailable = (detail: string): HttpError => new HttpError(503, 'Service Unavailable', detail);
      if (shuttingDown) throw unavailable('The server is shutting down.');
      if (!health.loaded) throw unavailable('The catalogue is not loaded yet.');
      if (!health.databaseAnswering) throw unavailable('The database does not answer.');
      return reply.header('cache-control', 'no-store').type(JSON_TYPE).send('{"status":"ready"}');
    },
  );

  app.get(
    '/metrics',
    {
      schema: {
        summary: 'Metrics',
        description: 'Prometheus text format: requests by route and status with latency histograms, the catalogues being served, reloads.',
        operationId: 'metrics',
        tags,
        response: { 200: { description: 'The metrics, in the Prometheus text exposition format 0.0.4.', content: { 'text/plain': { schema: Type.String() } } } },
      },
    },
    async (_request, reply) => {
      const out = new PrometheusText();
      out.family('marquee_build_info', 'gauge', 'Always 1; the version label names the release.').sample('marquee_build_info', labels({ version: PACKAGE_VERSION }), 1);
      out.family('process_start_time_seconds', 'gauge', 'When the process started, in seconds since the Unix epoch.').sample('process_start_time_seconds', '', STARTED_SECONDS);
      metrics.write(out);
      writeCatalogueMetrics(out, catalogues.statistics(), catalogues.health(), Date.now());
      return reply.header('cache-control', 'no-store').type(PROMETHEUS_CONTENT_TYPE).send(out.toString());
    },
  );
}
