/**
 * One log line and one metrics observation per request. Each route's counters and the fixed part
 * of its log line are found when the route is registered, so a request costs the counters' update
 * and the log line; the line names the route pattern, never the URL, which may carry anything a
 * client sent.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, onResponseHookHandler } from 'fastify';
import type { AccessLog, RouteLog } from './access-log.js';
import { UNMATCHED_ROUTE, type RequestMetrics, type RouteMetrics } from './request-metrics.js';

/** Counts and logs the answers of one route: the catalogue handler's routes and fastify's alike. */
export class RouteObserver {
  private readonly metrics: RouteMetrics;
  private readonly log: RouteLog | undefined;

  constructor(metrics: RequestMetrics, accessLog: AccessLog | undefined, pattern: string) {
    this.metrics = metrics.route(pattern);
    this.log = accessLog?.route(pattern);
  }

  observe(reqId: string, method: string, status: number, milliseconds: number): void {
    this.metrics.observe(status, milliseconds / 1000);
    this.log?.write(reqId, method, status, milliseconds);
  }
}

function observer(metrics: RequestMetrics, accessLog: AccessLog | undefined, pattern: string): (request: FastifyRequest, reply: FastifyReply) => void {
  const route = new RouteObserver(metrics, accessLog, pattern);
  return (request, reply) => route.observe(request.id, request.method, reply.statusCode, reply.elapsedTime);
}

export function observeRequests(app: FastifyInstance, metrics: RequestMetrics, accessLog: AccessLog | undefined): void {
  app.addHook('onRoute', (route) => {
    const observe = observer(metrics, accessLog, route.url);
    const hook: onResponseHookHandler = (request, reply, done) => {
      observe(request, reply);
      done();
    };
    const hooks = route.onResponse === undefined ? [] : Array.isArray(route.onResponse) ? route.onResponse : [route.onResponse];
    route.onResponse = [...hooks, hook];
  });
  // Requests that matched no route go through the not-found handler, which has no route hooks.
  const unmatched = observer(metrics, accessLog, UNMATCHED_ROUTE);
  app.addHook('onResponse', (request, reply, done) => {
    if (request.is404) unmatched(request, reply);
    done();
  });
}
