/**
 * The content security policy of the programme's page. The page loads its stylesheet and, framed,
 * its one script from Marquee, the catalogue's posters from their own origins, and nothing else:
 * no inline script or style but the badges' stylesheet, named by its digest, and no eval. It may
 * be framed by the pages of its key's origins when the key names some; by any page otherwise, as
 * a page made to be embedded in any cinema's site must be.
 */
import type { PageDressing } from './page-dressing.js';

export function pagePolicy(dressing: PageDressing, embed: boolean, frameOrigins: readonly string[]): string {
  const styles = dressing.badgeStyle === '' ? "'self'" : `'self' ${dressing.badgeStyleSource}`;
  return [
    "default-src 'none'",
    `style-src ${styles}`,
    // Only a framed page runs a script; the JSON-LD of the other is data, which no policy runs.
    embed && "script-src 'self'",
    `img-src ${dressing.pictureOrigins.length === 0 ? "'none'" : dressing.pictureOrigins.join(' ')}`,
    "base-uri 'none'",
    "form-action 'none'",
    `frame-ancestors ${frameOrigins.length === 0 ? '*' : frameOrigins.join(' ')}`,
  ]
    .filter((directive) => directive !== false)
    .join('; ');
}
