/**
 * The programme's part of the OpenAPI document (CONTRACT §12, §15): its filters, the schema of its
 * JSON, the calendar and JSON-LD it also answers in, the films coming soon, and every answer each
 * path can give, with examples written by the server's own writers (see `programmeExamples`).
 */
import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifySchema } from 'fastify';
import { MAX_INT32 } from '../catalogue/model.js';
import { ACCESS_TERMS } from '../showtimes/access-terms.js';
import { DEFAULT_DAYS, MAX_DAYS, MAX_VALUES, parseShowtimesQuery, SESSION_CHOICES, type BadFilter } from '../showtimes/showtimes-query.js';
import type { ShowtimesFormat } from '../showtimes/showtimes.js';
import { NO_KEY, otherOrigin } from '../http/access.js';
import { badParameter, NO_SITE } from '../http/http-error.js';
import { CACHE_TAG_HEADERS, notModified, problemDocumentation, REVALIDATION_HEADERS } from './api-schemas.js';
import { programmeExampleName } from './examples.js';
import { featureImages, imageSchema } from './image-schemas.js';

const text = (description: string): TSchema => Type.String({ description });
const nullableText = (description: string): TSchema => Type.Union([Type.String(), Type.Null()], { description: `${description} Null when not known.` });
const timestamp = (description: string): TSchema =>
  Type.String({ format: 'date-time', description: `${description}, in RFC 3339 with the site's UTC offset at that instant, such as \`2026-11-27T19:30:00+13:00\`.` });

const ID = { additionalProperties: false } as const;

const ACCESS_TERM = Type.Unsafe<string>({ type: 'string', enum: [...ACCESS_TERMS] });

/** The shared schemas the programme's answer refers to by name. */
export function showtimesSchemas(): TSchema[] {
  const screen = Type.Object({ id: Type.Integer({ minimum: 1, maximum: MAX_INT32 }), name: text('The screen\'s name.') }, { $id: 'ProgrammeScreen', ...ID, description: 'A screen of the site.' });
  const attribute = Type.Object(
    {
      id: text('The attribute\'s Id.'),
      name: text('What it means, such as `English subtitles`.'),
      shortName: text('A short badge, such as `SUBS`.'),
      fontColor: Type.String({ pattern: '^#[0-9A-Fa-f]{6}$', description: 'The badge\'s text colour, `#` and six hex digits.' }),
      backgroundColor: Type.String({ pattern: '^#[0-9A-Fa-f]{6}$', description: 'The badge\'s background colour.' }),
    },
    { $id: 'ProgrammeAttribute', ...ID, description: 'An attribute of a session, with its badge\'s colours.' },
  );
  const site = Type.Object(
    {
      name: text('The cinema\'s name.'),
      address: Type.Array(Type.String(), { description: 'The address lines given, then the post code.' }),
      country: text('The country.'),
      phone: nullableText('The main phone number.'),
      timeZone: text('The site\'s time zone, an IANA zone such as `Pacific/Auckland`, mapped from its Windows zone.'),
      screens: Type.Array(Type.Ref('ProgrammeScreen'), { description: 'The site\'s screens, by Id.' }),
    },
    { $id: 'ProgrammeSite', ...ID, description: 'The cinema. What it keeps to itself (legal name, tax number, ticket and receipt messages) is never shown.' },
  );
  const session = Type.Object(
    {
      id: Type.Integer({ minimum: 1, maximum: MAX_INT32, description: 'The session\'s Id, as `/v1/session/{id}` knows it.' }),
      day: Type.String({ format: 'date', description: 'Its cinema day, `YYYY-MM-DD`: the day runs from 03:00 to 02:59, so a 00:30 screening belongs to the evening before.' }),
      start: timestamp('When it starts (PreShowStartTime)'),
      featureStart: timestamp('When the feature starts'),
      end: timestamp('When the feature ends (FeatureEndTime)'),
      salesCutOff: timestamp('When sales end'),
      startUtc: Type.String({ format: 'date-time', description: 'When it starts, in UTC: `2026-11-27T06:30:00Z`.' }),
      screen: Type.Ref('ProgrammeScreen'),
      attributes: Type.Array(Type.Ref('ProgrammeAttribute'), { description: 'Its attributes, in the session\'s order.' }),
      access: Type.Array(ACCESS_TERM, {
        description:
          'What its attributes say in one vocabulary, read from their names in common use (`AD`, `CC`, `Subs`, `Autism Friendly`, `Parent & Baby`…) or as the cinema corrected them (`marquee access set`), in the vocabulary\'s order.',
      }),
      subtitleLanguage: Type.Union([Type.String(), Type.Null()], { description: 'The language of its subtitles or captions, a BCP 47 tag such as `en`, when an attribute names one; null otherwise.' }),
      format: Type.Unsafe({ type: 'string', enum: ['2D Film', '2D Digital', '3D Digital', '3D HFR', 'Not a Film'], description: 'The format shown.' }),
      audioLanguage: nullableText('The language it is heard in.'),
      seating: Type.Unsafe({ type: 'string', enum: ['Allocated', 'Select', 'Open'], description: 'How seats are given.' }),
      onSale: Type.Boolean({ description: 'On sale on the web now: Open, sold through WWW, with a booking page, before its sales cut-off.' }),
      bookingUrl: Type.Union([Type.String({ format: 'uri' }), Type.Null()], { description: 'Where tickets are sold, while it is on sale; null otherwise.' }),
      soldOut: Type.Boolean({ description: 'Every ticket is sold.' }),
      fewTicketsLeft: Type.Boolean({ description: 'Few tickets are left.' }),
      seatsAvailable: Type.Integer({ minimum: 0, description: 'Seats still available.' }),
      status: Type.Unsafe({ type: 'string', enum: ['Open', 'Closed', 'Planned'], description: 'The session\'s status.' }),
    },
    { $id: 'ProgrammeSession', ...ID, description: 'A public session. Private sessions, seats sold and held, house seats, price cards and complimentaries are never shown.' },
  );
  const featureMembers = (kind: 'film' | 'package', id: TSchema) => ({
    kind: Type.Literal(kind),
    id,
    title: text('The title.'),
    synopsis: nullableText('The synopsis; null for a package.'),
    genre: nullableText('The genre; null for a package.'),
    rating: nullableText('The censor rating; null for a package.'),
    runtimeMinutes: Type.Integer({ minimum: 0, description: 'The running time in minutes: a package\'s is the sum of its films\'.' }),
    openingDate: Type.Union([Type.String({ format: 'date' }), Type.Null()], { description: 'When the film first showed in the country, `YYYY-MM-DD`; null for a package.' }),
    poster: Type.Union([Type.String({ format: 'uri' }), Type.Null()], { description: 'A large poster; null for a package.' }),
    posterThumbnail: Type.Union([Type.String({ format: 'uri' }), Type.Null()], { description: 'A thumbnail of the poster.' }),
    backdrop: Type.Union([Type.String({ format: 'uri' }), Type.Null()], { description: 'A backdrop image.' }),
    trailer: Type.Union([Type.String({ format: 'uri' }), Type.Null()], { description: 'A trailer video.' }),
    images: featureImages(),
  });
  const sessions = Type.Array(Type.Ref('ProgrammeSession'), { description: 'Its sessions of the answer, by start.' });
  const film = Type.Object(
    {
      ...featureMembers('film', Type.String({ description: 'The film\'s Id, as `/v4/film/{id}` knows it.' })),
      people: Type.Array(
        Type.Object({ name: text('First and last name.'), role: Type.Unsafe({ type: 'string', enum: ['Actor', 'Director', 'Producer'] }) }, { additionalProperties: false }),
        { description: 'The people of the film.' },
      ),
      sessions,
    },
    { $id: 'ProgrammeFilm', ...ID, description: 'A film with its sessions.' },
  );
  const filmPackage = Type.Object(
    {
      ...featureMembers('package', Type.Integer({ minimum: 1, maximum: MAX_INT32, description: 'The package\'s Id, as `/v1/filmpackage/{id}` knows it.' })),
      films: Type.Array(Type.Object({ id: text('The film\'s Id.'), title: text('The film\'s title.') }, { additionalProperties: false }), {
        description: 'The films it shows, in order.',
      }),
      sessions,
    },
    { $id: 'ProgrammePackage', ...ID, description: 'A film package (a double feature, say) with its sessions.' },
  );
  const programme = Type.Object(
    {
      site: Type.Ref('ProgrammeSite'),
      from: Type.String({ format: 'date', description: 'The first cinema day of the answer.' }),
      days: Type.Integer({ minimum: 1, maximum: MAX_DAYS, description: 'How many cinema days it spans.' }),
      features: Type.Array(
        Type.Union([Type.Ref('ProgrammeFilm'), Type.Ref('ProgrammePackage')]),
        { description: 'Each film or package with a session in the answer, by its first session\'s start, then title.' },
      ),
    },
    { $id: 'Programme', ...ID, description: 'The programme: the site, and its films and packages with their sessions.' },
  );
  const comingFilm = Type.Object(
    {
      ...featureMembers('film', Type.String({ description: 'The film\'s Id, as `/v4/film/{id}` knows it.' })),
      people: Type.Array(
        Type.Object({ name: text('First and last name.'), role: Type.Unsafe({ type: 'string', enum: ['Actor', 'Director', 'Producer'] }) }, { additionalProperties: false }),
        { description: 'The people of the film.' },
      ),
      firstSession: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
        description: 'When its first session still to come starts (PreShowStartTime, RFC 3339 with the site\'s offset), or null when only its opening date says it is coming.',
      }),
    },
    { $id: 'ComingFilm', ...ID, description: 'A film coming soon, with the fields of the programme\'s films.' },
  );
  const comingSoon = Type.Object(
    { films: Type.Array(Type.Ref('ComingFilm'), { description: 'By opening date (a film with none last), then title.' }) },
    {
      $id: 'ComingSoon',
      ...ID,
      description:
        'The films not on sale now that will be: an opening date after today, or a session still to come (Planned, or not yet started), and no session on sale on the web now, ' +
        'its own or a package\'s. A Deleted film is never coming soon.',
    },
  );
  return [screen, attribute, site, session, imageSchema(), film, filmPackage, programme, comingFilm, comingSoon];
}

const QUERYSTRING = Type.Object({
  from: Type.Optional(Type.String({ format: 'date', description: 'The first cinema day, `YYYY-MM-DD`. Default: the cinema day now at the site (the day before, until 03:00).' })),
  days: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_DAYS, default: DEFAULT_DAYS, description: 'How many cinema days.' })),
  film: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: MAX_VALUES, description: 'Sessions of any of these films, and of packages that show one. Repeatable.' })),
  screen: Type.Optional(Type.Array(Type.Integer({ minimum: 1, maximum: MAX_INT32 }), { maxItems: MAX_VALUES, description: 'Sessions on any of these screens. Repeatable.' })),
  attribute: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: MAX_VALUES, description: 'Sessions carrying all of these attributes. Repeatable.' })),
  access: Type.Optional(
    Type.Array(ACCESS_TERM, {
      maxItems: MAX_VALUES,
      description: 'Sessions whose attributes say all of these access terms (`audio-description`, `captioned`, `subtitled`, `relaxed`, `parent-and-baby`, `dementia-friendly`). Repeatable.',
    }),
  ),
  sessions: Type.Optional(
    Type.Unsafe<string>({
      type: 'string',
      enum: [...SESSION_CHOICES],
      default: 'on-sale',
      description: '`on-sale`: the sessions on sale on the web now. `all`: every public session of the window, on sale or not, marked so.',
    }),
  ),
});

const ETAG = { type: 'string', description: 'Strong validator of this answer: it changes as a cut-off passes or the day turns, with no import.' };

/** What each path of the programme answers. */
const ANSWERS: Readonly<Record<ShowtimesFormat, { readonly operationId: string; readonly summary: string; readonly description: string; readonly schema: TSchema }>> = {
  json: {
    operationId: 'getProgramme',
    summary: 'The programme',
    description: 'The site and its films and packages with their sessions, in Marquee\'s own JSON (camelCase), times with their UTC offset.',
    schema: Type.Ref('Programme'),
  },
  calendar: {
    operationId: 'getProgrammeCalendar',
    summary: 'The programme as a calendar',
    description:
      'The same sessions as an iCalendar feed (RFC 5545) to subscribe to: one event per session, times in UTC, the booking page as its URL while on sale. ' +
      'A calendar application subscribes to it with the key in the link: `webcal://HOST/programme.ics?key=KEY`.',
    schema: Type.String({ description: 'An iCalendar object, CRLF line ends, lines folded at 75 octets.' }),
  },
  linkedData: {
    operationId: 'getProgrammeLinkedData',
    summary: 'The programme as schema.org JSON-LD',
    description: 'The same sessions as schema.org markup for search engines: a `MovieTheater` whose `event`s are `ScreeningEvent`s of `Movie`s, with `Offer`s while on sale.',
    schema: Type.Object({}, { description: 'A schema.org `MovieTheater` in JSON-LD, its context `https://schema.org`.' }),
  },
};

const FILTERS =
  'Filters: `from` and `days` (cinema days, 03:00 to 02:59), `film`, `screen`, `attribute` and `access` (repeatable), `sessions` (`on-sale` or `all`); a bad value answers 400 naming it, unknown parameters are ignored. ' +
  'A publishable key (`?key=`, or a token header) reads it from web pages: any origin may read the answers, but a key made for some origins refuses the others (403); ' +
  'its answers may be kept by shared caches (`Cache-Control: public, max-age=60` by default).';

/** What a request for 90 days is told. */
const BAD_FILTER = ((bad) => badParameter(bad.parameter, bad.rule, bad.value))(parseShowtimesQuery({ days: '90' }) as BadFilter);

/** What every path of the programme may answer besides its 200. */
const OTHER_ANSWERS = {
  304: notModified(ETAG),
  400: problemDocumentation('A filter has a value it cannot take; the detail names it.', BAD_FILTER),
  401: problemDocumentation('No key or token (once any token exists), an unknown or revoked one, or a secret token in the query string.', NO_KEY),
  403: problemDocumentation('A publishable key from a page of an origin it was not made for.', otherOrigin(['https://cinema.example'], 'https://elsewhere.example')),
  404: problemDocumentation('No site has been imported: the programme needs its time zone.', NO_SITE),
  429: problemDocumentation('The rate limit of the key\'s client address (or of the token) is spent. Carries `Retry-After`.'),
};

/**
 * What the page may answer besides its 200: the programme's problems, and each as a page too, to a
 * request that prefers HTML, as a browser following a link does.
 */
const PAGE_OTHER_ANSWERS = Object.fromEntries(
  Object.entries(OTHER_ANSWERS).map(([status, answer]) => [
    status,
    'content' in answer ? { ...answer, content: { 'text/html': { schema: Type.String({ description: 'A page that says what went wrong: the title and detail of the problem.' }) }, ...answer.content } } : answer,
  ]),
);

const ANSWER_HEADERS = {
  ETag: ETAG,
  'Cache-Control': { type: 'string', description: '`public, max-age=60` to a publishable key (`--programme-cache-control`); else as `--cache-control`.' },
  Vary: { type: 'string', description: 'What chooses the customer (the token headers; the key is in the URL), `Origin` and `Accept-Encoding`.' },
  'Access-Control-Allow-Origin': { type: 'string', description: '`*`: any page may read it.' },
  ...CACHE_TAG_HEADERS,
};

const SECURITY = [{ ProgrammeKey: [] }, { VeeziAccessToken: [] }, { BearerToken: [] }];

/** The schema of a programme path: its filters, headers and every answer it can give. */
export function showtimesOperation(format: ShowtimesFormat, contentType: string): FastifySchema {
  const { operationId, summary, description, schema } = ANSWERS[format];
  const mediaType = contentType.split(';')[0] as string;
  return {
    operationId,
    tags: ['Programme'],
    summary,
    description: `${description} ${FILTERS}`,
    security: SECURITY,
    querystring: QUERYSTRING,
    headers: REVALIDATION_HEADERS,
    response: {
      200: {
        description: 'The programme, as the clock leaves it now.',
        headers: ANSWER_HEADERS,
        content: { [mediaType]: { schema, examples: { [programmeExampleName(format)]: { $ref: `#/components/examples/${programmeExampleName(format)}` } } } },
      },
      ...OTHER_ANSWERS,
    },
  };
}

/** The schema of `/programme/coming-soon`: no filter, the programme's keys, tokens and answers. */
export function comingSoonOperation(): FastifySchema {
  const { 400: _filters, ...answers } = OTHER_ANSWERS;
  return {
    operationId: 'getComingSoon',
    tags: ['Programme'],
    summary: 'The films coming soon',
    description:
      'The films not on sale now that will be, for the "coming soon" part of a cinema\'s site: each with the fields of the programme\'s films, its opening date and its first session still to come. ' +
      'Read with a publishable key or a token, as the programme; the answer changes as sessions go on sale or start and as the day turns, its ETag with it.',
    security: SECURITY,
    headers: REVALIDATION_HEADERS,
    response: {
      200: { description: 'The films coming soon, as the clock leaves them now.', headers: ANSWER_HEADERS, content: { 'application/json': { schema: Type.Ref('ComingSoon') } } },
      ...answers,
    },
  };
}

/** The schema of `/whats-on`: the programme's filters and answers, as a page for people. */
export function pageOperation(): FastifySchema {
  return {
    operationId: 'getProgrammePage',
    tags: ['Programme'],
    summary: 'The programme as a page for people',
    description:
      'The same sessions as an HTML page a cinema links to or frames in its own site: films and packages with their posters, ratings, running times and synopses, ' +
      'their sessions under each cinema day at the cinema\'s own times, each a link to its booking page while on sale, days and weeks as plain links that keep the key and filters. ' +
      'It needs no script, holds the sessions\' schema.org JSON-LD, and loads nothing but its own stylesheet and icon and the posters, resized by Marquee (`/images/…`) at the width the browser needs. ' +
      '`embed=1` answers the programme alone, to be framed: `<iframe src=".../whats-on?key=KEY&embed=1">` and `<script src=".../whats-on/frame.js" async>` beside it fit the frame to the page. ' +
      `A key made for some origins lets only their pages frame it. ${FILTERS}`,
    security: SECURITY,
    querystring: Type.Composite([
      QUERYSTRING,
      Type.Object({
        embed: Type.Optional(Type.Unsafe<string>({ type: 'string', enum: ['0', '1'], default: '0', description: '`1`: the programme alone, without the page\'s header and footer, to be framed.' })),
      }),
    ]),
    headers: REVALIDATION_HEADERS,
    response: {
      200: {
        description: 'The page, as the clock leaves it now.',
        headers: {
          ...ANSWER_HEADERS,
          'Content-Security-Policy': {
            type: 'string',
            description: 'Nothing loads but the page\'s own files and posters, from Marquee; `frame-ancestors` names the key\'s origins, or `*` for a key without any.',
          },
        },
        content: { 'text/html': { schema: Type.String({ description: 'An HTML document.' }) } },
      },
      ...PAGE_OTHER_ANSWERS,
    },
  };
}
