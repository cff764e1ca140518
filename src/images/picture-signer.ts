/**
 * The addresses of a source's renditions: `images/SOURCE/WIDTH/SIGNATURE`, the source's URL
 * written in base64url and signed with its width by a secret every server of the database shares.
 * Any server answers any address another handed out, with no record of which it handed out;
 * an address Marquee did not make (another source, another width, a changed letter) is known
 * for one at once, and nothing is read for it: Marquee is never an open proxy.
 */
import { createHmac, hash, timingSafeEqual } from 'node:crypto';
import { WIDTH_LADDER } from './rendition.js';

/** Where renditions are served; the programme's addresses are relative to its own, at the root. */
export const IMAGES_PATH = 'images';
/** 128 bits of the HMAC: more than anyone can guess. */
const SIGNATURE_BYTES = 16;

/** The identity of a source: a digest of its URL, under which it is kept. */
export function sourceId(url: string): string {
  return hash('sha256', url, 'base64url');
}

export class PictureSigner {
  constructor(private readonly secret: string) {}

  /** The address of `url` at `width`, relative to the programme's. */
  address(url: string, width: number): string {
    return `${IMAGES_PATH}/${Buffer.from(url).toString('base64url')}/${width}/${this.signature(url, width).toString('base64url')}`;
  }

  /** The source and width of an address this signer made, or undefined for any other. */
  verify(source: string, width: string, signature: string): { readonly url: URL; readonly width: number } | undefined {
    const ladderWidth = WIDTH_LADDER.find((step) => String(step) === width);
    if (ladderWidth === undefined) return undefined;
    const text = Buffer.from(source, 'base64url').toString();
    const given = Buffer.from(signature, 'base64url');
    // Node's decoder passes over what base64url does not hold (`=`, `+`, a last letter's unused bits): only the letters as encoded are an address.
    if (Buffer.from(text).toString('base64url') !== source || given.toString('base64url') !== signature) return undefined;
    const expected = this.signature(text, ladderWidth);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    const url = URL.parse(text);
    return url === null ? undefined : { url, width: ladderWidth };
  }

  private signature(url: string, width: number): Buffer {
    return createHmac('sha256', this.secret).update(`${width} ${url}`).digest().subarray(0, SIGNATURE_BYTES);
  }
}
