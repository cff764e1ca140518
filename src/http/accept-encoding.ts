/**
 * Picks a content coding from Accept-Encoding (RFC 9110 §12.5.3): the highest q-value among
 * the codings offered, brotli before gzip on a tie, none when neither is acceptable.
 */
import type { ContentCoding } from '../formats/representation.js';
import { parseWeightedList, rememberedByHeader } from './negotiate.js';

const negotiateKnownEncoding = rememberedByHeader((header: string): ContentCoding | undefined => {
  let br: number | undefined;
  let gzip: number | undefined;
  let any: number | undefined;
  for (const { value: coding, q } of parseWeightedList(header)) {
    if (coding === 'br') br = q;
    else if (coding === 'gzip' || coding === 'x-gzip') gzip = q;
    else if (coding === '*') any = q;
  }
  const brQ = br ?? any ?? 0;
  const gzipQ = gzip ?? any ?? 0;
  if (brQ === 0 && gzipQ === 0) return undefined;
  return brQ >= gzipQ ? 'br' : 'gzip';
});

export function negotiateEncoding(header: string | undefined): ContentCoding | undefined {
  return header === undefined || header === '' ? undefined : negotiateKnownEncoding(header);
}
