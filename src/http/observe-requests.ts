/**
 * One log line and one metrics observation per request. Each route's counters are found when the
 * route is registered, so a request costs a few property reads, the counters' update and the log
 * line; the line names the route pattern, never the URL, which may carry anything a client sent.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, onResponseHookHandler } from 'fastify';
import type { AccessLog } from './access-log.js';
import { UNMATCHED_ROUTE, type RequestMetrics } from './request-metrics.js';

function observer(metrics: RequestMetrics, accessLog: AccessLog | undefined, pattern: string): (request: FastifyRequest, reply: FastifyReply) => void {
  const route = metrics.route(pattern);
  const log = accessLog?.route(pattern);
  return (request, reply) => {
    const milliseconds = reply.elapsedTime;
    route.observe(reply.statusCode, milliseconds / 1000);
    log?.write(request.id, request.method, reply.statusCode, milliseconds);
  };
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
