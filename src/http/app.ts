/**
 * Builds the HTTP application without listening, so tests can inject requests and the server
 * module alone owns the process. Requests reach the catalogue handler first; everything else
 * goes to fastify.
 */
import { createServer, STATUS_CODES, type RequestListener, type Server } from 'node:http';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import { inject, type InjectOptions, type Response } from 'light-my-request';
import { RateLimiter, type RatePolicy } from '../access/rate-limiter.js';
import { authenticate, type TokenDirectory } from './authenticate.js';
import { createCatalogueHandler, type CatalogueDirectory } from './catalogue-handler.js';
import { corsPolicy } from './cors.js';
import { HttpError } from './http-error.js';
import { formatParameter, requestedMediaType } from './media-types.js';
import { problemResponse } from './problem.js';

export interface AppOptions {
  readonly catalogues: CatalogueDirectory;
  readonly tokens: TokenDirectory;
  readonly cacheControl: string;
  /** Per token (per client address while the service is open); no limit when absent. */
  readonly rateLimit?: RatePolicy | undefined;
  /** Origins whose web pages may call the API; CORS is off when there is none. */
  readonly corsOrigins?: readonly string[];
  readonly logger?: FastifyServerOptions['logger'];
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

function sendProblem(request: FastifyRequest, reply: FastifyReply, error: HttpError): FastifyReply {
  const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : undefined;
  const { status, headers, body } = problemResponse(error, requestedMediaType(request.headers.accept, formatParameter(query)).format);
  return reply.code(status).headers(headers).send(body);
}

export function buildApp(options: AppOptions): MarqueeApp {
  const handleCatalogue = createCatalogueHandler({
    catalogues: options.catalogues,
    cacheControl: options.cacheControl,
    admit: authenticate(options.tokens, options.rateLimit === undefined ? undefined : new RateLimiter(options.rateLimit)),
    cors: corsPolicy(options.corsOrigins ?? []),
    onError: (error) => fastify.log.error({ err: error }, 'request failed'),
  });
  // Fastify calls the factory while it is being built, before any request can arrive.
  let listener: RequestListener = () => {};
  const server = createServer((request, response) => listener(request, response));
  const fastify = Fastify({
    logger: options.logger ?? false,
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

  fastify.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    return sendProblem(request, reply, HttpError.notFound(`Nothing is found at '${path.length > 100 ? `${path.slice(0, 100)}…` : path}'.`));
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
