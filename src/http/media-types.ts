/** The media types the API answers in, and the format each stands for. */
import type { FastifyRequest } from 'fastify';
import type { FormatName } from '../formats/representation.js';
import { negotiate, rememberedByHeader } from './negotiate.js';

const OFFERS = ['application/json', 'application/xml', 'text/json', 'text/xml'] as const;
type Offer = (typeof OFFERS)[number];

export interface MediaType {
  readonly format: FormatName;
  /** The Content-Type header of a representation in this media type. */
  readonly contentType: string;
}

const MEDIA_TYPES: Readonly<Record<Offer, MediaType>> = {
  'application/json': { format: 'json', contentType: 'application/json; charset=utf-8' },
  'application/xml': { format: 'xml', contentType: 'application/xml; charset=utf-8' },
  'text/json': { format: 'json', contentType: 'text/json; charset=utf-8' },
  'text/xml': { format: 'xml', contentType: 'text/xml; charset=utf-8' },
};

const negotiateAccept = rememberedByHeader((accept: string) => MEDIA_TYPES[negotiate(accept, OFFERS)]);

/**
 * The media type a request asks for: `?format=json|xml` overrides Accept; an unknown value is
 * ignored like any unknown parameter.
 */
export function requestedMediaType(request: FastifyRequest): MediaType {
  // A request refused before routing (a malformed URL) has no parsed query.
  const format = (request.query as { format?: unknown } | undefined)?.format;
  if (format === 'json') return MEDIA_TYPES['application/json'];
  if (format === 'xml') return MEDIA_TYPES['application/xml'];
  const accept = request.headers.accept;
  return accept === undefined ? MEDIA_TYPES[OFFERS[0]] : negotiateAccept(accept);
}
