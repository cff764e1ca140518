/**
 * Request counts and latency histograms by route and status. Each route's counters are found
 * once, when the route is registered; a request then costs an array read by status, a short
 * scan of the bucket bounds and a few additions. A series' label string is built the first time
 * its status is seen, never per request.
 */
import { labels, type PrometheusText } from './prometheus-text.js';

/**
 * Upper bounds of the latency buckets, in seconds. Answers are prebuilt, so most take well under
 * a millisecond; the upper buckets catch a server that is starved or swapping.
 */
export const LATENCY_BUCKETS: readonly number[] = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** The route label of requests that matched no route (404s, 405s). */
export const UNMATCHED_ROUTE = 'unmatched';

class Series {
  count = 0;
  sum = 0;
  /** Observations per bucket, not cumulated; those above every bound count only in `count`. */
  readonly buckets = new Float64Array(LATENCY_BUCKETS.length);

  constructor(readonly labelSet: string) {}

  observe(seconds: number): void {
    this.count += 1;
    this.sum += seconds;
    for (let index = 0; index < LATENCY_BUCKETS.length; index++) {
      if (seconds <= (LATENCY_BUCKETS[index] as number)) {
        this.buckets[index] = (this.buckets[index] as number) + 1;
        return;
      }
    }
  }
}

/** The counters of one route, by status. */
export class RouteMetrics {
  /** Indexed by the status itself (Node allows 100 to 999): an array read, where a map lookup hashed the key. */
  private readonly byStatus: (Series | undefined)[] = [];

  constructor(readonly route: string) {}

  observe(status: number, seconds: number): void {
    let series = this.byStatus[status];
    if (series === undefined) {
      series = new Series(labels({ route: this.route, status }));
      this.byStatus[status] = series;
    }
    series.observe(seconds);
  }

  /** In order of status. */
  series(): Series[] {
    return this.byStatus.filter((series) => series !== undefined);
  }
}

export class RequestMetrics {
  private readonly routes = new Map<string, RouteMetrics>();
  private readonly cutConnections = new Map<number, number>();

  /** The counters of a route pattern such as `/v4/film/:id`; GET and HEAD share them. */
  route(pattern: string): RouteMetrics {
    let route = this.routes.get(pattern);
    if (route === undefined) {
      route = new RouteMetrics(pattern);
      this.routes.set(pattern, route);
    }
    return route;
  }

  /** A connection answered and closed before a request reached a route: 408, 431 or 400. */
  connectionCut(status: number): void {
    this.cutConnections.set(status, (this.cutConnections.get(status) ?? 0) + 1);
  }

  write(out: PrometheusText): void {
    const all = [...this.routes.values()].flatMap((route) => route.series());
    out.family('marquee_http_requests_total', 'counter', 'HTTP requests answered, by route pattern and status.');
    for (const series of all) out.sample('marquee_http_requests_total', series.labelSet, series.count);
    out.family('marquee_http_request_duration_seconds', 'histogram', 'Time from receiving a request to sending the last byte of its answer, by route pattern and status.');
    for (const series of all) out.histogram('marquee_http_request_duration_seconds', series.labelSet, LATENCY_BUCKETS, series.buckets, series.sum, series.count);
    out.family('marquee_http_connections_cut_total', 'counter', 'Connections answered and closed before their request was read: 408 headers or request too slow, 431 headers too large, 400 malformed.');
    for (const [status, count] of this.cutConnections) out.sample('marquee_http_connections_cut_total', labels({ status }), count);
  }
}
