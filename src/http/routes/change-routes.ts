/**
 * The change feed (CONTRACT §14): `GET /changes?since=VERSION&limit=N`, the events of the token's
 * customer after a version, oldest first. A secret token reads it; a publishable key, which web
 * pages hold, does not.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import { DEFAULT_FEED_LIMIT, MOST_FEED_LIMIT, type ChangeFeed } from '../../changes/change-feed.js';
import { EVENT_SCHEMA } from '../../reference/change-schemas.js';
import { problemDocumentation } from '../../reference/api-schemas.js';
import { badParameter, type Problem } from '../http-error.js';
import { sendProblem } from '../respond.js';
import { CATALOGUE_UNAVAILABLE, OTHER_METHODS, refuseMethod } from './from-catalogue.js';

export interface ChangeRouteOptions {
  readonly changes: ChangeFeed;
  /** Lets a secret token in, or refuses the request. */
  readonly access: onRequestHookHandler;
}

const VERSION = /^\d{1,15}$/;

function gone(since: number, version: number): Problem {
  return {
    status: 410,
    title: 'Gone',
    detail: `The changes after version ${since} are no longer all kept (--change-retention): read the catalogue again, then follow the changes after version ${version}.`,
    headers: {},
  };
}

export function registerChangeRoutes(app: FastifyInstance, { changes, access }: ChangeRouteOptions): void {
  const schema = {
    operationId: 'listChanges',
    tags: ['Changes'],
    summary: 'List changes',
    description:
      "The committed changes of the token's catalogue after `since`, oldest first: the events webhooks send, each naming what changed and the cache tags to purge. " +
      'Ask again from `next`. Changes are kept for `--change-retention` (7 days by default). A secret token reads this; a publishable key is refused (403).',
    security: [{ VeeziAccessToken: [] }, { BearerToken: [] }],
    querystring: Type.Object({
      since: Type.Integer({ minimum: 0, description: 'The catalogue version the reader has seen; 0 for every change kept.' }),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MOST_FEED_LIMIT, default: DEFAULT_FEED_LIMIT, description: 'Events at most.' })),
    }),
    response: {
      200: {
        description: 'The events, and the version to ask from next.',
        content: {
          'application/json': {
            schema: Type.Object({ events: Type.Array(EVENT_SCHEMA), next: Type.Integer({ description: 'The last event’s version, or `since` when there was none.' }) }),
          },
        },
      },
      400: problemDocumentation('`since` or `limit` is not a number it can be.'),
      401: problemDocumentation('The token is missing, unknown or revoked.'),
      403: problemDocumentation('A publishable key reads only the programme.'),
      410: problemDocumentation('Changes after `since` are no longer kept: read the catalogue again and follow from its version, which the detail names.'),
    },
  };
  app.get('/changes', { schema, validatorCompiler: () => () => true, onRequest: access }, async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const since = query['since'];
    if (typeof since !== 'string' || !VERSION.test(since)) return sendProblem(request, reply, badParameter('since', 'a catalogue version, an integer from 0', typeof since === 'string' ? since : undefined));
    const limitText = query['limit'];
    const limit = limitText === undefined ? DEFAULT_FEED_LIMIT : typeof limitText === 'string' && /^\d{1,4}$/.test(limitText) ? Number(limitText) : 0;
    if (limit < 1 || limit > MOST_FEED_LIMIT) return sendProblem(request, reply, badParameter('limit', `an integer from 1 to ${MOST_FEED_LIMIT}`, typeof limitText === 'string' ? limitText : undefined));
    const page = await changes.page(request.customer, Number(since), limit).catch((error: unknown) => {
      request.log.error({ err: error }, 'reading the changes failed');
      return undefined;
    });
    if (page === undefined) return sendProblem(request, reply, CATALOGUE_UNAVAILABLE);
    if ('gone' in page) return sendProblem(request, reply, gone(Number(since), page.version));
    return reply.header('cache-control', 'no-store').type('application/json; charset=utf-8').send(JSON.stringify(page));
  });
  app.route({ method: OTHER_METHODS, url: '/changes', schema: { hide: true }, onRequest: access, handler: refuseMethod });
}
