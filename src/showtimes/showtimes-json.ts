/**
 * `/programme`: Marquee's own JSON of a selection (CONTRACT §12), camelCase, in the contract's
 * order; and `/programme/coming-soon` (§15), the films coming soon with the same fields.
 */
import type { PictureDirectory } from '../images/picture-directory.js';
import type { ComingSelection } from './coming-soon.js';
import type { Feature, FeatureSessions, Selection, ShownSession, ShowtimesSite } from './showings.js';

/** A feature's own fields, as the programme and the coming-soon list give them. */
function featureFields(feature: Feature, pictures: PictureDirectory): object {
  const common = {
    kind: feature.kind,
    id: feature.id,
    title: feature.title,
    synopsis: feature.synopsis,
    genre: feature.genre,
    rating: feature.rating,
    runtimeMinutes: feature.runtimeMinutes,
    openingDate: feature.openingDate,
    poster: feature.poster,
    posterThumbnail: feature.posterThumbnail,
    backdrop: feature.backdrop,
    trailer: feature.trailer,
    images: { poster: pictures.describe(feature.pictures.poster), backdrop: pictures.describe(feature.pictures.backdrop) },
  };
  const members = feature.kind === 'film' ? { people: feature.people } : { films: feature.films.map((film) => ({ id: film.id, title: film.title })) };
  return { ...common, ...members };
}

function featureJson(feature: Feature, sessions: readonly ShownSession[], pictures: PictureDirectory): object {
  return { ...featureFields(feature, pictures), sessions: sessions.map(sessionJson) };
}

function sessionJson({ showing, onSale }: ShownSession): object {
  return {
    id: showing.id,
    day: showing.day,
    start: showing.start,
    featureStart: showing.featureStart,
    end: showing.end,
    salesCutOff: showing.salesCutOff,
    startUtc: new Date(showing.startInstant).toISOString().replace('.000Z', 'Z'),
    screen: showing.screen,
    attributes: showing.attributes,
    access: showing.access,
    subtitleLanguage: showing.subtitleLanguage,
    format: showing.format,
    audioLanguage: showing.audioLanguage,
    seating: showing.seating,
    onSale,
    bookingUrl: onSale ? showing.url : null,
    soldOut: showing.soldOut,
    fewTicketsLeft: showing.fewTicketsLeft,
    seatsAvailable: showing.seatsAvailable,
    status: showing.status,
  };
}

function siteJson(site: ShowtimesSite): object {
  return {
    name: site.name,
    address: site.postCode === null ? site.addressLines : [...site.addressLines, site.postCode],
    country: site.country,
    phone: site.phone,
    timeZone: site.timeZone,
    screens: site.screens,
  };
}

export function showtimesJson({ site, from, days, features }: Selection, pictures: PictureDirectory): string {
  return JSON.stringify({ site: siteJson(site), from, days, features: features.map(({ feature, sessions }: FeatureSessions) => featureJson(feature, sessions, pictures)) });
}

export function comingSoonJson({ films }: ComingSelection, pictures: PictureDirectory): string {
  return JSON.stringify({ films: films.map(({ feature, firstSession }) => ({ ...featureFields(feature, pictures), firstSession: firstSession?.start ?? null })) });
}
