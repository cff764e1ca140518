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
/** A page is answered to any request that does not prefer one of the API's media types, as a browser's does not. */
const prefersHtmlAccept = rememberedByHeader((accept: string) => negotiate(accept, ['text/html', ...OFFERS]) === 'text/html');

/**
 * The media type a request asks for: `?format=json|xml` overrides Accept; an unknown value is
 * ignored like any unknown parameter.
 */
export function requestedMediaType(request: FastifyRequest): MediaType {
  const format = formatParameter(request);
  if (format === 'json') return MEDIA_TYPES['application/json'];
  if (format === 'xml') return MEDIA_TYPES['application/xml'];
  const accept = request.headers.accept;
  return accept === undefined ? MEDIA_TYPES[OFFERS[0]] : negotiateAccept(accept);
}

/** Whether a request to a page prefers HTML to the API's media types: unless `?format=` or Accept asks for one of those. */
export function prefersHtml(request: FastifyRequest): boolean {
  if (formatParameter(request) !== undefined) return false;
  const accept = request.headers.accept;
  return accept === undefined || prefersHtmlAccept(accept);
}

function formatParameter(request: FastifyRequest): 'json' | 'xml' | undefined {
  const given = (request.query as { format?: unknown }).format;
  // Given more than once alike, it is as once; otherwise it says nothing, as an unknown value.
  const format = Array.isArray(given) && given.every((value) => value === given[0]) ? given[0] : given;
  return format === 'json' || format === 'xml' ? format : undefined;
}
