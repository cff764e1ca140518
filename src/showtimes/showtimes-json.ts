/**
 * `/programme`: Marquee's own JSON of a selection (CONTRACT §12), camelCase, in the contract's
 * order; and `/programme/coming-soon` (§15), the films coming soon with the same fields.
 */
import { hash } from 'node:crypto';
import type { HeldBytes } from '../formats/held-bytes.js';
import { SHA1_BYTES, type TaggedBody } from '../formats/representation.js';
import type { PictureDirectory } from '../images/picture-directory.js';
import type { ComingSelection } from './coming-soon.js';
import type { Feature, Selection, Showing, ShownSession, ShowtimesSite } from './showings.js';

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

/**
 * The JSON bytes of each feature's own fields and of each showing, written on first use and
 * carried from edition to edition of the catalogue for the showings it still has: after a change
 * of one session the programme is joined from them, and only what changed is written, rather than
 * every feature's picture addresses signed again (milliseconds a programme). They are kept as
 * bytes, since joining hundreds of kilobytes of text and encoding it took several times as long
 * as copying bytes. Each text is kept with its digest (see `DigestedJoin`). A feature's bytes are
 * written again once the pictures' sizes known change. `held` counts them, as the edition holds them.
 */
export class ProgrammeTexts {
  private constructor(
    private readonly features: Map<Feature, { readonly pictures: PictureDirectory; readonly generation: number; readonly text: KeptText }>,
    private readonly showings: Map<Showing, { onSale?: KeptText; notOnSale?: KeptText }>,
    private readonly held: HeldBytes,
  ) {}

  static none(held: HeldBytes): ProgrammeTexts {
    return new ProgrammeTexts(new Map(), new Map(), held);
  }

  /** The bytes of `showings` and of their features, for the edition that has them, counted in its `held`. */
  carriedTo(showings: readonly Showing[], held: HeldBytes): ProgrammeTexts {
    const carried = ProgrammeTexts.none(held);
    let bytes = 0;
    for (const showing of showings) {
      const texts = this.showings.get(showing);
      if (texts !== undefined) {
        carried.showings.set(showing, texts);
        bytes += (texts.onSale?.length ?? 0) + (texts.notOnSale?.length ?? 0);
      }
      const feature = this.features.get(showing.feature);
      if (feature !== undefined && !carried.features.has(showing.feature)) {
        carried.features.set(showing.feature, feature);
        bytes += feature.text.length;
      }
    }
    held.add(bytes);
    return carried;
  }

  /** The feature's own fields, as an object's text. */
  feature(feature: Feature, pictures: PictureDirectory): KeptText {
    const kept = this.features.get(feature);
    if (kept !== undefined && kept.pictures === pictures && kept.generation === pictures.generation) return kept.text;
    const text = keptText(JSON.stringify(featureFields(feature, pictures)));
    this.features.set(feature, { pictures, generation: pictures.generation, text });
    this.held.add(text.length - (kept?.text.length ?? 0));
    return text;
  }

  /** The session as one answer shows it: on sale or not. */
  session(shown: ShownSession): KeptText {
    let texts = this.showings.get(shown.showing);
    if (texts === undefined) this.showings.set(shown.showing, (texts = {}));
    const key = shown.onSale ? 'onSale' : 'notOnSale';
    let text = texts[key];
    if (text === undefined) {
      text = texts[key] = keptText(JSON.stringify(sessionJson(shown)));
      this.held.add(text.length);
    }
    return text;
  }
}

/** A text's bytes kept with their digest before them: in one buffer, not two objects, for each of a programme's hundreds. */
type KeptText = Buffer;

function keptText(json: string): KeptText {
  const bytes = Buffer.from(json);
  return Buffer.concat([hash('sha1', bytes, 'buffer'), bytes]);
}

/**
 * An answer joined from kept texts and the bytes between them. Its ETag is the SHA-1 of the same
 * join with each kept text's digest in place of its bytes: after a change of one session, a few
 * kilobytes hashed rather than the whole answer (the week's programme of 168 sessions is 350 KB,
 * 0.3 ms of SHA-1), and it changes exactly when the answer's bytes do.
 */
class DigestedJoin {
  private readonly body: Uint8Array[] = [];
  private readonly digests: Uint8Array[] = [];

  bytes(bytes: Uint8Array): this {
    this.body.push(bytes);
    this.digests.push(bytes);
    return this;
  }

  /** A kept text, less its last `trim` bytes. */
  text(text: KeptText, trim = 0): this {
    this.body.push(text.subarray(SHA1_BYTES, text.length - trim));
    this.digests.push(text.subarray(0, SHA1_BYTES));
    return this;
  }

  joined(): TaggedBody {
    return { body: Buffer.concat(this.body), etag: `"${hash('sha1', Buffer.concat(this.digests), 'base64url')}"` };
  }
}

const COMMA = Buffer.from(',');
const SESSIONS_MEMBER = Buffer.from(',"sessions":[');
const FIRST_SESSION_MEMBER = Buffer.from(',"firstSession":');
const OBJECT_END = Buffer.from('}');
/** The end of an array that is an object's last member, and of the object. */
const ARRAY_MEMBER_END = Buffer.from(']}');
/** An object's closing brace, left off a feature's text for a member to follow its last. */
const CLOSING_BRACE = 1;

/** The selection's JSON, byte for byte what `JSON.stringify` writes of it, joined from the kept texts of its features and sessions. */
export function showtimesJson({ site, from, days, features }: Selection, pictures: PictureDirectory, texts: ProgrammeTexts): TaggedBody {
  const join = new DigestedJoin().bytes(Buffer.from(`{"site":${JSON.stringify(siteJson(site))},"from":${JSON.stringify(from)},"days":${JSON.stringify(days)},"features":[`));
  features.forEach(({ feature, sessions }, index) => {
    if (index > 0) join.bytes(COMMA);
    join.text(texts.feature(feature, pictures), CLOSING_BRACE).bytes(SESSIONS_MEMBER);
    sessions.forEach((shown, place) => {
      if (place > 0) join.bytes(COMMA);
      join.text(texts.session(shown));
    });
    join.bytes(ARRAY_MEMBER_END);
  });
  return join.bytes(ARRAY_MEMBER_END).joined();
}

export function comingSoonJson({ films }: ComingSelection, pictures: PictureDirectory, texts: ProgrammeTexts): TaggedBody {
  const join = new DigestedJoin().bytes(Buffer.from('{"films":['));
  films.forEach(({ feature, firstSession }, index) => {
    if (index > 0) join.bytes(COMMA);
    join.text(texts.feature(feature, pictures), CLOSING_BRACE).bytes(FIRST_SESSION_MEMBER).bytes(Buffer.from(JSON.stringify(firstSession?.start ?? null))).bytes(OBJECT_END);
  });
  return join.bytes(ARRAY_MEMBER_END).joined();
}
