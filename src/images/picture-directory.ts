/**
 * What the programme asks of the pictures (CONTRACT §13): for a URL a catalogue names, the
 * addresses of its renditions, as HTML's srcset writes them, and the source's size once read.
 */
import type { SourceSize } from '../store/image-repository.js';
import type { PictureSigner } from './picture-signer.js';
import { WIDTH_LADDER } from './rendition.js';

/** A picture as the programme gives it; `width` and `height` are the source's, null until it is read. */
export interface ImageDescription {
  readonly src: string;
  readonly srcset: string;
  readonly width: number | null;
  readonly height: number | null;
}

export interface PictureDirectory {
  /** Grows each time what `describe` answers may have changed, as sources are read. */
  readonly generation: number;
  /** The picture at `url` (a catalogue's URL), or null for none. */
  describe(url: string | null): ImageDescription | null;
}

/** Where no picture is served: the programme names none. */
export const NO_PICTURES: PictureDirectory = { generation: 0, describe: () => null };

/** The width the programme names as `src`: a phone's card at twice its pixels. */
const SRC_WIDTH = 320;

/**
 * The picture at `url`, signed by `signer`, of `size` once known: every width of the ladder
 * until then, then those the source has; a source narrower than the ladder's first is offered
 * at its own width. Null for a URL that is not http or https.
 */
export function describePicture(signer: PictureSigner, url: string | null, size: (url: URL) => SourceSize | undefined): ImageDescription | null {
  const parsed = url === null ? null : URL.parse(url.trim());
  if (parsed === null || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) return null;
  const known = size(parsed);
  const fitting = WIDTH_LADDER.filter((width) => known === undefined || width <= known.width);
  const widths = fitting.length > 0 ? fitting.map((width) => ({ width, shown: width })) : [{ width: WIDTH_LADDER[0], shown: (known as SourceSize).width }];
  const offered = widths.map(({ width, shown }) => ({ address: signer.address(parsed.href, width), width, shown }));
  const src = offered.findLast(({ width }) => width <= SRC_WIDTH) ?? (offered[0] as (typeof offered)[number]);
  return {
    src: src.address,
    srcset: offered.map(({ address, shown }) => `${address} ${shown}w`).join(', '),
    width: known?.width ?? null,
    height: known?.height ?? null,
  };
}
