/**
 * The catalogue's read operations. Each route is a lookup in the customer's published catalogue
 * and a hand-off of its prebuilt answer: everything else was done when the catalogue was
 * published, on the customer's first request. The resources are declared once, in a table, and
 * each gives a list and a by-id route.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import type { ChangeKind } from '../../catalogue/catalogue-change.js';
import { MAX_INT32 } from '../../catalogue/model.js';
import { COLLECTION_NAMES, type CollectionName, type PartName, type PublishedCatalogue } from '../../formats/published-catalogue.js';
import type { Representations } from '../../formats/representation.js';
import {
  ATTRIBUTE_SHAPE,
  FILM_SHAPE,
  FILM_V1_SHAPE,
  PACKAGE_SHAPE,
  SCREEN_SHAPE,
  SESSION_SHAPE,
  SITE_SHAPE,
  WEB_SESSION_SHAPE,
  type WireShape,
} from '../../formats/wire-shape.js';
import { catalogueOperation, listAnswer, recordAnswer } from '../../reference/api-schemas.js';
import { NO_SITE, unknownId } from '../http-error.js';
import { sendProblem, sendRepresentation } from '../respond.js';
import type { CatalogueDirectory } from '../served-catalogues.js';
import { answerFromCatalogue, DOCUMENTATION_ONLY, OTHER_METHODS, refuseMethod, when, type CatalogueHandler } from './from-catalogue.js';

export interface CatalogueRouteOptions {
  readonly catalogues: CatalogueDirectory;
  readonly cacheControl: string;
  readonly xmlNamespace: string;
  /** Lets a request in (token, customer, rate limit) or refuses it; other methods meet it too, then are refused. */
  readonly access: onRequestHookHandler;
  /** The time now, in milliseconds since the epoch: which sessions are on sale. */
  readonly now: () => number;
}

/** An integer id as .NET binds an `int` route value: decimal digits from 1 to 2147483647, written back without leading zeros. */
function parseIntegerId(text: string): string | undefined {
  if (!/^\d{1,10}$/.test(text)) return undefined;
  const id = Number(text);
  return id >= 1 && id <= MAX_INT32 ? String(id) : undefined;
}

/** A resource served as a list and by id. */
interface Resource {
  readonly path: string;
  readonly tag: string;
  readonly shape: WireShape<never>;
  /** What one record is called, in summaries and in the 404's detail. */
  readonly noun: string;
  readonly plural: string;
  readonly operationIds: readonly [list: string, get: string];
  readonly listDescription: string;
  readonly id: 'text' | 'integer';
  /** The kinds of record its answers are made of: what a change must alter for their bytes to change. */
  readonly reads: readonly ChangeKind[];
  /**
   * The part of the catalogue it answers from: a customer's first request publishes it with the
   * catalogue, but for one record of a collection, which is read alone (`PublishedCatalogue.item`).
   */
  readonly part: PartName;
  readonly list: (catalogue: PublishedCatalogue, now: number) => Representations | Promise<Representations>;
  readonly find: (catalogue: PublishedCatalogue, id: string, now: number) => Representations | undefined | Promise<Representations | undefined>;
}

/** A resource whose answers the catalogue prebuilt, once per snapshot, on its first use. */
function collection(name: CollectionName, resource: Omit<Resource, 'part' | 'list' | 'find'>): Resource {
  return {
    ...resource,
    part: name,
    list: (catalogue) => when(catalogue.part(name), (published) => published.list),
    find: (catalogue, id) => catalogue.item(name, id),
  };
}

const RESOURCES: readonly Resource[] = [
  collection('film', {
    path: '/v4/film',
    reads: ['films'],
    tag: 'Films',
    shape: FILM_SHAPE,
    noun: 'film',
    plural: 'films',
    operationIds: ['listFilms', 'getFilm'],
    listDescription: 'Every film of the catalogue, any Status, ordered by DisplaySequence, then Id.',
    id: 'text',
  }),
  collection('filmV1', {
    path: '/v1/film',
    reads: ['films'],
    tag: 'Films',
    shape: FILM_V1_SHAPE,
    noun: 'film',
    plural: 'films in the older shape',
    operationIds: ['listFilmsV1', 'getFilmV1'],
    listDescription: 'The films of `/v4/film`, in its order, in the older shape that v1 clients read.',
    id: 'text',
  }),
  collection('package', {
    path: '/v1/filmpackage',
    reads: ['packages'],
    tag: 'Film packages',
    shape: PACKAGE_SHAPE,
    noun: 'film package',
    plural: 'film packages',
    operationIds: ['listFilmPackages', 'getFilmPackage'],
    listDescription: 'Every film package of the catalogue, any Status, ordered by Id.',
    id: 'integer',
  }),
  collection('screen', {
    path: '/v1/screen',
    reads: ['screens'],
    tag: 'Site',
    shape: SCREEN_SHAPE,
    noun: 'screen',
    plural: 'screens',
    operationIds: ['listScreens', 'getScreen'],
    listDescription: 'Every screen of the site, ordered by Id.',
    id: 'integer',
  }),
  collection('attribute', {
    path: '/v1/attribute',
    reads: ['attributes'],
    tag: 'Sessions',
    shape: ATTRIBUTE_SHAPE,
    noun: 'attribute',
    plural: 'session attributes',
    operationIds: ['listAttributes', 'getAttribute'],
    listDescription: 'Every session attribute, ordered by Id.',
    id: 'text',
  }),
  collection('session', {
    path: '/v1/session',
    reads: ['sessions'],
    tag: 'Sessions',
    shape: SESSION_SHAPE,
    noun: 'session',
    plural: 'sessions',
    operationIds: ['listSessions', 'getSession'],
    listDescription: 'Every session imported, past ones too, ordered by PreShowStartTime, then Id.',
    id: 'integer',
  }),
  {
    path: '/v1/websession',
    // The site's time zone places each sales cut-off.
    reads: ['sessions', 'site'],
    tag: 'Sessions',
    shape: WEB_SESSION_SHAPE,
    noun: 'session on sale',
    plural: 'sessions on sale on the web',
    operationIds: ['listWebSessions', 'getWebSession'],
    listDescription:
      "The sessions on sale on the web now, each with its Url: Open, Public, sold via WWW, and whose SalesCutOffTime is still ahead in the site's time zone. " +
      'Ordered as sessions. The list changes as each cut-off passes, with no import, and its ETag with it.',
    id: 'integer',
    part: 'webSessions',
    list: (catalogue, now) => when(catalogue.part('webSessions'), (webSessions) => webSessions.list(now)),
    find: (catalogue, id, now) => when(catalogue.part('webSessions'), (webSessions) => webSessions.item(id, now)),
  },
];

const ID_SCHEMAS: Readonly<Record<Resource['id'], (noun: string) => TSchema>> = {
  text: (noun) => Type.String({ description: `The Id of the ${noun}, percent-encoded; matched exactly.` }),
  integer: (noun) => Type.Integer({ minimum: 1, maximum: MAX_INT32, description: `The Id of the ${noun}, a decimal integer; anything else answers 404.` }),
};

const SITE_READS: readonly ChangeKind[] = ['site'];

export function registerCatalogueRoutes(app: FastifyInstance, { catalogues, cacheControl, xmlNamespace, access, now }: CatalogueRouteOptions): void {
  function route(url: string, reads: readonly ChangeKind[], schema: ReturnType<typeof catalogueOperation>, answer: CatalogueHandler, wanted?: PartName): void {
    app.get(url, { ...DOCUMENTATION_ONLY, schema, config: { reads }, onRequest: access }, (request, reply) => answerFromCatalogue(catalogues, request, reply, answer, wanted));
    app.route({ method: OTHER_METHODS, url, schema: { hide: true }, onRequest: access, handler: refuseMethod });
  }

  for (const resource of RESOURCES) {
    const [listId, getId] = resource.operationIds;
    route(
      resource.path,
      resource.reads,
      catalogueOperation({ operationId: listId, tag: resource.tag, summary: `List ${resource.plural}`, description: resource.listDescription, answer: listAnswer(resource.shape, xmlNamespace) }),
      (catalogue, request, reply) => when(resource.list(catalogue, now()), (list) => sendRepresentation(request, reply, list, cacheControl)),
      resource.part,
    );
    const key = resource.id === 'integer' ? parseIntegerId : (id: string): string => id;
    route(
      `${resource.path}/:id`,
      resource.reads,
      catalogueOperation({
        operationId: getId,
        tag: resource.tag,
        summary: `Get a ${resource.noun}`,
        description: `One ${resource.noun} by its Id.`,
        answer: recordAnswer(resource.shape),
        id: ID_SCHEMAS[resource.id](resource.noun),
        notFound: `No ${resource.noun} has this id.`,
      }),
      (catalogue, request, reply) => {
        const { id } = request.params as { id: string };
        const parsed = key(id);
        return when(parsed === undefined ? undefined : resource.find(catalogue, parsed, now()), (found) =>
          found === undefined ? sendProblem(request, reply, unknownId(resource.noun, id)) : sendRepresentation(request, reply, found, cacheControl),
        );
      },
      (COLLECTION_NAMES as readonly PartName[]).includes(resource.part) ? undefined : resource.part,
    );
  }

  route(
    '/v1/site',
    SITE_READS,
    catalogueOperation({
      operationId: 'getSite',
      tag: 'Site',
      summary: 'Get the site',
      description: 'The cinema that the token (or, while no token exists, the default customer) stands for: one site per customer.',
      answer: recordAnswer(SITE_SHAPE),
      notFound: 'No site has been imported.',
    }),
    (catalogue, request, reply) => {
      const site = catalogue.site;
      return site === null ? sendProblem(request, reply, NO_SITE) : sendRepresentation(request, reply, site, cacheControl);
    },
  );
}
