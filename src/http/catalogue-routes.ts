/**
 * The four read operations of the API. Each route finds the prebuilt answer in the request's
 * catalogue and hands it to the sender; nothing is serialized on the request path.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { MAX_INT32 } from '../catalogue/model.js';
import type { PublishedCatalogue } from '../formats/published-catalogue.js';
import { HttpError } from './http-error.js';
import { sendRepresentation } from './send.js';

/** Where routes find the catalogue they serve. */
export interface CatalogueDirectory {
  published(customer: string): PublishedCatalogue;
}

export interface CatalogueRouteOptions {
  readonly catalogues: CatalogueDirectory;
  readonly cacheControl: string;
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

export function registerCatalogueRoutes(app: FastifyInstance, options: CatalogueRouteOptions): void {
  // `authenticate` has set the request's customer before any of these routes runs.
  const catalogue = (request: FastifyRequest): PublishedCatalogue => options.catalogues.published(request.customer);
  const { cacheControl } = options;

  app.get('/v4/film', async (request, reply) => sendRepresentation(request, reply, catalogue(request).filmList(), cacheControl));

  app.get('/v4/film/:id', async (request: IdRequest, reply) => {
    const { id } = request.params;
    const film = catalogue(request).film(id);
    if (film === undefined) throw filmNotFound(id);
    return sendRepresentation(request, reply, film, cacheControl);
  });

  app.get('/v1/filmpackage', async (request, reply) => sendRepresentation(request, reply, catalogue(request).packageList(), cacheControl));

  app.get('/v1/filmpackage/:id', async (request: IdRequest, reply) => {
    const { id } = request.params;
    const packageId = parsePackageId(id);
    const filmPackage = packageId === undefined ? undefined : catalogue(request).package(packageId);
    if (filmPackage === undefined) throw packageNotFound(id);
    return sendRepresentation(request, reply, filmPackage, cacheControl);
  });
}
