/**
 * `/programme.jsonld`: a selection as schema.org JSON-LD, the markup search engines read: a
 * `MovieTheater` whose `event`s are `ScreeningEvent`s of `Movie`s, with the language of their
 * subtitles and their access terms (CONTRACT §15). The types come from
 * schema-dts, generated from schema.org's own vocabulary, so that a type or property schema.org
 * does not define, or a value it does not take, is a compile error.
 */
import type { ItemAvailability, MovieLeaf, MovieTheaterLeaf, PostalAddressLeaf, ScreeningEventLeaf, WithContext } from 'schema-dts';
import type { Film } from '../catalogue/model.js';
import type { PictureDirectory } from '../images/picture-directory.js';
import { filmPictures, type Selection, type Showing, type ShowtimesSite } from './showings.js';

/** A schema.org node whose properties may be unknown (undefined) as it is written. */
type Known<Node> = { [Property in keyof Node]?: Node[Property] | undefined };

/** The node without its unknown properties: schema.org reads an absent property as unknown, an empty one as a value. */
function node<Node extends object>(properties: Known<Node>): Node {
  return Object.fromEntries(Object.entries(properties).filter(([, value]) => value !== undefined)) as Node;
}

/** A text as schema.org takes it: undefined when there is none. */
function text(value: string | null): string | undefined {
  return value === null || value === '' ? undefined : value;
}

function postalAddress(site: ShowtimesSite): PostalAddressLeaf {
  return node<PostalAddressLeaf>({
    '@type': 'PostalAddress',
    streetAddress: text(site.addressLines.join(', ')),
    postalCode: text(site.postCode),
    addressCountry: site.country,
  });
}

function movie(film: Film, pictures: PictureDirectory): MovieLeaf {
  const trailer = text(film.filmTrailerUrl);
  return node<MovieLeaf>({
    '@type': 'Movie',
    name: film.title,
    duration: `PT${film.duration}M`,
    contentRating: text(film.rating),
    image: pictures.describe(filmPictures(film).poster)?.src,
    trailer: trailer === undefined ? undefined : { '@type': 'VideoObject', name: `${film.title} (trailer)`, contentUrl: trailer },
  });
}

function availability(showing: Showing): ItemAvailability {
  if (showing.soldOut) return 'https://schema.org/SoldOut';
  return showing.fewTicketsLeft ? 'https://schema.org/LimitedAvailability' : 'https://schema.org/InStock';
}

/**
 * The selection as JSON-LD text that a page may put in a `<script type="application/ld+json">`
 * as it is, as the programme's guide advises and the page does: no `<` in it can close the
 * element or open a comment (each is written `\u003c`, the same JSON).
 */
export function showtimesLinkedDataText(selection: Selection, pictures: PictureDirectory): string {
  return JSON.stringify(showtimesLinkedData(selection, pictures)).replace(/</g, '\\u003c');
}

function showtimesLinkedData(selection: Selection, pictures: PictureDirectory): WithContext<MovieTheaterLeaf> {
  const { site } = selection;
  const address = postalAddress(site);
  // Each event names its theatre with its address, as search engines require of an event's location.
  const location: MovieTheaterLeaf = { '@type': 'MovieTheater', name: site.name, address };
  const events = selection.features.flatMap(({ feature, sessions }) =>
    sessions.map(({ showing, onSale }) =>
      node<ScreeningEventLeaf>({
        '@type': 'ScreeningEvent',
        name: feature.title,
        startDate: showing.start,
        endDate: showing.end,
        location,
        // A package presents its films; a film, itself.
        workPresented: feature.kind === 'film' ? movie(feature.films[0] as Film, pictures) : feature.films.map((film) => movie(film, pictures)),
        videoFormat: showing.format,
        inLanguage: text(showing.audioLanguage),
        subtitleLanguage: showing.subtitleLanguage ?? undefined,
        // schema.org's accessibility properties (accessibilityFeature) describe a creative work, not
        // one screening of it: an event's terms go in its keywords.
        keywords: showing.access.length > 0 ? [...showing.access] : undefined,
        eventStatus: 'https://schema.org/EventScheduled',
        offers: onSale && showing.url !== null ? { '@type': 'Offer', url: showing.url, availability: availability(showing) } : undefined,
      }),
    ),
  );
  return {
    '@context': 'https://schema.org',
    ...node<MovieTheaterLeaf>({ '@type': 'MovieTheater', name: site.name, address, telephone: text(site.phone), screenCount: site.screens.length, event: events }),
  };
}
