/**
 * The catalogue's read operations. Each route is a lookup in the customer's published catalogue
 * and a hand-off of its prebuilt answer: everything else was done when the catalogue loaded.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler, RouteShorthandOptions } from 'fastify';
import { MAX_INT32 } from '../../catalogue/model.js';
import type { PublishedCatalogue } from '../../formats/published-catalogue.js';
import type { Representations } from '../../formats/representation.js';
import { FILM_SHAPE, PACKAGE_SHAPE } from '../../formats/wire-shape.js';
import { catalogueOperation, listAnswer, recordAnswer } from '../../reference/api-schemas.js';
import { HttpError, unknownId } from '../http-error.js';
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

/** A package id as .NET binds an `int` route value: decimal digits from 1 to 2147483647. */
function parsePackageId(text: string): number | undefined {
  if (!/^\d{1,10}$/.test(text)) return undefined;
  const id = Number(text);
  return id >= 1 && id <= MAX_INT32 ? id : undefined;
}

type Find = (catalogue: PublishedCatalogue, id: string) => Representations | undefined;

export function registerCatalogueRoutes(app: FastifyInstance, { catalogues, cacheControl, xmlNamespace, access }: CatalogueRouteOptions): void {
  const catalogueOf = (request: FastifyRequest): PublishedCatalogue => catalogues.published(request.customer);

  const refuseMethod = (request: FastifyRequest): never => {
    throw new HttpError(405, 'Method Not Allowed', `${request.method} is not allowed here; use GET or HEAD.`, { allow: ALLOWED });
  };

  function list(url: string, schema: ReturnType<typeof catalogueOperation>, answers: (catalogue: PublishedCatalogue) => Representations): void {
    app.get(url, { ...DOCUMENTATION_ONLY, schema, onRequest: access }, (request, reply) => sendRepresentation(request, reply, answers(catalogueOf(request)), cacheControl));
    app.route({ method: [...OTHER_METHODS], url, schema: { hide: true }, handler: refuseMethod });
  }

  function item(url: string, schema: ReturnType<typeof catalogueOperation>, noun: string, find: Find): void {
    const handler = (request: FastifyRequest, reply: FastifyReply): FastifyReply => {
      const { id } = request.params as { id: string };
      const found = find(catalogueOf(request), id);
      return found === undefined ? sendProblem(request, reply, unknownId(noun, id)) : sendRepresentation(request, reply, found, cacheControl);
    };
    app.get(url, { ...DOCUMENTATION_ONLY, schema, onRequest: access }, handler);
    app.route({ method: [...OTHER_METHODS], url, schema: { hide: true }, handler: refuseMethod });
  }

  list(
    '/v4/film',
    catalogueOperation({
      operationId: 'listFilms',
      tag: 'Films',
      summary: 'List films',
      description: 'Every film of the catalogue, any Status, ordered by DisplaySequence, then Id.',
      answer: listAnswer(FILM_SHAPE, xmlNamespace),
    }),
    (catalogue) => catalogue.filmList(),
  );
  item(
    '/v4/film/:id',
    catalogueOperation({
      operationId: 'getFilm',
      tag: 'Films',
      summary: 'Get a film',
      description: 'One film by its Id.',
      answer: recordAnswer(FILM_SHAPE),
      id: Type.String({ description: 'The Id of the film, percent-encoded; matched exactly.' }),
      notFound: 'No film has this id.',
    }),
    'film',
    (catalogue, id) => catalogue.film(id),
  );
  list(
    '/v1/filmpackage',
    catalogueOperation({
      operationId: 'listFilmPackages',
      tag: 'Film packages',
      summary: 'List film packages',
      description: 'Every film package of the catalogue, any Status, ordered by Id.',
      answer: listAnswer(PACKAGE_SHAPE, xmlNamespace),
    }),
    (catalogue) => catalogue.packageList(),
  );
  item(
    '/v1/filmpackage/:id',
    catalogueOperation({
      operationId: 'getFilmPackage',
      tag: 'Film packages',
      summary: 'Get a film package',
      description: 'One film package by its Id.',
      answer: recordAnswer(PACKAGE_SHAPE),
      id: Type.Integer({ minimum: 1, maximum: MAX_INT32, description: 'The Id of the package, a decimal integer; anything else answers 404.' }),
      notFound: 'No film package has this id.',
    }),
    'film package',
    (catalogue, id) => {
      const packageId = parsePackageId(id);
      return packageId === undefined ? undefined : catalogue.package(packageId);
    },
  );
}
