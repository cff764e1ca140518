/**
 * The server's metrics through prom-client: the process's own (CPU, memory, heap, event-loop
 * lag, garbage collection), requests by route pattern and status with their durations, and the
 * catalogues being served. A customer's key names a cinema and says who uses the service, and
 * `/metrics` needs no token, so per-customer series are written only where the operator asks
 * for them (`--metrics-customers`); otherwise the catalogue figures are totals.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { PACKAGE_VERSION } from '../package-version.js';
import type { WebhookMonitor } from '../changes/webhook-courier.js';
import type { CatalogueMonitor, CatalogueStatistics, HeldCatalogue } from '../http/served-catalogues.js';

/**
 * Upper bounds of the latency buckets, in seconds. Answers are prebuilt, so most take well under
 * a millisecond; the upper buckets catch a server that is starved or swapping.
 */
export const LATENCY_BUCKETS: readonly number[] = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** The route label of requests that matched no route (unknown paths). */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * How often the event loop's delay is sampled, in milliseconds: every sample wakes the process,
 * and prom-client's 10 were a hundred wakings a second, half of what an idle server spent. A loop
 * held up longer than this is still seen, and by how long.
 */
const EVENT_LOOP_SAMPLE_MS = 100;

export interface MetricsOptions {
  /** Series per customer, labelled with its key; totals only when false. */
  readonly customerLabels: boolean;
  /** The server's webhook deliveries; none where absent. */
  readonly webhooks?: WebhookMonitor | undefined;
}

export class Metrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: 'marquee_http_requests_total',
    help: 'HTTP requests answered, by route pattern and status.',
    labelNames: ['route', 'status'] as const,
    registers: [this.registry],
  });
  private readonly durations = new Histogram({
    name: 'marquee_http_request_duration_seconds',
    help: 'Time from receiving a request to sending the last byte of its answer, by route pattern and status.',
    labelNames: ['route', 'status'] as const,
    buckets: [...LATENCY_BUCKETS],
    registers: [this.registry],
  });
  private readonly cutConnections = new Counter({
    name: 'marquee_http_connections_cut_total',
    help: 'Connections answered and closed before their request was read: 408 headers or request too slow, 431 headers too large, 400 malformed.',
    labelNames: ['status'] as const,
    registers: [this.registry],
  });

  constructor(catalogues: CatalogueMonitor, options: MetricsOptions) {
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
    registerCatalogueMetrics(this.registry, catalogues, options);
    if (options.webhooks !== undefined) registerWebhookMetrics(this.registry, options.webhooks);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** One answered request; GET and HEAD of a route share its series. */
  observe(route: string, status: number, seconds: number): void {
    const labels = { route, status: String(status) };
    this.requests.inc(labels);
    this.durations.observe(labels, seconds);
  }

  connectionCut(status: number): void {
    this.cutConnections.inc({ status: String(status) });
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }
}

/** Gauges read from the catalogues at each scrape, never kept up to date on the request path. */
function registerCatalogueMetrics(registry: Registry, catalogues: CatalogueMonitor, { customerLabels }: MetricsOptions): void {
  const registers = [registry];
  new Gauge({ name: 'marquee_build_info', help: 'Always 1; the version label names the release.', labelNames: ['version'] as const, registers }).set({ version: PACKAGE_VERSION }, 1);
  new Gauge({
    name: 'marquee_ready',
    help: '1 once the database has been read and while it answers, else 0.',
    registers,
    collect() {
      const health = catalogues.health();
      this.set(health.started && health.databaseAnswering ? 1 : 0);
    },
  });

  // Figures of the catalogues' statistics, read at each scrape; a counter is set to the count kept there.
  type Figure = (statistics: CatalogueStatistics) => number;
  const gauge = (name: string, help: string, value: Figure): void => {
    new Gauge({
      name,
      help,
      registers,
      collect() {
        this.set(value(catalogues.statistics()));
      },
    });
  };
  const counter = (name: string, help: string, value: Figure): void => {
    new Counter({
      name,
      help,
      registers,
      collect() {
        this.reset();
        this.inc(value(catalogues.statistics()));
      },
    });
  };
  counter('marquee_catalogue_refresh_failures_total', 'Looks at the database for new catalogues that failed.', (s) => s.failedRefreshes);
  gauge('marquee_catalogues', 'Customers whose published catalogue this server holds.', (s) => s.held.length);
  gauge('marquee_catalogue_memory_budget_bytes', 'What the held catalogues may hold in all (--cache-memory).', (s) => s.budgetBytes);
  counter('marquee_catalogue_builds_total', "Catalogues published: on a customer's first request, after it was let go, or when it changed while held.", (s) => s.builds);
  counter('marquee_catalogue_build_seconds_total', 'Time spent reading catalogues from the database and publishing their collections (each on its first request); divided by the builds, the mean.', (s) => s.buildSeconds);
  counter('marquee_catalogue_evictions_total', 'Catalogues let go to stay within the memory budget.', (s) => s.evictions);

  /** A figure of each held catalogue: one series per customer with `--metrics-customers`, else their sum. */
  const perCustomer = (name: string, help: string, value: (catalogue: HeldCatalogue) => number): void => {
    new Gauge({
      name,
      help,
      labelNames: customerLabels ? ['customer'] : [],
      registers,
      collect() {
        this.reset();
        const { held } = catalogues.statistics();
        if (customerLabels) for (const catalogue of held) this.set({ customer: catalogue.customer }, value(catalogue));
        else this.set(held.reduce((sum, catalogue) => sum + value(catalogue), 0));
      },
    });
  };
  perCustomer('marquee_catalogue_bytes', 'Memory the held catalogues hold.', (c) => c.bytes);
  perCustomer('marquee_catalogue_films', 'Films in the held catalogues.', (c) => c.films);
  perCustomer('marquee_catalogue_packages', 'Film packages in the held catalogues.', (c) => c.packages);
  if (!customerLabels) return;
  // A version or an age is a figure of one catalogue: summed over customers it would mean nothing.
  perCustomer('marquee_catalogue_version', 'Version of the catalogue held; every committed import adds one.', (c) => c.version);
  new Gauge({
    name: 'marquee_catalogue_age_seconds',
    help: 'Seconds since the import of the catalogue held committed.',
    labelNames: ['customer'] as const,
    registers,
    collect() {
      this.reset();
      const now = Date.now();
      for (const { customer, changedAt } of catalogues.statistics().held) {
        if (changedAt !== undefined) this.set({ customer }, Math.max(0, (now - changedAt.getTime()) / 1000));
      }
    },
  });
}

function registerWebhookMetrics(registry: Registry, webhooks: WebhookMonitor): void {
  new Counter({
    name: 'marquee_webhook_tries_total',
    help: 'Tries of webhook deliveries this server recorded, by how they ended: delivered, failed (to be tried again) or disabled (the endpoint given up).',
    labelNames: ['outcome'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [outcome, count] of Object.entries(webhooks.statistics().tries)) this.inc({ outcome }, count);
    },
  });
  new Gauge({
    name: 'marquee_webhook_deliveries_in_flight',
    help: 'Webhook deliveries under way now.',
    registers: [registry],
    collect() {
      this.set(webhooks.statistics().inFlight);
    },
  });
}
