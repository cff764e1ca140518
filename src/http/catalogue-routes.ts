/**
 * The four read operations of the API. Each route finds the prebuilt answer in the request's
 * catalogue and hands it to the sender; nothing is serialized on the request path.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest, RouteShorthandOptions } from 'fastify';
import { DEFAULT_CUSTOMER, MAX_INT32 } from '../catalogue/model.js';
import type { PublishedCatalogue } from '../formats/published-catalogue.js';
import { FILM_SHAPE, PACKAGE_SHAPE } from '../formats/wire-shape.js';
import { catalogueOperation, listRef, recordRef } from './api-schemas.js';
import { HttpError } from './http-error.js';
import { sendRepresentation } from './send.js';

/** Where routes find the catalogue they serve. */
export interface CatalogueDirectory {
  published(customer: string): PublishedCatalogue;
}

export interface CatalogueRouteOptions {
  readonly catalogues: CatalogueDirectory;
  readonly cacheControl: string;
  /** The default namespace of XML answers, as the document describes them. */
  readonly xmlNamespace: string;
}

/** The paths of the API, for telling a wrong method (405) from a wrong path (404). */
export const CATALOGUE_PATHS = /^\/(v4\/film|v1\/filmpackage)(\/[^/]+)?\/?$/i;

/** Quotes what a client sent in a problem detail, cut short when it is long. */
function quote(text: string): string {
  const characters = [...text];
  return `'${characters.length > 100 ? `${characters.slice(0, 100).join('')}…` : text}'`;
}

export function filmNotFound(id: string): HttpError {
  return HttpError.notFound(`No film has the id ${quote(id)}.`);
}

export function packageNotFound(id: string): HttpError {
  return HttpError.notFound(`No film package has the id ${quote(id)}.`);
}

/** The 404 for a path whose id the router could not even decode or accept. */
export function pathNotFound(path: string): HttpError {
  const [, resource, id] = CATALOGUE_PATHS.exec(path) ?? [];
  if (id === undefined) return HttpError.notFound(`Nothing is found at ${quote(path)}.`);
  return resource?.toLowerCase() === 'v4/film' ? filmNotFound(id.slice(1)) : packageNotFound(id.slice(1));
}

/** A package id as .NET binds an `int` route value: decimal digits from 1 to 2147483647. */
function parsePackageId(text: string): number | undefined {
  if (!/^\d{1,12}$/.test(text)) return undefined;
  const id = Number(text);
  return id >= 1 && id <= MAX_INT32 ? id : undefined;
}

type IdRequest = FastifyRequest<{ Params: { id: string } }>;

/**
 * The routes send prebuilt bytes, so their schemas only document them: no request is validated
 * (a malformed id answers 404 and an unknown format is ignored, never a 400), and no serializer
 * is compiled for answers fastify never serializes.
 */
const DOCUMENTATION_ONLY: Pick<RouteShorthandOptions, 'validatorCompiler' | 'serializerCompiler'> = {
  validatorCompiler: () => () => true,
  serializerCompiler: () => (data) => JSON.stringify(data),
};

export function registerCatalogueRoutes(app: FastifyInstance, options: CatalogueRouteOptions): void {
  const catalogue = (_request: FastifyRequest): PublishedCatalogue => options.catalogues.published(DEFAULT_CUSTOMER);
  const { cacheControl, xmlNamespace } = options;

  const listFilms = catalogueOperation({
    operationId: 'listFilms',
    tag: 'Films',
    summary: 'List films',
    description: 'Every film of the catalogue, any Status, ordered by DisplaySequence, then Id.',
    answer: listRef(FILM_SHAPE, xmlNamespace),
  });
  app.get('/v4/film', { ...DOCUMENTATION_ONLY, schema: listFilms }, async (request, reply) => sendRepresentation(request, reply, catalogue(request).filmList(), cacheControl));

  const getFilm = catalogueOperation({
    operationId: 'getFilm',
    tag: 'Films',
    summary: 'Get a film',
    description: 'One film by its Id.',
    answer: recordRef(FILM_SHAPE),
    id: Type.String({ description: 'The Id of the film, percent-encoded; matched exactly.' }),
    notFound: 'No film has this id.',
  });
  app.get('/v4/film/:id', { ...DOCUMENTATION_ONLY, schema: getFilm }, async (request: IdRequest, reply) => {
    const { id } = request.params;
    const film = catalogue(request).film(id);
    if (film === undefined) throw filmNotFound(id);
    return sendRepresentation(request, reply, film, cacheControl);
  });

  const listPackages = catalogueOperation({
    operationId: 'listFilmPackages',
    tag: 'Film packages',
    summary: 'List film packages',
    description: 'Every film package of the catalogue, any Status, ordered by Id.',
    answer: listRef(PACKAGE_SHAPE, xmlNamespace),
  });
  app.get('/v1/filmpackage', { ...DOCUMENTATION_ONLY, schema: listPackages }, async (request, reply) =>
    sendRepresentation(request, reply, catalogue(request).packageList(), cacheControl),
  );

  const getPackage = catalogueOperation({
    operationId: 'getFilmPackage',
    tag: 'Film packages',
    summary: 'Get a film package',
    description: 'One film package by its Id.',
    answer: recordRef(PACKAGE_SHAPE),
    id: Type.Integer({ minimum: 1, maximum: MAX_INT32, description: 'The Id of the package, a decimal integer; anything else answers 404.' }),
    notFound: 'No film package has this id.',
  });
  app.get('/v1/filmpackage/:id', { ...DOCUMENTATION_ONLY, schema: getPackage }, async (request: IdRequest, reply) => {
    const { id } = request.params;
    const packageId = parsePackageId(id);
    const filmPackage = packageId === undefined ? undefined : catalogue(request).package(packageId);
    if (filmPackage === undefined) throw packageNotFound(id);
    return sendRepresentation(request, reply, filmPackage, cacheControl);
  });
}
