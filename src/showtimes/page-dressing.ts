/**
 * What the page of one catalogue needs beyond a selection, prepared once per catalogue on its
 * first page: the colours of its attribute badges, as a stylesheet put in the page (its content
 * security policy names it by digest, since no `style` attribute may carry them), and the origins
 * of its posters, the only images the page shows.
 */
import { createHash } from 'node:crypto';
import type { AttributeBadge, Feature, Showing } from './showings.js';

/**
 * The picture of a feature the page shows: its poster's thumbnail, else the poster; a package,
 * which has none of its own, shows its first film's that has one.
 */
export function pictureOf(feature: Feature): string | null {
  if (feature.kind === 'film') return feature.posterThumbnail ?? feature.poster;
  for (const film of feature.films) {
    const picture = [film.filmPosterThumbnailUrl, film.filmPosterUrl].find((url) => url !== null && url.trim() !== '');
    if (picture !== undefined) return picture;
  }
  return null;
}

export class PageDressing {
  private constructor(
    private readonly classes: ReadonlyMap<string, string>,
    /** The badges' rules; empty when no session carries an attribute. */
    readonly badgeStyle: string,
    /** The badges' rules as a content security policy names them: by their SHA-256 digest. */
    readonly badgeStyleSource: string,
    /** The origins of the pictures the page may show, sorted. */
    readonly pictureOrigins: readonly string[],
  ) {}

  static of(showings: readonly Showing[]): PageDressing {
    const badges = new Map<string, AttributeBadge>();
    const origins = new Set<string>();
    for (const showing of showings) {
      for (const badge of showing.attributes) badges.set(badge.id, badge);
      const picture = pictureOf(showing.feature);
      if (picture !== null) origins.add(new URL(picture).origin);
    }
    const classes = new Map<string, string>();
    const rules: string[] = [];
    // Colours are `#` and six hex digits, as the import requires: they are written as they are.
    for (const badge of [...badges.values()].sort((a, b) => (a.id < b.id ? -1 : 1))) {
      const name = `badge-${classes.size}`;
      classes.set(badge.id, name);
      rules.push(`.${name}{color:${badge.fontColor};background:${badge.backgroundColor}}`);
    }
    const style = rules.join('');
    return new PageDressing(classes, style, `'sha256-${createHash('sha256').update(style).digest('base64')}'`, [...origins].sort());
  }

  /** The class that gives a badge its colours. */
  badgeClass(id: string): string {
    return this.classes.get(id) as string;
  }
}
