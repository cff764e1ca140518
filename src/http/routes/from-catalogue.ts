/**
 * What every route answering from a customer's catalogue shares: waiting for the catalogue only
 * when it is not published yet, a 503 when it cannot be read, and the refusal of methods other
 * than GET and HEAD.
 */
import { METHODS } from 'node:http';
import type { FastifyReply, FastifyRequest, RouteHandlerMethod, RouteShorthandOptions } from 'fastify';
import type { PartName, PublishedCatalogue } from '../../formats/published-catalogue.js';
import { HttpError, type Problem } from '../http-error.js';
import { sendProblem } from '../respond.js';
import type { CatalogueDirectory } from '../served-catalogues.js';

/** The methods a catalogue path answers; any other is answered 405. */
export const ALLOWED_METHODS = 'GET, HEAD';
/**
 * Every other method Node reads (TRACE, PROPFIND, …), so that none of them falls through to "not
 * found"; fastify routes those it does not know once `buildApp` adds them. CONNECT never reaches a
 * route: Node hands it to the server's `connect` listener.
 */
export const OTHER_METHODS = METHODS.filter((method) => method !== 'GET' && method !== 'HEAD' && method !== 'CONNECT');

/**
 * The schemas document: no request is validated by fastify (a malformed id answers 404 and an
 * unknown parameter is ignored, as the contract asks; the programme's filters are read by the
 * route, which names a bad one), and no serializer is compiled for answers that are prebuilt bytes.
 */
export const DOCUMENTATION_ONLY: Pick<RouteShorthandOptions, 'validatorCompiler' | 'serializerCompiler'> = {
  validatorCompiler: () => () => true,
  serializerCompiler: () => (data) => JSON.stringify(data),
};

/** Goes on with `value` at once when it is there, or once it is: a request pays for a promise only when it has to wait. */
export function when<T, Result>(value: T | Promise<T>, then: (value: T) => Result | Promise<Result>): Result | Promise<Result> {
  return value instanceof Promise ? value.then(then) : then(value);
}

/** Answered when what a request reads is neither held nor readable from the database now. */
export const CATALOGUE_UNAVAILABLE: Problem = {
  status: 503,
  title: 'Service Unavailable',
  detail: 'The catalogue cannot be read from the database now; try again shortly.',
  headers: { 'retry-after': '1' },
};

export type CatalogueHandler = (catalogue: PublishedCatalogue, request: FastifyRequest, reply: FastifyReply) => FastifyReply | Promise<FastifyReply>;

/**
 * Answers from the customer's catalogue: at once when it and the part it needs (`wanted`) are
 * published, else once they are; 503 when the database cannot be read to publish it.
 */
export function answerFromCatalogue(
  catalogues: CatalogueDirectory,
  request: FastifyRequest,
  reply: FastifyReply,
  answer: CatalogueHandler,
  wanted?: PartName,
): FastifyReply | Promise<FastifyReply> {
  const catalogue = catalogues.published(request.customer, wanted);
  const answered = catalogue instanceof Promise ? catalogue.then((built) => answer(built, request, reply)) : answer(catalogue, request, reply);
  return answered instanceof Promise
    ? answered.catch((error: unknown) => {
        request.log.error({ err: error }, 'publishing the catalogue failed');
        return sendProblem(request, reply, CATALOGUE_UNAVAILABLE);
      })
    : answered;
}

export function methodNotAllowed(method: string): HttpError {
  return new HttpError(405, 'Method Not Allowed', `${method} is not allowed here; use GET or HEAD.`, { allow: ALLOWED_METHODS });
}

export const refuseMethod: RouteHandlerMethod = (request) => {
  throw methodNotAllowed(request.method);
};
