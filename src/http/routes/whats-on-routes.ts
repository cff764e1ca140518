/**
 * The programme's page (`/whats-on`) and the files it loads. The page is the programme in one more
 * format: its filters, keys, ETags and caching are the programme's. It adds `embed=1` (framed in
 * a cinema's own page), carries the visitor's publishable key in its links, and is sent under a
 * content security policy of its own. Its files need no key, as the reference's do not; a link
 * with a file's version may keep it for a year. `/robots.txt` lets crawlers read it.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Representation } from '../../formats/representation.js';
import { PAGE_ASSETS, type PageAsset } from '../../showtimes/page-assets.js';
import { PAGE_CONTENT_TYPE, PAGE_PATH } from '../../showtimes/showtimes-page.js';
import { parseEmbed } from '../../showtimes/showtimes-query.js';
import { pageOperation } from '../../reference/showtimes-schemas.js';
import { badParameter, HttpError } from '../http-error.js';
import { IMMUTABLE, sendAnswer, sendProblem } from '../respond.js';
import { answerFromShowtimes, PROGRAMME_READS, registerProgrammePath, sendWritten, type ShowtimesRouteOptions } from './showtimes-routes.js';

/** A file asked for with its current version never changes. */
const VERSIONED_ASSET = IMMUTABLE;
/** One asked for without it (a cinema's page loads frame.js so) is checked again each time, at the cost of a 304. */
const UNVERSIONED_ASSET = 'no-cache';

/**
 * Search engines may read the page, which is made for them as for people; every other path needs
 * a key or answers nothing they could list.
 */
const ROBOTS_PATH = '/robots.txt';
const ROBOTS = new Representation(Buffer.from('User-agent: *\nAllow: /\n'));
const ROBOTS_CACHE_CONTROL = 'public, max-age=86400';

const NO_HOST = new HttpError(400, 'Bad Request', 'The page links to itself by the host the request names: send a Host header.');

/** The key the page's links carry on: the publishable key of the query string, never anything else there. */
function keyInQuery(request: FastifyRequest): string | undefined {
  const key = (request.query as Record<string, unknown>)['key'];
  return request.publishable && typeof key === 'string' ? key : undefined;
}

function sendAsset(request: FastifyRequest, reply: FastifyReply, asset: PageAsset): FastifyReply {
  const version = (request.query as Record<string, unknown>)['v'];
  return sendAnswer(request, reply, asset.representation, asset.contentType, version === asset.version ? VERSIONED_ASSET : UNVERSIONED_ASSET);
}

export function registerWhatsOnRoutes(app: FastifyInstance, options: ShowtimesRouteOptions): void {
  const config = { cors: false, page: true, reads: PROGRAMME_READS } as const;
  const page = (request: FastifyRequest, reply: FastifyReply): FastifyReply | Promise<FastifyReply> => {
    const embed = parseEmbed(request.query as Record<string, unknown>);
    if (typeof embed !== 'boolean') return sendProblem(request, reply, badParameter(embed.parameter, embed.rule, embed.value));
    // Only an HTTP/1.0 request comes this far with no host (buildApp refuses others).
    if (request.host === '') return sendProblem(request, reply, NO_HOST);
    // The scheme a trusted proxy says (X-Forwarded-Proto) is taken only when it is one of the web's.
    const scheme = request.protocol === 'https' ? 'https' : 'http';
    const visit = { key: keyInQuery(request), embed, origin: `${scheme}://${request.host}` };
    return answerFromShowtimes(options, request, reply, (showtimes, query, cached) => {
      const answer = showtimes.page(query, visit, options.now(), options.pictures);
      // The key is in the page's address: no other site learns it from the links and posters it follows.
      reply.header('content-security-policy', showtimes.pageDressing.policy(embed, request.keyOrigins)).header('referrer-policy', 'strict-origin-when-cross-origin');
      return sendWritten(request, reply, answer, PAGE_CONTENT_TYPE, cached);
    });
  };
  registerProgrammePath(app, options.access, PAGE_PATH, { schema: pageOperation(), config }, page);
  for (const asset of PAGE_ASSETS) app.get(asset.path, { schema: { hide: true } }, (request, reply) => sendAsset(request, reply, asset));
  app.get(ROBOTS_PATH, { schema: { hide: true } }, (request, reply) => sendAnswer(request, reply, ROBOTS, 'text/plain; charset=utf-8', ROBOTS_CACHE_CONTROL));
}
