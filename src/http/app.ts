/**
 * Builds the HTTP application without listening, so tests can inject requests and the server
 * module alone owns the process.
 */
import { STATUS_CODES, type Server } from 'node:http';
import Fastify, { LogController, type FastifyError, type FastifyHttpOptions, type FastifyInstance } from 'fastify';
import { DEFAULT_XML_NAMESPACE } from '../formats/xml-writer.js';
import { CATALOGUE_PATHS, pathNotFound, registerCatalogueRoutes, type CatalogueDirectory } from './catalogue-routes.js';
import { HttpError } from './http-error.js';
import { logOptions, pathOf, type LogConfig } from './log-options.js';
import { observeRequests } from './observe-requests.js';
import { registerDocumentRoutes, registerOpenApi } from './openapi.js';
import { registerOperationsRoutes, type CatalogueMonitor } from './operations-routes.js';
import { RequestMetrics } from './request-metrics.js';
import { sendConnectionProblem, sendProblem } from './send.js';

/** How long and how much a client may take; each is a setting of `marquee serve`. */
export interface ConnectionLimits {
  readonly requestTimeout: number;
  readonly headersTimeout: number;
  readonly idleTimeout: number;
  readonly keepAliveTimeout: number;
  readonly maxRequestsPerSocket: number;
  readonly maxHeaderSize: number;
}

export interface AppOptions {
  readonly catalogues: CatalogueDirectory & CatalogueMonitor;
  readonly cacheControl: string;
  /** The default namespace of XML answers; the data-contract namespace when absent. */
  readonly xmlNamespace?: string;
  readonly logger?: LogConfig;
  readonly limits?: ConnectionLimits;
}

/** Longest id segment the router accepts; longer ones cannot name a record (ids have 64 characters). */
const MAX_ID_SEGMENT = 1024;

type ServerLimitOptions = Pick<FastifyHttpOptions<Server>, 'requestTimeout' | 'connectionTimeout' | 'keepAliveTimeout' | 'maxRequestsPerSocket' | 'http'>;

function serverOptions(limits: ConnectionLimits): ServerLimitOptions {
  return {
    requestTimeout: limits.requestTimeout,
    connectionTimeout: limits.idleTimeout,
    keepAliveTimeout: limits.keepAliveTimeout,
    maxRequestsPerSocket: limits.maxRequestsPerSocket,
    http: {
      headersTimeout: limits.headersTimeout,
      maxHeaderSize: limits.maxHeaderSize,
      // Node looks for overdue headers and requests every 30 s by default; looking more often
      // cuts a slow client close to its timeout.
      connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(limits.headersTimeout / 4))),
    },
  };
}

/** A request the server could not even read, answered on the connection before closing it. */
function unreadableRequest(code: string | undefined): HttpError {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return new HttpError(408, 'Request Timeout', 'The request did not arrive in time.');
  if (code === 'HPE_HEADER_OVERFLOW') return new HttpError(431, 'Request Header Fields Too Large', 'The request line and headers are too large.');
  return new HttpError(400, 'Bad Request', 'The request is not valid HTTP/1.1.');
}

export function buildApp(options: AppOptions): FastifyInstance {
  const metrics = new RequestMetrics();
  const xmlNamespace = options.xmlNamespace ?? DEFAULT_XML_NAMESPACE;
  const app = Fastify({
    ...(options.logger && { logger: logOptions(options.logger) }),
    // observeRequests writes one line per request in place of fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    // During a graceful shutdown a request that still reaches an open connection is answered,
    // with `Connection: close`, rather than refused.
    return503OnClosing: false,
    ...(options.limits && serverOptions(options.limits)),
    clientErrorHandler: (error: NodeJS.ErrnoException, socket) => {
      // A reset means the client is gone; there is no one to answer.
      if (error.code === 'ECONNRESET' || socket.destroyed) return;
      const problem = unreadableRequest(error.code);
      metrics.connectionCut(problem.status);
      // The error's raw bytes may hold a token: only its code is logged.
      app.log.debug({ code: error.code, status: problem.status }, 'connection cut');
      sendConnectionProblem(socket, problem);
    },
    routerOptions: { caseSensitive: false, ignoreTrailingSlash: true, maxParamLength: MAX_ID_SEGMENT },
    // A malformed percent-encoding or an overlong segment names no record: 404, as for any unknown id.
    frameworkErrors: (error, request, reply) => {
      const notFound = error.code === 'FST_ERR_BAD_URL' || error.code === 'FST_ERR_MAX_PARAM_LENGTH';
      return sendProblem(request, reply, notFound ? pathNotFound(pathOf(request.url)) : new HttpError(400, 'Bad Request', error.message));
    },
  });

  // The API never reads a request body, so no body is parsed or refused for its media type.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null));

  observeRequests(app, metrics);
  registerOpenApi(app, xmlNamespace);
  // Registered as a plugin so that they load after the document generator, which learns them.
  void app.register(async (routes) => {
    registerCatalogueRoutes(routes, { catalogues: options.catalogues, cacheControl: options.cacheControl, xmlNamespace });
    registerOperationsRoutes(routes, { catalogues: options.catalogues, metrics });
    registerDocumentRoutes(routes);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = pathOf(request.url);
    if (CATALOGUE_PATHS.test(path)) {
      return sendProblem(request, reply, new HttpError(405, 'Method Not Allowed', `${request.method} is not allowed here; use GET or HEAD.`, { allow: 'GET, HEAD' }));
    }
    return sendProblem(request, reply, pathNotFound(path));
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof HttpError) return sendProblem(request, reply, error);
    const status = typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (status >= 500) request.log.error({ err: error }, 'request failed');
    const detail = status >= 500 ? 'The server could not answer this request.' : error.message;
    return sendProblem(request, reply, new HttpError(status, STATUS_CODES[status] ?? 'Error', detail));
  });

  return app;
}
