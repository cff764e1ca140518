/**
 * A source resized to one width of the ladder, in the format a browser prefers: AVIF when its
 * Accept names it, else WebP, else JPEG (PNG for a source with transparency, which JPEG loses).
 * The encoders' settings are fixed and libvips works on one thread per picture, so every server
 * of one build makes the same bytes, and the same ETag, from the same source.
 */
import sharp, { type AvifOptions, type JpegOptions, type PngOptions, type WebpOptions } from 'sharp';
import { parseAccept } from '../http/negotiate.js';
import { lowerResizingPriority } from './resizing-priority.js';
import { SOURCE_OPTIONS } from './source-picture.js';

/** The widths a picture is offered at (CONTRACT §13). */
export const WIDTH_LADDER = [160, 320, 480, 640, 960, 1280] as const;

export type PictureFormat = 'avif' | 'webp' | 'jpeg' | 'png';

export const CONTENT_TYPES: Readonly<Record<PictureFormat, string>> = { avif: 'image/avif', webp: 'image/webp', jpeg: 'image/jpeg', png: 'image/png' };

// Qualities that look alike across formats at a poster's size. Measured on a 1340×1920 poster
// resized to 1280 px: AVIF at effort 0 with chroma halved takes 0.6 s where effort 2 at full chroma
// took 4 s, for a smaller file; mozjpeg took 4 times libjpeg's time for a fifth less, for the few
// browsers that take neither AVIF nor WebP.
const ENCODERS: { readonly [Format in PictureFormat]: AvifOptions | WebpOptions | JpegOptions | PngOptions } = {
  avif: { quality: 50, effort: 0, chromaSubsampling: '4:2:0' },
  webp: { quality: 75, effort: 4 },
  jpeg: { quality: 78, progressive: true, optimiseCoding: true },
  png: { compressionLevel: 9 },
};

// One libvips thread per picture: the queue decides how many are resized at once. libvips's own
// cache of operations is off: the renditions made are kept, within a bound, by whoever asks.
sharp.concurrency(1);
sharp.cache(false);

/** The format to send to a client whose Accept is `accept`. */
export function pictureFormat(accept: string | undefined, transparent: boolean): PictureFormat {
  const ranges = accept === undefined ? [] : parseAccept(accept);
  const named = (type: string): boolean => ranges.some((range) => `${range.type}/${range.subtype}` === type && range.q > 0);
  if (named('image/avif')) return 'avif';
  if (named('image/webp')) return 'webp';
  return transparent ? 'png' : 'jpeg';
}

/** `source` at `width` pixels wide (never wider than it is), upright, with no metadata, in `format`. */
export async function renderPicture(source: Buffer, width: number, format: PictureFormat): Promise<Buffer> {
  const rendered = sharp(source, SOURCE_OPTIONS).autoOrient().resize({ width, withoutEnlargement: true }).toFormat(format, ENCODERS[format]).toBuffer();
  // libvips starts its threads as the work begins: they are lowered while it goes on.
  setImmediate(lowerResizingPriority);
  return rendered;
}
