/**
 * One metrics observation and, unless switched off, one log line per answered request. The line
 * names the route pattern, never the URL, which may carry anything a client sent.
 */
import type { FastifyInstance } from 'fastify';
import { UNMATCHED_ROUTE, type Metrics } from './metrics.js';

export interface RequestObservation {
  /** A log line per request; off where the proxy in front logs requests. */
  readonly logLines: boolean;
}

export function observeRequests(app: FastifyInstance, metrics: Metrics, { logLines }: RequestObservation): void {
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? UNMATCHED_ROUTE;
    const status = reply.statusCode;
    // To the microsecond: the clock's full 17 digits say nothing more, and writing them costs V8 a
    // slow double-to-text conversion, a few percent of a small answer.
    const durationMs = Math.round(reply.elapsedTime * 1000) / 1000;
    metrics.observe(route, status, durationMs / 1000);
    if (logLines) request.log.info({ method: request.method, route, status, durationMs, customer: request.customer || undefined }, 'request completed');
    done();
  });
}
