/**
 * Builds the HTTP application without listening, so that tests inject requests and the server
 * module alone owns the process. Every request goes through fastify: its routes, one access
 * hook on the API routes, one error handler and one not-found handler.
 */
import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import cors from '@fastify/cors';
import Fastify, { LogController, type FastifyError, type FastifyHttpOptions, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { CacheTags } from '../changes/cache-tags.js';
import type { ChangeFeed } from '../changes/change-feed.js';
import type { WebhookMonitor } from '../changes/webhook-courier.js';
import { RateLimiter, type RatePolicy } from '../access/rate-limiter.js';
import { DEFAULT_XML_NAMESPACE } from '../formats/xml-writer.js';
import type { Images } from '../images/images.js';
import { NO_PICTURES } from '../images/picture-directory.js';
import { pathOf } from '../observability/logger.js';
import { Metrics } from '../observability/metrics.js';
import { observeRequests } from '../observability/request-log.js';
import { accessHook, admit, type AccessPolicy, type TokenDirectory } from './access.js';
import { corsOptions } from './cors.js';
import { HttpError, notFound, quote, type Problem } from './http-error.js';
import { problemBody, PROBLEM_CONTENT_TYPES } from './problem.js';
import { sendProblem } from './respond.js';
import { registerCatalogueRoutes } from './routes/catalogue-routes.js';
import { registerChangeRoutes } from './routes/change-routes.js';
import { methodNotAllowed, OTHER_METHODS } from './routes/from-catalogue.js';
import { registerImageRoutes } from './routes/image-routes.js';
import { registerOperationsRoutes } from './routes/operations-routes.js';
import { registerShowtimesRoutes } from './routes/showtimes-routes.js';
import { registerWhatsOnRoutes } from './routes/whats-on-routes.js';
import { registerDocumentRoutes } from '../reference/document-routes.js';
import { registerOpenApi } from '../reference/openapi-document.js';
import type { ServedCatalogues } from './served-catalogues.js';

/** How long and how much a client may take; each is a setting of `marquee serve`. */
export interface ConnectionLimits {
  readonly requestTimeout: number;
  readonly headersTimeout: number;
  /** The longest an answer may wait with nothing of it sent, such as to a client that stops reading. */
  readonly idleTimeout: number;
  readonly keepAliveTimeout: number;
  readonly maxRequestsPerSocket: number;
  readonly maxHeaderSize: number;
}

export interface AppOptions {
  readonly catalogues: ServedCatalogues;
  readonly tokens: TokenDirectory;
  readonly cacheControl: string;
  /** Cache-Control of the programme's answers to publishable keys; `public, max-age=60` when absent. */
  readonly programmeCacheControl?: string;
  /** Per token (per client address while the service is open); no limit when absent. */
  readonly rateLimit?: RatePolicy | undefined;
  /** Per client address, for publishable keys; no limit when absent. */
  readonly publicRateLimit?: RatePolicy | undefined;
  /** Addresses or CIDR ranges of the proxies whose X-Forwarded-For names the client; none when absent. */
  readonly trustedProxies?: readonly string[];
  /** Origins whose web pages may call the API; CORS is off when there is none. */
  readonly corsOrigins?: readonly string[];
  /** The default namespace of XML answers; the data-contract namespace when absent. */
  readonly xmlNamespace?: string;
  /** Per-customer series in `/metrics`; totals only when absent. */
  readonly metricsCustomers?: boolean;
  /** A log line for each request answered; on when absent. */
  readonly requestLog?: boolean;
  /** The log (createLogger); no log at all when absent. */
  readonly logger?: Logger;
  readonly limits?: ConnectionLimits;
  /** The time now, in milliseconds since the epoch; the system clock when absent. */
  readonly now?: () => number;
  /** The cache tags of catalogue and programme answers; none when absent. */
  readonly cacheTags?: CacheTags;
  /** The change feed, `/changes`; not served when absent. */
  readonly changes?: ChangeFeed;
  /** The webhook deliveries of the server, for /metrics; none when absent. */
  readonly webhooks?: WebhookMonitor;
  /** The pictures the catalogues name, served resized (CONTRACT §13); the programme names none when absent. */
  readonly images?: Images;
}

export const DEFAULT_PROGRAMME_CACHE_CONTROL = 'public, max-age=60';

/** A request the server could not even read, answered on the connection before closing it. */
function unreadableRequest(code: string | undefined): HttpError {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return new HttpError(408, 'Request Timeout', 'The request did not arrive in time.');
  if (code === 'HPE_HEADER_OVERFLOW') return new HttpError(431, 'Request Header Fields Too Large', 'The request line and headers are too large.');
  return new HttpError(400, 'Bad Request', 'The request is not valid HTTP/1.1.');
}

/** The options of the server fastify makes: the client limits, where they are set. */
function serverOptions(limits: ConnectionLimits | undefined): FastifyHttpOptions<Server> {
  // A request with no Host gets a problem from buildApp's first hook, rather than Node's bare 400.
  const http = { requireHostHeader: false };
  if (limits === undefined) return { http };
  return {
    connectionTimeout: limits.idleTimeout,
    keepAliveTimeout: limits.keepAliveTimeout,
    requestTimeout: limits.requestTimeout,
    maxRequestsPerSocket: limits.maxRequestsPerSocket,
    http: {
      ...http,
      headersTimeout: limits.headersTimeout,
      maxHeaderSize: limits.maxHeaderSize,
      // Node looks for overdue headers and requests every 30 s by default; looking more often
      // cuts a slow client close to its timeout.
      connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(limits.headersTimeout / 4))),
    },
  };
}

/** Where a target that names nothing goes to be answered so: no route has this path. */
const NOWHERE = '/.nowhere';

/**
 * The target fastify routes: one in absolute form (`GET http://host/v4/film`), which HTTP/1.1
 * servers must accept (RFC 9112 §3.2.2), by its path and query. A path whose escapes cannot be
 * decoded (`/v4/film/%FF`) names nothing (CONTRACT §1: an id is percent-decoded, then matched):
 * it is routed to no route, with its query, so that it is answered 404 through every hook,
 * logged and counted like any request, rather than refused by the router before them.
 */
function routableTarget(request: IncomingMessage): string {
  const url = originForm(request.url ?? '/');
  if (!url.includes('%')) return url;
  const queryAt = url.indexOf('?');
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  try {
    decodeURIComponent(path);
    return url;
  } catch {
    return `${NOWHERE}${url.slice(path.length)}`;
  }
}

function originForm(url: string): string {
  if (url.startsWith('/')) return url;
  const parsed = URL.parse(url);
  return parsed === null || parsed.host === '' ? url : `${parsed.pathname}${parsed.search}`;
}

const NO_HOST = new HttpError(400, 'Bad Request', 'An HTTP/1.1 request names its host in a Host header.');

/** Where no address needs a key or token: the pictures' (an `<img>` sends none). */
const OPEN_PREFIX = '/images/';

/**
 * An answer to a request no route takes: 405 on a path that answers GET (the reference's, the
 * probes', the page's files, all open to anyone), else 404 once the access step let the request in.
 */
function nothingAt(app: FastifyInstance, policy: AccessPolicy, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (request.method !== 'GET' && request.method !== 'HEAD' && app.findRoute({ method: 'GET', url: pathOf(request.url) }) !== null) return sendProblem(request, reply, methodNotAllowed(request.method));
  // As the client wrote it, which routableTarget may have sent nowhere.
  const path = pathOf(originForm(request.originalUrl));
  const refusal = path.toLowerCase().startsWith(OPEN_PREFIX) ? undefined : admit(policy, request, reply, undefined);
  return sendProblem(request, reply, refusal ?? notFound(`Nothing is found at ${quote(path)}.`));
}

/** A problem written on a connection fastify does not answer, which is then closed. */
function writeProblemAndClose(socket: Duplex, problem: Problem): void {
  if (socket.writable) {
    const body = problemBody('json', problem);
    socket.write(
      `HTTP/1.1 ${problem.status} ${problem.title}\r\nContent-Type: ${PROBLEM_CONTENT_TYPES.json}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

export function buildApp(options: AppOptions): FastifyInstance {
  const xmlNamespace = options.xmlNamespace ?? DEFAULT_XML_NAMESPACE;
  const now = options.now ?? Date.now;
  const metrics = new Metrics(options.catalogues, { customerLabels: options.metricsCustomers ?? false, webhooks: options.webhooks });
  const policy: AccessPolicy = {
    tokens: options.tokens,
    limiter: options.rateLimit && new RateLimiter(options.rateLimit, now),
    publicLimiter: options.publicRateLimit && new RateLimiter(options.publicRateLimit, now),
  };
  const app = Fastify({
    ...serverOptions(options.limits),
    // Behind proxies, the client is the address they name; a per-address rate limit counts it.
    trustProxy: options.trustedProxies !== undefined && options.trustedProxies.length > 0 ? options.trustedProxies.join(',') : false,
    ...(options.logger && { loggerInstance: options.logger }),
    // One line per request is written by observeRequests, in place of fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    // During a graceful shutdown a request that still reaches an open connection is answered,
    // with `Connection: close`, rather than refused.
    return503OnClosing: false,
    rewriteUrl: routableTarget,
    // Paths match in any case, as on the original API; an id of any length (--max-header-size
    // bounds it) names a record or answers 404, through the access step and every hook. With
    // routableTarget, no target is refused by the router before them.
    routerOptions: { caseSensitive: false, ignoreTrailingSlash: true, maxParamLength: Number.MAX_SAFE_INTEGER },
    clientErrorHandler: (error: NodeJS.ErrnoException, socket) => {
      // A reset means the client is gone; there is no one to answer.
      if (error.code === 'ECONNRESET' || socket.destroyed) return;
      const problem = unreadableRequest(error.code);
      metrics.connectionCut(problem.status);
      // The error's raw bytes may hold a token: only its code is logged.
      app.log.debug({ code: error.code, status: problem.status }, 'connection cut');
      writeProblemAndClose(socket, problem);
    },
    // Given a pino instance, fastify's type carries pino's Logger; the rest of the code needs only fastify's logger interface.
  }) as unknown as FastifyInstance;

  for (const method of OTHER_METHODS) if (!app.supportedMethods.includes(method)) app.addHttpMethod(method);
  app.server.on('connect', (_request: IncomingMessage, socket: Duplex) => writeProblemAndClose(socket, methodNotAllowed('CONNECT')));
  // An expectation other than 100-continue is passed over, as RFC 9110 §10.1.1 allows, where Node
  // would answer 417 with no body: no route reads a body, so none is waited for.
  app.server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => app.server.emit('request', request, response));

  // No route reads a request body, so none is parsed or refused for its media type.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null));
  app.decorate('cacheTags', options.cacheTags);
  app.decorateRequest('customer', '');
  app.decorateRequest('publishable', false);
  // Set by the access step, as the customer is; a list cannot be every request's shared default.
  app.decorateRequest('keyOrigins');
  // The first hook to run when the server closes, before the server process's own drain.
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });

  app.addHook('onRequest', (request, reply, done) => {
    // No answer is to be read as anything but its declared type.
    reply.header('x-content-type-options', 'nosniff');
    // RFC 9112 §3.2; HTTP/1.0 had no Host, and its clients (a probe's) are answered without.
    if (!request.headers.host && request.raw.httpVersion !== '1.0') {
      sendProblem(request, reply, NO_HOST);
      return;
    }
    done();
  });
  if (options.corsOrigins !== undefined && options.corsOrigins.length > 0) void app.register(cors, corsOptions(options.corsOrigins));
  observeRequests(app, metrics, { logLines: options.requestLog ?? true });
  registerOpenApi(app, xmlNamespace);
  // Registered as a plugin so that they load after the document generator, which learns them.
  void app.register(async (routes) => {
    const { catalogues, cacheControl } = options;
    registerCatalogueRoutes(routes, { catalogues, cacheControl, xmlNamespace, access: accessHook(policy, 'catalogue'), now });
    const programme = {
      catalogues,
      cacheControl,
      publicCacheControl: options.programmeCacheControl ?? DEFAULT_PROGRAMME_CACHE_CONTROL,
      access: accessHook(policy, 'programme'),
      now,
      pictures: options.images ?? NO_PICTURES,
    };
    registerShowtimesRoutes(routes, programme);
    registerWhatsOnRoutes(routes, programme);
    if (options.changes !== undefined) registerChangeRoutes(routes, { changes: options.changes, access: accessHook(policy, 'catalogue') });
    if (options.images !== undefined) registerImageRoutes(routes, options.images);
    registerOperationsRoutes(routes, { catalogues, metrics, closing: () => closing });
    registerDocumentRoutes(routes);
  });

  app.setNotFoundHandler((request, reply) => nothingAt(app, policy, request, reply));
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof HttpError) return sendProblem(request, reply, error);
    const status = typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (status >= 500) request.log.error({ err: error }, 'request failed');
    const detail = status >= 500 ? 'The server could not answer this request.' : error.message;
    return sendProblem(request, reply, new HttpError(status, STATUS_CODES[status] ?? 'Error', detail));
  });
  return app;
}
