/**
 * The pictures' renditions (CONTRACT §13): `GET /images/SOURCE/WIDTH/SIGNATURE`, at the
 * addresses the programme hands out and no other. An `<img>` sends no key or token, so none is
 * asked for; the signature alone lets a request in. The format follows Accept, the address never
 * changes its bytes, and what cannot be served answers a problem.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { UnknownPictureError, type Images } from '../../images/images.js';
import { UnreadableSourceError } from '../../images/source-reader.js';
import { QueueFullError } from '../../images/work-queue.js';
import { imageOperation } from '../../reference/image-schemas.js';
import { HttpError, notFound, type Problem } from '../http-error.js';
import { sendImmutable, sendProblem, vary } from '../respond.js';
import { DOCUMENTATION_ONLY, OTHER_METHODS, refuseMethod } from './from-catalogue.js';

export const IMAGE_ROUTE = '/images/:source/:width/:signature';

export const UNKNOWN_PICTURE = notFound('No picture is at this address: only the addresses the programme hands out answer.');

export function unreadableSource(error: UnreadableSourceError): Problem {
  return error.status === 404
    ? notFound('The picture\'s source has no picture at its address.')
    : new HttpError(502, 'Bad Gateway', 'The picture\'s source could not be read, or is not a picture Marquee serves.');
}

export const TOO_BUSY = new HttpError(503, 'Service Unavailable', 'Too many pictures are waiting to be resized; try again in a moment.', { 'retry-after': '1' });

function problemOf(error: unknown): Problem {
  if (error instanceof UnknownPictureError) return UNKNOWN_PICTURE;
  if (error instanceof UnreadableSourceError) return unreadableSource(error);
  if (error instanceof QueueFullError) return TOO_BUSY;
  throw error;
}

export function registerImageRoutes(app: FastifyInstance, images: Images): void {
  app.get(IMAGE_ROUTE, { ...DOCUMENTATION_ONLY, schema: imageOperation() }, async (request: FastifyRequest, reply: FastifyReply) => {
    const { source, width, signature } = request.params as Record<'source' | 'width' | 'signature', string>;
    try {
      const rendition = await images.rendition(source, width, signature, request.headers.accept);
      vary(reply, 'Accept');
      return sendImmutable(request, reply, rendition);
    } catch (error) {
      return sendProblem(request, reply, problemOf(error));
    }
  });
  app.route({ method: OTHER_METHODS, url: IMAGE_ROUTE, schema: { hide: true }, handler: refuseMethod });
}
