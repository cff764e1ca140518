/**
 * The pictures' part of the OpenAPI document (CONTRACT §13): the rendition route, and the
 * `images` the programme gives each feature.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifySchema } from 'fastify';
import { WIDTH_LADDER } from '../images/rendition.js';
import { notModified, problemDocumentation, REVALIDATION_HEADERS } from './api-schemas.js';

/** A picture as the programme gives it, by name among the document's schemas. */
export function imageSchema(): TSchema {
  const size = (description: string): TSchema => Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], { description });
  return Type.Object(
    {
      src: Type.String({ description: 'The rendition 320 pixels wide (or the widest the source has below it), relative to the programme\'s address.' }),
      srcset: Type.String({
        description: `Every rendition with its width, as HTML's \`srcset\` writes them (\`images/… 160w, images/… 320w\`): widths of ${WIDTH_LADDER.join(', ')}, none wider than the source once it has been read.`,
      }),
      width: size('The source\'s width in pixels; null until it has been read.'),
      height: size('The source\'s height in pixels; null until it has been read.'),
    },
    { $id: 'ProgrammeImage', additionalProperties: false, description: 'A picture served by Marquee at the sizes a page needs, in the formats its browser prefers.' },
  );
}

/** The `images` member of a feature. */
export function featureImages(): TSchema {
  const image = (description: string): TSchema => Type.Union([Type.Ref('ProgrammeImage'), Type.Null()], { description });
  return Type.Object(
    {
      poster: image('The poster (the film\'s poster, else its thumbnail; a package\'s, its first film\'s that has one), or null.'),
      backdrop: image('The backdrop (a package\'s, its first film\'s that has one), or null.'),
    },
    { additionalProperties: false, description: 'The pictures, served by Marquee resized: the fields with the original URLs stay beside them.' },
  );
}

const PICTURE = { type: 'string', format: 'binary' } as const;

/** The schema of `/images/{source}/{width}/{signature}`. */
export function imageOperation(): FastifySchema {
  return {
    operationId: 'getImage',
    tags: ['Programme'],
    summary: 'A picture of the programme, resized',
    description:
      'A rendition of a poster or backdrop at one of the addresses the programme hands out (`images.poster.srcset`); any other address answers 404, and nothing is read for it. ' +
      'It needs no key or token. AVIF when Accept names `image/avif`, else WebP when it names `image/webp`, else JPEG (PNG for a source with transparency); ' +
      'the width asked (at most the source\'s), with the source\'s proportions. The bytes at an address never change: a changed source gets a new address.',
    params: Type.Object({
      source: Type.String({ description: 'The source\'s URL, in base64url.' }),
      width: Type.Integer({ enum: [...WIDTH_LADDER], description: 'The width in pixels.' }),
      signature: Type.String({ description: 'What makes the address Marquee\'s own.' }),
    }),
    headers: REVALIDATION_HEADERS,
    response: {
      200: {
        description: 'The picture.',
        headers: {
          ETag: { type: 'string', description: 'Strong validator: a digest of the bytes, the same from every server.' },
          'Cache-Control': { type: 'string', description: '`public, max-age=31536000, immutable`.' },
          Vary: { type: 'string', description: '`Accept`: the format follows it.' },
        },
        content: { 'image/avif': { schema: PICTURE }, 'image/webp': { schema: PICTURE }, 'image/jpeg': { schema: PICTURE }, 'image/png': { schema: PICTURE } },
      },
      304: notModified({ type: 'string', description: 'The ETag held.' }),
      404: problemDocumentation('Not an address the programme handed out, or the source\'s host has no picture there.'),
      502: problemDocumentation('The source could not be read: refused (a private address, too large, too many pixels, too slow, not JPEG, PNG, WebP, AVIF or GIF) or its host failed.'),
      503: problemDocumentation('Too many pictures wait to be resized; carries `Retry-After`.'),
    },
  };
}
