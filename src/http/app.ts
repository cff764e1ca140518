/**
 * Builds the HTTP application without listening, so tests can inject requests and the server
 * module alone owns the process. Requests on the catalogue paths go straight to the catalogue
 * handler; every other request (operations endpoints, documentation, unknown paths) goes to
 * fastify.
 */
import { createServer, STATUS_CODES, type RequestListener, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import Fastify, { LogController, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { inject, type InjectOptions, type Response } from 'light-my-request';
import { RateLimiter, type RatePolicy } from '../access/rate-limiter.js';
import { AccessLog } from './access-log.js';
import { DEFAULT_XML_NAMESPACE } from '../formats/xml-writer.js';
import { authenticate, type TokenDirectory } from './authenticate.js';
import { createCatalogueHandler, type CatalogueDirectory } from './catalogue-handler.js';
import { registerCatalogueRoutes } from './catalogue-routes.js';
import { corsPolicy } from './cors.js';
import { HttpError, quote } from './http-error.js';
import { logOptions, pathOf, type LogConfig } from './log-options.js';
import { formatParameter, requestedMediaType } from './media-types.js';
import { observeRequests } from './observe-requests.js';
import { registerDocumentRoutes } from '../reference/document-routes.js';
import { registerOpenApi } from '../reference/openapi-document.js';
import { registerOperationsRoutes, type CatalogueMonitor } from './operations-routes.js';
import { problemResponse } from './problem.js';
import { RequestMetrics } from './request-metrics.js';

/** How long and how much a client may take; each is a setting of `marquee serve`. */
export interface ConnectionLimits {
  readonly requestTimeout: number;
  readonly headersTimeout: number;
  readonly keepAliveTimeout: number;
  readonly maxRequestsPerSocket: number;
  readonly maxHeaderSize: number;
}

export interface AppOptions {
  readonly catalogues: CatalogueDirectory & CatalogueMonitor;
  readonly tokens: TokenDirectory;
  readonly cacheControl: string;
  /** Per token (per client address while the service is open); no limit when absent. */
  readonly rateLimit?: RatePolicy | undefined;
  /** Origins whose web pages may call the API; CORS is off when there is none. */
  readonly corsOrigins?: readonly string[];
  /** The default namespace of XML answers; the data-contract namespace when absent. */
  readonly xmlNamespace?: string;
  readonly logger?: LogConfig;
  readonly limits?: ConnectionLimits;
}

export interface MarqueeApp {
  readonly fastify: FastifyInstance;
  /** The HTTP server the application listens with (not yet listening). */
  readonly server: Server;
  /** Answers one request as the server would, without a socket. */
  inject(options: InjectOptions | string): Promise<Response>;
  listen(port: number, host: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * The server, with the client limits applied. Fastify applies its timeout options only to a
 * server it makes itself, and this one is made here so that the catalogue handler comes first.
 */
function createLimitedServer(listener: RequestListener, limits: ConnectionLimits | undefined): Server {
  if (limits === undefined) return createServer(listener);
  const server = createServer(
    {
      headersTimeout: limits.headersTimeout,
      requestTimeout: limits.requestTimeout,
      keepAliveTimeout: limits.keepAliveTimeout,
      maxHeaderSize: limits.maxHeaderSize,
      // Node looks for overdue headers and requests every 30 s by default; looking more often
      // cuts a slow client close to its timeout.
      connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(limits.headersTimeout / 4))),
    },
    listener,
  );
  if (limits.maxRequestsPerSocket > 0) server.maxRequestsPerSocket = limits.maxRequestsPerSocket;
  return server;
}

/** A request the server could not even read, answered on the connection before closing it. */
function unreadableRequest(code: string | undefined): HttpError {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return new HttpError(408, 'Request Timeout', 'The request did not arrive in time.');
  if (code === 'HPE_HEADER_OVERFLOW') return new HttpError(431, 'Request Header Fields Too Large', 'The request line and headers are too large.');
  return new HttpError(400, 'Bad Request', 'The request is not valid HTTP/1.1.');
}

function writeConnectionProblem(socket: Duplex, error: HttpError): void {
  if (socket.writable) {
    const { status, headers, body } = problemResponse(error, 'json');
    socket.write(`HTTP/1.1 ${status} ${error.title}\r\nContent-Type: ${String(headers['content-type'])}\r\nContent-Length: ${String(headers['content-length'])}\r\nConnection: close\r\n\r\n${body}`);
  }
  socket.destroy();
}

function sendProblem(request: FastifyRequest, reply: FastifyReply, error: HttpError): FastifyReply {
  const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : undefined;
  const { status, headers, body } = problemResponse(error, requestedMediaType(request.headers.accept, formatParameter(query)).format);
  return reply.code(status).headers(headers).send(body);
}

export function buildApp(options: AppOptions): MarqueeApp {
  const metrics = new RequestMetrics();
  const accessLog = AccessLog.of(options.logger);
  const xmlNamespace = options.xmlNamespace ?? DEFAULT_XML_NAMESPACE;
  const handleCatalogue = createCatalogueHandler({
    catalogues: options.catalogues,
    cacheControl: options.cacheControl,
    admit: authenticate(options.tokens, options.rateLimit === undefined ? undefined : new RateLimiter(options.rateLimit)),
    cors: corsPolicy(options.corsOrigins ?? []),
    metrics,
    accessLog,
    closing: () => closing,
    onError: (error) => fastify.log.error({ err: error }, 'request failed'),
  });

  let closing = false;
  // Fastify calls the factory while it is being built, before any request can arrive.
  let listener: RequestListener = () => {};
  const server = createLimitedServer((request, response) => listener(request, response), options.limits);
  const fastify = Fastify({
    ...(options.logger && { logger: logOptions(options.logger) }),
    // One line per request is written by observeRequests and the catalogue handler, in place of fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    // During a graceful shutdown a request that still reaches an open connection is answered,
    // with `Connection: close`, rather than refused.
    return503OnClosing: false,
    clientErrorHandler: (error: NodeJS.ErrnoException, socket) => {
      // A reset means the client is gone; there is no one to answer.
      if (error.code === 'ECONNRESET' || socket.destroyed) return;
      const problem = unreadableRequest(error.code);
      metrics.connectionCut(problem.status);
      // The error's raw bytes may hold a token: only its code is logged.
      fastify.log.debug({ code: error.code, status: problem.status }, 'connection cut');
      writeConnectionProblem(socket, problem);
    },
    serverFactory: (fastifyListener) => {
      listener = (request, response) => {
        if (!handleCatalogue(request, response)) fastifyListener(request, response);
      };
      return server;
    },
  });

  // No route reads a request body, so none is parsed or refused for its media type.
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', (_request, _payload, done) => done(null));

  fastify.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  observeRequests(fastify, metrics, accessLog);
  registerOpenApi(fastify, xmlNamespace);
  // Registered as a plugin so that they load after the document generator, which learns them.
  void fastify.register(async (routes) => {
    registerCatalogueRoutes(routes, handleCatalogue, xmlNamespace);
    registerOperationsRoutes(routes, { catalogues: options.catalogues, metrics });
    registerDocumentRoutes(routes);
  });

  fastify.setNotFoundHandler((request, reply) => {
    const path = pathOf(request.url);
    return sendProblem(request, reply, HttpError.notFound(`Nothing is found at ${quote(path)}.`));
  });

  fastify.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof HttpError) return sendProblem(request, reply, error);
    const status = typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (status >= 500) request.log.error({ err: error }, 'request failed');
    const detail = status >= 500 ? 'The server could not answer this request.' : error.message;
    return sendProblem(request, reply, new HttpError(status, STATUS_CODES[status] ?? 'Error', detail));
  });

  return {
    fastify,
    server,
    async inject(injectOptions) {
      await fastify.ready();
      return inject(listener, injectOptions);
    },
    async listen(port, host) {
      return fastify.listen({ port, host });
    },
    close: () => fastify.close(),
  };
}
