/**
 * Picks a content coding from Accept-Encoding (RFC 9110 §12.5.3): the highest q-value among
 * the codings offered, brotli before gzip on a tie, none when neither is acceptable.
 */
import type { ContentCoding } from '../formats/representation.js';

export function negotiateEncoding(header: string | undefined): ContentCoding | undefined {
  if (header === undefined || header === '') return undefined;
  let br: number | undefined;
  let gzip: number | undefined;
  let any: number | undefined;
  for (const part of header.split(',')) {
    const [name = '', ...parameters] = part.split(';');
    const coding = name.trim().toLowerCase();
    let q = 1;
    for (const parameter of parameters) {
      const [key, value] = parameter.split('=').map((s) => s.trim());
      if (key?.toLowerCase() === 'q') q = /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(value ?? '') ? Number(value) : 0;
    }
    if (coding === 'br') br = q;
    else if (coding === 'gzip' || coding === 'x-gzip') gzip = q;
    else if (coding === '*') any = q;
  }
  const brQ = br ?? any ?? 0;
  const gzipQ = gzip ?? any ?? 0;
  if (brQ === 0 && gzipQ === 0) return undefined;
  return brQ >= gzipQ ? 'br' : 'gzip';
}
