/**
 * What operators and orchestrators ask a server: is the process alive (`/healthz`), may it take
 * traffic (`/readyz`), and how is it doing (`/metrics`, Prometheus text). Never behind a token.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../../observability/metrics.js';
import { problemDocumentation } from '../../reference/api-schemas.js';
import { HttpError } from '../http-error.js';
import type { CatalogueMonitor } from '../served-catalogues.js';

export interface OperationsRouteOptions {
  readonly catalogues: CatalogueMonitor;
  readonly metrics: Metrics;
  /** True once the server has begun to shut down. */
  readonly closing: () => boolean;
}

const JSON_TYPE = 'application/json; charset=utf-8';
const STATUS_SCHEMA = Type.Object({ status: Type.String() }, { additionalProperties: false });

export function registerOperationsRoutes(app: FastifyInstance, options: OperationsRouteOptions): void {
  const { catalogues, metrics, closing } = options;
  const tags = ['Operations'];

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
        description: 'Answers 200 once the database has been read and while it answers (catalogues are published on their first request); 503 before, while the database does not answer, and during shutdown.',
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
      if (closing()) throw unavailable('The server is shutting down.');
      if (!health.started) throw unavailable('The database has not been read yet.');
      if (!health.databaseAnswering) throw unavailable('The database does not answer.');
      return reply.header('cache-control', 'no-store').type(JSON_TYPE).send('{"status":"ready"}');
    },
  );

  app.get(
    '/metrics',
    {
      schema: {
        summary: 'Metrics',
        description: 'Prometheus text format: the process (CPU, memory, heap, event-loop lag, garbage collection), requests by route and status with latency histograms, the catalogues being served, reloads. Per-customer series only with `--metrics-customers`.',
        operationId: 'metrics',
        tags,
        response: { 200: { description: 'The metrics, in the Prometheus text exposition format 0.0.4.', content: { 'text/plain': { schema: Type.String() } } } },
      },
    },
    async (_request, reply) => reply.header('cache-control', 'no-store').type(metrics.contentType).send(await metrics.text()),
  );
}
