/**
 * The files the programme's page loads from Marquee, and nothing else does: its stylesheet, its
 * icon, the script by which a framed page tells its height, and the script a cinema's own page
 * loads to fit the frame to it. Each is read once, with its ETag and compressed forms; the page links to each
 * with its digest in the query (`?v=`), so that a browser may keep it for a year.
 */
import { hash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Representation } from '../formats/representation.js';

/** Where the files are, from the compiled module in `dist/src/showtimes/`. */
const DIRECTORY = new URL('../../../assets/whats-on/', import.meta.url);

export interface PageAsset {
  /** Where it is served. */
  readonly path: string;
  readonly contentType: string;
  readonly representation: Representation;
  /** A digest of its bytes: the `v` of the links that may keep it for a year. */
  readonly version: string;
  /** The link to it, with its version. */
  readonly href: string;
}

function asset(name: string, contentType: string): PageAsset {
  const body = readFileSync(new URL(name, DIRECTORY));
  const version = hash('sha256', body, 'base64url').slice(0, 16);
  const path = `/whats-on/${name}`;
  return { path, contentType, representation: new Representation(body), version, href: `${path}?v=${version}` };
}

export const PAGE_STYLESHEET = asset('page.css', 'text/css; charset=utf-8');
/** In a framed page: posts the page's height to the page framing it. */
export const HEIGHT_SCRIPT = asset('embed.js', 'text/javascript; charset=utf-8');
/** On the cinema's own page, beside the frame: fits the frame to the height posted. */
export const FRAME_SCRIPT = asset('frame.js', 'text/javascript; charset=utf-8');

/** The page's icon, so that a browser need not ask for a /favicon.ico that is not there. */
export const PAGE_ICON = asset('icon.svg', 'image/svg+xml');

export const PAGE_ASSETS: readonly PageAsset[] = [PAGE_STYLESHEET, HEIGHT_SCRIPT, FRAME_SCRIPT, PAGE_ICON];
