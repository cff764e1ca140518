/**
 * The four read operations as fastify routes, for what fastify knows of its routes: their
 * schemas make the API document. Requests to these paths never reach them while serving: the
 * server hands them to the catalogue handler before fastify routes anything (see app.ts). A
 * request injected into fastify itself is answered by that same handler.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, RouteHandlerMethod, RouteShorthandOptions } from 'fastify';
import { MAX_INT32 } from '../catalogue/model.js';
import { FILM_SHAPE, PACKAGE_SHAPE } from '../formats/wire-shape.js';
import { catalogueOperation, listAnswer, recordAnswer } from '../reference/api-schemas.js';
import type { CatalogueHandler } from './catalogue-handler.js';

/**
 * The schemas only document: no request is validated (a malformed id answers 404 and an unknown
 * format is ignored, never a 400), and no serializer is compiled for answers never serialized.
 */
const DOCUMENTATION_ONLY: Pick<RouteShorthandOptions, 'validatorCompiler' | 'serializerCompiler'> = {
  validatorCompiler: () => () => true,
  serializerCompiler: () => (data) => JSON.stringify(data),
};

export function registerCatalogueRoutes(app: FastifyInstance, handleCatalogue: CatalogueHandler, xmlNamespace: string): void {
  const handler: RouteHandlerMethod = (request, reply) => {
    reply.hijack();
    handleCatalogue(request.raw, reply.raw);
  };
  const route = (path: string, schema: ReturnType<typeof catalogueOperation>): void => {
    app.get(path, { ...DOCUMENTATION_ONLY, schema }, handler);
  };

  route(
    '/v4/film',
    catalogueOperation({
      operationId: 'listFilms',
      tag: 'Films',
      summary: 'List films',
      description: 'Every film of the catalogue, any Status, ordered by DisplaySequence, then Id.',
      answer: listAnswer(FILM_SHAPE, xmlNamespace),
    }),
  );
  route(
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
  );
  route(
    '/v1/filmpackage',
    catalogueOperation({
      operationId: 'listFilmPackages',
      tag: 'Film packages',
      summary: 'List film packages',
      description: 'Every film package of the catalogue, any Status, ordered by Id.',
      answer: listAnswer(PACKAGE_SHAPE, xmlNamespace),
    }),
  );
  route(
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
  );
}
