/**
 * Builds the HTTP application without listening, so tests can inject requests and the server
 * module alone owns the process.
 */
import { STATUS_CODES } from 'node:http';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { RateLimiter, type RatePolicy } from '../access/rate-limiter.js';
import { authenticate, type TokenDirectory } from './authenticate.js';
import { CATALOGUE_PATHS, pathNotFound, registerCatalogueRoutes, type CatalogueDirectory } from './catalogue-routes.js';
import { cors, isPreflight, sendPreflight } from './cors.js';
import { HttpError } from './http-error.js';
import { sendProblem } from './send.js';

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

/** Longest id segment the router accepts; longer ones cannot name a record (ids have 64 characters). */
const MAX_ID_SEGMENT = 1024;

function requestPath(url: string): string {
  return url.split('?')[0] ?? '';
}

export function buildApp(options: AppOptions): FastifyInstance {
  const app = Fastify({
    logger: options.logger ?? false,
    routerOptions: { caseSensitive: false, ignoreTrailingSlash: true, maxParamLength: MAX_ID_SEGMENT },
    // A malformed percent-encoding or an overlong segment names no record: 404, as for any unknown id.
    frameworkErrors: (error, request, reply) => {
      const notFound = error.code === 'FST_ERR_BAD_URL' || error.code === 'FST_ERR_MAX_PARAM_LENGTH';
      return sendProblem(request, reply, notFound ? pathNotFound(requestPath(request.url)) : new HttpError(400, 'Bad Request', error.message));
    },
  });

  // The API never reads a request body, so no body is parsed or refused for its media type.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null));

  const corsOn = options.corsOrigins !== undefined && options.corsOrigins.length > 0;
  if (corsOn) app.addHook('onRequest', cors(options.corsOrigins));

  // The token check is scoped to the catalogue routes: endpoints registered beside them need none.
  const limiter = options.rateLimit === undefined ? undefined : new RateLimiter(options.rateLimit);
  app.register(async (api) => {
    api.decorateRequest('customer', '');
    api.addHook('onRequest', authenticate(options.tokens, limiter));
    registerCatalogueRoutes(api, options);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = requestPath(request.url);
    if (CATALOGUE_PATHS.test(path)) {
      if (corsOn && isPreflight(request)) return sendPreflight(reply);
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
