/**
 * What a source's bytes are: a picture in one of the formats Marquee reads (JPEG, PNG, WebP,
 * AVIF, GIF), told by its first bytes before any decoder sees it, so that SVG, HTML and the rest
 * are refused unread; then its size, from its header alone, so that a small file that would
 * decode to an enormous picture (a decompression bomb) is refused before it is decoded.
 */
import sharp, { type SharpOptions } from 'sharp';
import type { SourceSize } from '../store/image-repository.js';
import { UnreadableSourceError } from './source-reader.js';

/** The most pixels a source may hold (CONTRACT §13): a 1340×1920 poster holds 2.6 million. */
export const MAX_SOURCE_PIXELS = 50_000_000;

/** How libvips opens every source: within the pixel limit, failing on a damaged file, reading once from top to bottom. */
export const SOURCE_OPTIONS = { limitInputPixels: MAX_SOURCE_PIXELS, failOn: 'error', sequentialRead: true, pages: 1 } as const satisfies SharpOptions;

function ascii(bytes: Buffer, start: number, end: number): string {
  return bytes.subarray(start, end).toString('latin1');
}

/** The format `bytes` start as, or undefined for any other. */
export function sniffFormat(bytes: Buffer): 'jpeg' | 'png' | 'webp' | 'avif' | 'gif' | undefined {
  if (bytes.length < 12) return undefined;
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png';
  if (ascii(bytes, 0, 6) === 'GIF87a' || ascii(bytes, 0, 6) === 'GIF89a') return 'gif';
  if (ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 12) === 'WEBP') return 'webp';
  // An ISO media file whose brands (the major one, then the compatible ones) name AVIF.
  if (ascii(bytes, 4, 8) === 'ftyp') {
    const boxEnd = Math.min(bytes.readUInt32BE(0), bytes.length, 64);
    for (let brand = 8; brand + 4 <= boxEnd; brand += 4) if (['avif', 'avis'].includes(ascii(bytes, brand, brand + 4))) return 'avif';
  }
  return undefined;
}

/** The size `bytes` show upright, or UnreadableSourceError when they are no picture Marquee reads. */
export async function sourceSize(url: URL, bytes: Buffer): Promise<SourceSize> {
  if (sniffFormat(bytes) === undefined) throw new UnreadableSourceError(`${url.href} is not a JPEG, PNG, WebP, AVIF or GIF picture`);
  const metadata = await sharp(bytes, SOURCE_OPTIONS)
    .metadata()
    .catch((error: unknown) => {
      throw new UnreadableSourceError(`${url.href} cannot be read as a picture: ${(error as Error).message}`);
    });
  // HEIF holds AVIF and HEIC alike: HEIC, which no browser shows, is not read.
  if (metadata.format === 'heif' && metadata.compression !== 'av1') throw new UnreadableSourceError(`${url.href} is HEIC, not AVIF`);
  const { width, height } = metadata.autoOrient;
  if (width * height > MAX_SOURCE_PIXELS) throw new UnreadableSourceError(`${url.href} holds more than ${MAX_SOURCE_PIXELS} pixels`);
  return { width, height, transparent: metadata.hasAlpha };
}
