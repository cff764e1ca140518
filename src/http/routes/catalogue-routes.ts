/**
 * The catalogue's read operations. Each route is a lookup in the customer's published catalogue
 * and a hand-off of its prebuilt answer: everything else was done when the catalogue was
 * published, on the customer's first request. The resources are declared once, in a table, and
 * each gives a list and a by-id route.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler, RouteShorthandOptions } from 'fastify';
import { MAX_INT32 } from '../../catalogue/model.js';
import type { CollectionName, PublishedCatalogue } from '../../formats/published-catalogue.js';
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
import { HttpError, NO_SITE, unknownId, type Problem } from '../http-error.js';
import { sendProblem, sendRepresentation } from '../respond.js';
import type { CatalogueDirectory } from '../served-catalogues.js';

export interface CatalogueRouteOptions {
  readonly catalogues: CatalogueDirectory;
  readonly cacheControl: string;
  readonly xmlNamespace: string;
  /** Lets a request in (token, customer, rate limit) or refuses it; other methods are refused before it. */
  readonly access: onRequestHookHandler;
}

/** The methods a catalogue path answers; any other is answered 405. */
const ALLOWED = 'GET, HEAD';
const OTHER_METHODS = ['DELETE', 'OPTIONS', 'PATCH', 'POST', 'PUT'] as const;

/**
 * The schemas document: no request is validated (a malformed id answers 404 and an unknown
 * format is ignored, as the contract asks, never 400), and no serializer is compiled for
 * answers that are prebuilt bytes.
 */
const DOCUMENTATION_ONLY: Pick<RouteShorthandOptions, 'validatorCompiler' | 'serializerCompiler'> = {
  validatorCompiler: () => () => true,
  serializerCompiler: () => (data) => JSON.stringify(data),
};

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
  /** The published collection it answers from, if any: a customer's first request publishes it with the catalogue. */
  readonly collection?: CollectionName;
  readonly list: (catalogue: PublishedCatalogue) => Representations | Promise<Representations>;
  readonly find: (catalogue: PublishedCatalogue, id: string) => Representations | undefined | Promise<Representations | undefined>;
}

/** Goes on with `value` at once when it is there, or once it is: a request pays for a promise only when it has to wait. */
function when<T, Result>(value: T | Promise<T>, then: (value: T) => Result): Result | Promise<Result> {
  return value instanceof Promise ? value.then(then) : then(value);
}

/** A resource whose answers the catalogue prebuilt, once per snapshot, on its first use. */
function collection(name: CollectionName, resource: Omit<Resource, 'list' | 'find'>): Resource {
  return {
    ...resource,
    collection: name,
    list: (catalogue) => when(catalogue.collection(name), (published) => published.list),
    find: (catalogue, id) => when(catalogue.collection(name), (published) => published.item(id)),
  };
}

const RESOURCES: readonly Resource[] = [
  collection('film', {
    path: '/v4/film',
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
    tag: 'Sessions',
    shape: WEB_SESSION_SHAPE,
    noun: 'session on sale',
    plural: 'sessions on sale on the web',
    operationIds: ['listWebSessions', 'getWebSession'],
    listDescription:
      "The sessions on sale on the web now, each with its Url: Open, Public, sold via WWW, and whose SalesCutOffTime is still ahead in the site's time zone. " +
      'Ordered as sessions. The list changes as each cut-off passes, with no import, and its ETag with it.',
    id: 'integer',
    list: (catalogue) => catalogue.webSessions.list(Date.now()),
    find: (catalogue, id) => catalogue.webSessions.item(id, Date.now()),
  },
];

const ID_SCHEMAS: Readonly<Record<Resource['id'], (noun: string) => TSchema>> = {
  text: (noun) => Type.String({ description: `The Id of the ${noun}, percent-encoded; matched exactly.` }),
  integer: (noun) => Type.Integer({ minimum: 1, maximum: MAX_INT32, description: `The Id of the ${noun}, a decimal integer; anything else answers 404.` }),
};

/** Answered when a customer's catalogue is not held and the database cannot be read to build it. */
const CATALOGUE_UNAVAILABLE: Problem = {
  status: 503,
  title: 'Service Unavailable',
  detail: 'The catalogue cannot be read from the database now; try again shortly.',
  headers: { 'retry-after': '1' },
};

type CatalogueHandler = (catalogue: PublishedCatalogue, request: FastifyRequest, reply: FastifyReply) => FastifyReply | Promise<FastifyReply>;

export function registerCatalogueRoutes(app: FastifyInstance, { catalogues, cacheControl, xmlNamespace, access }: CatalogueRouteOptions): void {
  /**
   * Answers from the customer's catalogue: at once when it and the collection asked for are
   * published, else once they are.
   */
  const fromCatalogue =
    (answer: CatalogueHandler, wanted?: CollectionName) =>
    (request: FastifyRequest, reply: FastifyReply): FastifyReply | Promise<FastifyReply> => {
      const unavailable = (error: unknown): FastifyReply => {
        request.log.error({ err: error }, 'publishing the catalogue failed');
        return sendProblem(request, reply, CATALOGUE_UNAVAILABLE);
      };
      const catalogue = catalogues.published(request.customer, wanted);
      const answered = catalogue instanceof Promise ? catalogue.then((built) => answer(built, request, reply)) : answer(catalogue, request, reply);
      return answered instanceof Promise ? answered.catch(unavailable) : answered;
    };

  const refuseMethod = (request: FastifyRequest): never => {
    throw new HttpError(405, 'Method Not Allowed', `${request.method} is not allowed here; use GET or HEAD.`, { allow: ALLOWED });
  };

  function route(url: string, schema: ReturnType<typeof catalogueOperation>, answer: CatalogueHandler, wanted?: CollectionName): void {
    app.get(url, { ...DOCUMENTATION_ONLY, schema, onRequest: access }, fromCatalogue(answer, wanted));
    app.route({ method: [...OTHER_METHODS], url, schema: { hide: true }, handler: refuseMethod });
  }

  for (const resource of RESOURCES) {
    const [listId, getId] = resource.operationIds;
    route(
      resource.path,
      catalogueOperation({ operationId: listId, tag: resource.tag, summary: `List ${resource.plural}`, description: resource.listDescription, answer: listAnswer(resource.shape, xmlNamespace) }),
      (catalogue, request, reply) => when(resource.list(catalogue), (list) => sendRepresentation(request, reply, list, cacheControl)),
      resource.collection,
    );
    const key = resource.id === 'integer' ? parseIntegerId : (id: string): string => id;
    route(
      `${resource.path}/:id`,
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
        return when(parsed === undefined ? undefined : resource.find(catalogue, parsed), (found) =>
          found === undefined ? sendProblem(request, reply, unknownId(resource.noun, id)) : sendRepresentation(request, reply, found, cacheControl),
        );
      },
      resource.collection,
    );
  }

  route(
    '/v1/site',
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
