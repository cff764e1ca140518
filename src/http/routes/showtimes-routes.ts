/**
 * The programme (CONTRACT §12): `/programme`, `/programme.ics` and `/programme.jsonld`, the same
 * sessions in Marquee's JSON, as a calendar and as schema.org JSON-LD; and the films coming soon,
 * `/programme/coming-soon` (§15), read with the same keys and tokens. The filters are read first,
 * so that a bad one is told without touching the catalogue; the answer then comes from the
 * programme the customer's catalogue prepared, as the clock leaves it now. Publishable keys read
 * these paths, from web pages of any origin (a key's own origins decide), and their answers may be
 * kept by shared caches.
 */
import { CHANGE_KINDS } from '../../catalogue/catalogue-change.js';
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler, RouteHandlerMethod, FastifySchema, FastifyContextConfig } from 'fastify';
import type { Representation } from '../../formats/representation.js';
import type { PictureDirectory } from '../../images/picture-directory.js';
import { parseShowtimesQuery, type ShowtimesQuery } from '../../showtimes/showtimes-query.js';
import type { Showtimes, ShowtimesFormat } from '../../showtimes/showtimes.js';
import { comingSoonOperation, showtimesOperation } from '../../reference/showtimes-schemas.js';
import { ALLOWED_HEADERS, EXPOSED_HEADERS, PREFLIGHT_MAX_AGE } from '../cors.js';
import { negotiateEncoding } from '../accept-encoding.js';
import { badParameter, NO_SITE } from '../http-error.js';
import { sendAnswer, sendProblem, vary } from '../respond.js';
import type { CatalogueDirectory } from '../served-catalogues.js';
import { ALLOWED_METHODS, answerFromCatalogue, DOCUMENTATION_ONLY, OTHER_METHODS, refuseMethod, when } from './from-catalogue.js';

export interface ShowtimesRouteOptions {
  readonly catalogues: CatalogueDirectory;
  /** Cache-Control of answers to secret tokens, and while the service is open. */
  readonly cacheControl: string;
  /** Cache-Control of answers to publishable keys, which shared caches may keep. */
  readonly publicCacheControl: string;
  /** Lets a request in (key or token, customer, rate limit, origin) or refuses it. */
  readonly access: onRequestHookHandler;
  /** The time now, in milliseconds since the epoch: what is on sale, and which day it is. */
  readonly now: () => number;
  /** The addresses of the pictures the programme names. */
  readonly pictures: PictureDirectory;
}

/** Each path of the programme: the format it answers in. */
export const SHOWTIMES_PATHS: readonly { readonly path: string; readonly format: ShowtimesFormat; readonly contentType: string }[] = [
  { path: '/programme', format: 'json', contentType: 'application/json; charset=utf-8' },
  { path: '/programme.ics', format: 'calendar', contentType: 'text/calendar; charset=utf-8' },
  { path: '/programme.jsonld', format: 'linkedData', contentType: 'application/ld+json; charset=utf-8' },
];

/** The films coming soon: JSON, with no filter. */
export const COMING_SOON_PATH = { path: '/programme/coming-soon', contentType: 'application/json; charset=utf-8' } as const;

/** The programme is made of every kind of record: films and packages, their sessions, screens and attributes, and the site. */
export const PROGRAMME_READS = CHANGE_KINDS;

/**
 * The programme is made to be read by web pages: every answer, refusals included, may be read by
 * a page of any origin (no credentials are ever sent), and says that it varies on Origin, since a
 * publishable key locked to some origins refuses the others.
 */
const readableByPages: onRequestHookHandler = (_request, reply, done) => {
  vary(reply, 'Origin');
  reply.header('access-control-allow-origin', '*').header('access-control-expose-headers', EXPOSED_HEADERS.join(', '));
  done();
};

/**
 * A preflight is answered before any key or token is asked for: a browser sends none with it.
 * Any other OPTIONS goes on to the access step, and is refused as any other method.
 */
const answerPreflight: onRequestHookHandler = (request, reply, done) => {
  if (request.headers.origin === undefined || request.headers['access-control-request-method'] === undefined) return done();
  void reply
    .code(204)
    .header('access-control-allow-methods', ALLOWED_METHODS)
    .header('access-control-allow-headers', ALLOWED_HEADERS.join(', '))
    .header('access-control-max-age', String(PREFLIGHT_MAX_AGE))
    .send();
};

/** What answers a request from the programme: its prepared selections, the filters read, and the Cache-Control its caller allows. */
export type ShowtimesAnswer = (showtimes: Showtimes, query: ShowtimesQuery, cacheControl: string) => FastifyReply | Promise<FastifyReply>;

/**
 * Answers from the programme the customer's catalogue prepared: the filters first, so that a bad
 * one is told without touching the catalogue (400 naming it), then the programme, 404 while no
 * site was imported.
 */
export function answerFromShowtimes(options: ShowtimesRouteOptions, request: FastifyRequest, reply: FastifyReply, answer: ShowtimesAnswer): FastifyReply | Promise<FastifyReply> {
  const query = parseShowtimesQuery(request.query as Record<string, unknown>);
  if ('parameter' in query) return sendProblem(request, reply, badParameter(query.parameter, query.rule, query.value));
  return answerFromProgramme(options, request, reply, (showtimes, cached) => answer(showtimes, query, cached));
}

/** Answers from the programme the customer's catalogue prepared, 404 while no site was imported. */
function answerFromProgramme(
  { catalogues, cacheControl, publicCacheControl }: ShowtimesRouteOptions,
  request: FastifyRequest,
  reply: FastifyReply,
  answer: (showtimes: Showtimes, cacheControl: string) => FastifyReply | Promise<FastifyReply>,
): FastifyReply | Promise<FastifyReply> {
  const cached = request.publishable ? publicCacheControl : cacheControl;
  return answerFromCatalogue(
    catalogues,
    request,
    reply,
    (catalogue) => when(catalogue.part('showtimes'), (showtimes) => (showtimes === null ? sendProblem(request, reply, NO_SITE) : answer(showtimes, cached))),
    'showtimes',
  );
}

/**
 * An answer written for this request, sent once compressed (in the thread pool) to a client that
 * takes a compressed form: it may be the first request for it, and the page and the programme are
 * too large to send as they are. To one that takes none it goes at once, and nothing is compressed
 * for it: a site revalidating after each change would otherwise pay to compress every edition.
 */
export async function sendWritten(request: FastifyRequest, reply: FastifyReply, answer: Representation, contentType: string, cacheControl: string): Promise<FastifyReply> {
  const coding = negotiateEncoding(request.headers['accept-encoding']);
  if (coding !== undefined) await answer.compressed(coding);
  return sendAnswer(request, reply, answer, contentType, cacheControl);
}

/**
 * A path of the programme: GET and HEAD answered by `handler`, readable by any page, after the
 * access step; other methods refused after it, but a preflight, answered before it.
 */
export function registerProgrammePath(app: FastifyInstance, access: onRequestHookHandler, path: string, route: { readonly schema: FastifySchema; readonly config: FastifyContextConfig }, handler: RouteHandlerMethod): void {
  app.get(path, { ...DOCUMENTATION_ONLY, ...route, onRequest: [readableByPages, access] }, handler);
  app.route({ method: OTHER_METHODS, url: path, schema: { hide: true }, config: route.config, onRequest: [readableByPages, answerPreflight, access], handler: refuseMethod });
}

export function registerShowtimesRoutes(app: FastifyInstance, options: ShowtimesRouteOptions): void {
  // The answers' CORS are the programme's own: a global --cors-origin leaves them alone.
  const config = { cors: false, reads: PROGRAMME_READS } as const;
  for (const { path, format, contentType } of SHOWTIMES_PATHS) {
    const answer = (request: FastifyRequest, reply: FastifyReply): FastifyReply | Promise<FastifyReply> =>
      answerFromShowtimes(options, request, reply, (showtimes, query, cached) => sendWritten(request, reply, showtimes.answer(query, format, options.now(), options.pictures), contentType, cached));
    registerProgrammePath(app, options.access, path, { schema: showtimesOperation(format, contentType), config }, answer);
  }
  const comingSoon = (request: FastifyRequest, reply: FastifyReply): FastifyReply | Promise<FastifyReply> =>
    answerFromProgramme(options, request, reply, (showtimes, cached) => sendWritten(request, reply, showtimes.comingSoonAnswer(options.now(), options.pictures), COMING_SOON_PATH.contentType, cached));
  registerProgrammePath(app, options.access, COMING_SOON_PATH.path, { schema: comingSoonOperation(), config }, comingSoon);
}
