/**
 * What the page of one catalogue needs beyond a selection, prepared once per catalogue on its
 * first page: the colours of its attribute badges, as a stylesheet put in the page (its content
 * security policy names it by digest, since no `style` attribute may carry them), and that policy.
 * The page loads its stylesheet, its posters (Marquee's renditions of them) and, framed, its one
 * script from Marquee, and nothing else: no inline script or style but the badges' stylesheet,
 * and no eval. It may be framed by the pages of its key's origins when the key names some; by any
 * page otherwise, as a page made to be embedded in any cinema's site must be.
 */
import { createHash } from 'node:crypto';
import type { AttributeBadge, Showing } from './showings.js';

export class PageDressing {
  private constructor(
    private readonly classes: ReadonlyMap<string, string>,
    /** The badges' rules; empty when no session carries an attribute. */
    readonly badgeStyle: string,
    /** The policy but its `frame-ancestors`, of the whole page and of the framed one. */
    private readonly policies: { readonly page: string; readonly embed: string },
  ) {}

  static of(showings: readonly Showing[]): PageDressing {
    const badges = new Map<string, AttributeBadge>();
    for (const showing of showings) for (const badge of showing.attributes) badges.set(badge.id, badge);
    const classes = new Map<string, string>();
    const rules: string[] = [];
    // Colours are `#` and six hex digits, as the import requires: they are written as they are.
    for (const badge of [...badges.values()].sort((a, b) => (a.id < b.id ? -1 : 1))) {
      const name = `badge-${classes.size}`;
      classes.set(badge.id, name);
      rules.push(`.${name}{color:${badge.fontColor};background:${badge.backgroundColor}}`);
    }
    const style = rules.join('');
    const styles = style === '' ? "'self'" : `'self' 'sha256-${createHash('sha256').update(style).digest('base64')}'`;
    const policy = (embed: boolean): string =>
      [
        "default-src 'none'",
        `style-src ${styles}`,
        // Only a framed page runs a script; the JSON-LD of the other is data, which no policy runs.
        embed && "script-src 'self'",
        "img-src 'self'",
        // Nothing on the page fetches; a crawler's script (Lighthouse's) reads /robots.txt so.
        "connect-src 'self'",
        "base-uri 'none'",
        "form-action 'none'",
      ]
        .filter((directive) => directive !== false)
        .join('; ');
    return new PageDressing(classes, style, { page: policy(false), embed: policy(true) });
  }

  /** The class that gives a badge its colours. */
  badgeClass(id: string): string {
    return this.classes.get(id) as string;
  }

  /** The content security policy of the page, framed (`embed`) or not, which the pages of `frameOrigins` may frame, or any page when there is none. */
  policy(embed: boolean, frameOrigins: readonly string[]): string {
    return `${embed ? this.policies.embed : this.policies.page}; frame-ancestors ${frameOrigins.length === 0 ? '*' : frameOrigins.join(' ')}`;
  }
}
