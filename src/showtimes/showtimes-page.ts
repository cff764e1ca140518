/**
 * `/whats-on`: a selection as a page for people, written on the server from the same selection as
 * the programme's other formats. Films and packages each under a heading, with their poster,
 * rating, running time and synopsis, then their sessions under each cinema day; each time is the
 * site's own wall clock, written here and never converted by the visitor's browser, and links to
 * its booking page while it is on sale. Days and weeks are plain links, which carry the visitor's
 * key and filters on; the page needs no script, and holds the selection's schema.org JSON-LD for
 * search engines. Framed (`embed`), it is the programme alone, and loads the script that tells the
 * framing page its height. Each time says its access terms in words (CONTRACT §15), a link per term
 * keeps only those screenings, and the films coming soon follow the week.
 */
import type { PictureDirectory } from '../images/picture-directory.js';
import { languageName, TERM_WORDS, type AccessTerm } from './access-terms.js';
import { addDays, daysBetween } from './cinema-day.js';
import type { ComingFilm } from './coming-soon.js';
import { longDayName, shortDayParts } from './day-names.js';
import { html, raw, type Html } from './html.js';
import { HEIGHT_SCRIPT, PAGE_ICON, PAGE_STYLESHEET } from './page-assets.js';
import type { PageDressing } from './page-dressing.js';
import type { Feature, FeatureSessions, Selection, ShownSession, ShowtimesSite } from './showings.js';
import { showtimesLinkedDataText } from './showtimes-linked-data.js';
import { DEFAULT_DAYS, type ShowtimesQuery } from './showtimes-query.js';

export const PAGE_PATH = '/whats-on';
export const PAGE_CONTENT_TYPE = 'text/html; charset=utf-8';

/** What a page depends on besides its selection: who asked, and how. */
export interface PageVisit {
  /** The publishable key the page was asked with in its query, which its links carry on; none when it came otherwise. */
  readonly key: string | undefined;
  /** Framed in another site's page: the programme alone, without the page's header and footer. */
  readonly embed: boolean;
  /** The scheme and host the page was asked at (`https://marquee.example`), for its canonical address and calendar link. */
  readonly origin: string;
}

export interface PageContext extends PageVisit {
  readonly query: ShowtimesQuery;
  /** The cinema day now at the site. */
  readonly today: string;
  readonly dressing: PageDressing;
  /** The access terms some session of the catalogue carries: a link to each. */
  readonly accessTerms: readonly AccessTerm[];
  /** The films coming soon, listed after the week; none on a page narrowed to films. */
  readonly comingSoon: readonly ComingFilm[];
  readonly pictures: PictureDirectory;
}

/** The posters a page loads at once, first of all; those below them wait until they are scrolled near. */
const EAGER_POSTERS = 3;
/** A poster's proportions until its source is read: a poster's, 2:3. The page's style sets its size. */
const POSTER = { width: 120, height: 180 } as const;
/** The width the page's style gives a poster (page.css), for the browser to choose a rendition before it lays the page out. */
const POSTER_SIZES = '(min-width: 40rem) 8rem, 5rem';
/** The actors a film names at most. */
const ACTORS_NAMED = 3;

/** The window and films a link of the page asks for; its other filters are the page's own. */
interface Target {
  readonly from: string | undefined;
  readonly days: number;
  readonly films: readonly string[];
  /** The access terms it keeps; the page's own unless given. */
  readonly access?: readonly AccessTerm[];
}

/** The query string of a link to the page showing `target`, with the visitor's key and filters. */
function search(context: PageContext, target: Target, embed = context.embed): string {
  const { query } = context;
  const parameters = new URLSearchParams();
  if (context.key !== undefined) parameters.append('key', context.key);
  if (target.from !== undefined) parameters.append('from', target.from);
  if (target.days !== DEFAULT_DAYS) parameters.append('days', String(target.days));
  for (const film of target.films) parameters.append('film', film);
  for (const screen of query.screens) parameters.append('screen', String(screen));
  for (const attribute of query.attributes) parameters.append('attribute', attribute);
  for (const term of target.access ?? query.access) parameters.append('access', term);
  if (query.sessions !== 'on-sale') parameters.append('sessions', query.sessions);
  if (embed) parameters.append('embed', '1');
  const text = parameters.toString();
  return text === '' ? PAGE_PATH : `${PAGE_PATH}?${text}`;
}

/** Links out of a framed page open in the window that frames it, as a link of the cinema's own page would. */
function outward(context: PageContext): Html | false {
  return context.embed && html` target="_top"`;
}

function dayTitle(day: string, today: string): string {
  const name = longDayName(day);
  if (day === today) return `Today, ${name}`;
  return day === addDays(today, 1) ? `Tomorrow, ${name}` : name;
}

function runningTime(minutes: number): string {
  if (minutes < 60) return `${minutes} min`;
  const rest = minutes % 60;
  return rest === 0 ? `${minutes / 60} hr` : `${Math.floor(minutes / 60)} hr ${rest} min`;
}

/** `A`, `A and B`, `A, B and C`. */
function listed(names: readonly string[]): string {
  return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1) as string}`;
}

/** A phone number as a `tel:` link takes it, or undefined when it holds no digit. */
function telephone(phone: string): string | undefined {
  const digits = phone.replace(/[^\d+]/g, '');
  return /\d/.test(digits) ? `tel:${digits}` : undefined;
}

/** `12 Cuba Street, Te Aro, Wellington 6011`. */
function addressOf(site: ShowtimesSite): string {
  const lines = site.addressLines.join(', ');
  return site.postCode === null ? lines : `${lines} ${site.postCode}`;
}

function facts(feature: Feature): Html | false {
  const items: Html[] = [];
  if (feature.rating !== null && feature.rating.trim() !== '') items.push(html`<li class="rating"><span class="visually-hidden">Rated </span>${feature.rating}</li>`);
  if (feature.runtimeMinutes > 0) items.push(html`<li>${runningTime(feature.runtimeMinutes)}</li>`);
  if (feature.genre !== null && feature.genre.trim() !== '') items.push(html`<li>${feature.genre}</li>`);
  return items.length > 0 && html`<ul class="facts">${items}</ul>`;
}

function credits(feature: Feature): Html | false {
  if (feature.kind === 'package') {
    const titles = feature.films.map((film) => film.title);
    const lead = titles.length === 2 ? 'A double bill' : `${titles.length} films`;
    return titles.length > 0 && html`<p class="credits">${lead}: ${listed(titles)}.</p>`;
  }
  const directors = feature.people.filter((person) => person.role === 'Director').map((person) => person.name);
  const actors = [...new Set(feature.people.filter((person) => person.role === 'Actor').map((person) => person.name))].slice(0, ACTORS_NAMED);
  const lines = [directors.length > 0 && `Directed by ${listed(directors)}.`, actors.length > 0 && `With ${listed(actors)}.`].filter((line) => line !== false);
  return lines.length > 0 && html`<p class="credits">${lines.join(' ')}</p>`;
}

function synopsis(feature: Feature): Html[] {
  const paragraphs = (feature.synopsis ?? '').split(/\n+/).map((paragraph) => paragraph.trim()).filter((paragraph) => paragraph !== '');
  return paragraphs.map((paragraph) => html`<p>${paragraph}</p>`);
}

/** A session's access terms in words, read out with its time: `Audio described, English subtitles`. */
function accessWords(showing: ShownSession['showing']): Html | false {
  const words = showing.access.map((term, place) => {
    if (term === 'subtitled' && showing.subtitleLanguage !== null) return `${languageName(showing.subtitleLanguage)} subtitles`;
    return place === 0 ? TERM_WORDS[term] : TERM_WORDS[term].toLowerCase();
  });
  return words.length > 0 && html` <span class="access">${words.join(', ')}</span>`;
}

/** A session: a link to book it while on sale and not sold out, its time and marks otherwise. */
function session(context: PageContext, feature: Feature, shown: ShownSession, screens: boolean): Html {
  const { showing, onSale } = shown;
  const details = html`<time datetime="${showing.start}">${showing.start.slice(11, 16)}</time>${screens && html` <span class="screen">${showing.screen.name}</span>`}${
    showing.format.startsWith('3D') && html` <span class="format">${showing.format.replace(' Digital', '')}</span>`
  }${showing.attributes.map(
    (badge) => html` <span class="badge ${context.dressing.badgeClass(badge.id)}" title="${badge.name}"><span aria-hidden="true">${badge.shortName}</span><span class="visually-hidden">${badge.name}</span></span>`,
  )}${accessWords(showing)}`;
  if (showing.soldOut) return html`<li><span class="session closed">${details} <strong class="mark">Sold out</strong></span></li>`;
  // A session on sale has a booking page: the second test is for the type's sake.
  if (!onSale || showing.url === null) {
    const why = showing.status === 'Planned' ? 'Not yet on sale' : 'Not on sale online';
    return html`<li><span class="session closed">${details} <strong class="mark">${why}</strong></span></li>`;
  }
  return html`<li><a class="session" href="${showing.url}"${outward(context)}><span class="visually-hidden">${feature.title}, ${longDayName(showing.day)}, </span>${details}${
    showing.fewTicketsLeft && html` <strong class="mark few">Few tickets left</strong>`
  }</a></li>`;
}

function featureSection(context: PageContext, { feature, sessions }: FeatureSessions, place: number, screens: boolean): Html {
  const picture = context.pictures.describe(feature.pictures.poster);
  // The title is beside the poster: the picture adds nothing a screen reader should read out. Its
  // box, tinted, stays in place of a picture that cannot be shown.
  const loading = place < EAGER_POSTERS ? html` fetchpriority="high"` : html` loading="lazy"`;
  const poster =
    picture === null
      ? html`<span class="poster"></span>`
      : html`<img class="poster" src="${picture.src}" srcset="${picture.srcset}" sizes="${POSTER_SIZES}" alt="" width="${picture.width ?? POSTER.width}" height="${picture.height ?? POSTER.height}"${loading} decoding="async">`;
  // A film's own page is a link to the same programme narrowed to it; a package is shown with each of its films'.
  const title =
    feature.kind === 'film' && context.query.films.length !== 1
      ? html`<a href="${search(context, { ...context.query, films: [String(feature.id)] })}">${feature.title}</a>`
      : html`${feature.title}`;
  const days: Html[] = [];
  for (let first = 0; first < sessions.length; ) {
    const day = (sessions[first] as ShownSession).showing.day;
    let last = first;
    while (last < sessions.length && (sessions[last] as ShownSession).showing.day === day) last++;
    days.push(html`<h3>${dayTitle(day, context.today)}</h3><ul class="sessions">${sessions.slice(first, last).map((shown) => session(context, feature, shown, screens))}</ul>`);
    first = last;
  }
  const trailer = feature.trailer !== null && html`<p><a href="${feature.trailer}"${outward(context)}>Watch the trailer<span class="visually-hidden"> of ${feature.title}</span></a></p>`;
  return html`<article class="feature">${poster}<div class="head"><h2>${title}</h2>${facts(feature)}</div><div class="text">${synopsis(feature)}${credits(feature)}${trailer}</div><div class="days">${days}</div></article>
`;
}

/**
 * The days to choose from: the week, counted from today, that holds the page's first day, each day
 * a link to that day alone; then the whole week, and the weeks either side.
 */
function dayNavigation(context: PageContext, selection: Selection): Html {
  const { today, query } = context;
  const week = addDays(today, DEFAULT_DAYS * Math.floor(daysBetween(today, selection.from) / DEFAULT_DAYS));
  const link = (from: string, days: number, text: Html): Html => {
    const current = selection.from === from && selection.days === days && html` aria-current="page"`;
    return html`<a href="${search(context, { from: from === today && days === DEFAULT_DAYS ? undefined : from, days, films: query.films })}"${current}>${text}</a>`;
  };
  const days = Array.from({ length: DEFAULT_DAYS }, (_, offset) => {
    const day = addDays(week, offset);
    const { weekday, date } = shortDayParts(day);
    return html`<li>${link(day, 1, html`<span>${day === today ? 'Today' : weekday}</span> <span>${date}</span>`)}</li>`;
  });
  const previous = week > today && html`<li>${link(addDays(week, -DEFAULT_DAYS), DEFAULT_DAYS, html`<span aria-hidden="true">‹ </span>Previous week`)}</li>`;
  return html`<nav class="days-nav" aria-label="Days"><ul class="day-list">${days}</ul><ul class="week-list">${previous}<li>${link(week, DEFAULT_DAYS, html`All week<span class="visually-hidden">, ${windowText(week, DEFAULT_DAYS)}</span>`)}</li><li>${link(
    addDays(week, DEFAULT_DAYS),
    DEFAULT_DAYS,
    html`Next week<span aria-hidden="true"> ›</span>`,
  )}</li></ul></nav>
`;
}

/**
 * A link per access term the catalogue's sessions carry, each keeping only those screenings of the
 * page's days and films, and one back to every screening while a term is kept.
 */
function accessNavigation(context: PageContext): Html | false {
  const { query } = context;
  if (context.accessTerms.length === 0) return false;
  const target = { from: query.from, days: query.days, films: query.films };
  const links = context.accessTerms.map((term) => {
    const current = query.access.length === 1 && query.access[0] === term && html` aria-current="page"`;
    return html`<li><a href="${search(context, { ...target, access: [term] })}"${current}>${TERM_WORDS[term]}</a></li>`;
  });
  const all = query.access.length > 0 && html`<li><a href="${search(context, { ...target, access: [] })}">All screenings</a></li>`;
  return html`<p class="access-title" id="access-title">Show only screenings that are:</p><ul class="access-list" aria-labelledby="access-title">${links}${all}</ul>
`;
}

/** The films coming soon, each with its opening date and first session when known. */
function comingSoonSection(films: readonly ComingFilm[], today: string): Html | false {
  const items = films.map(({ feature, firstSession }) => {
    const opens = feature.openingDate !== null && feature.openingDate > today && html`<p>Opens ${longDayName(feature.openingDate)}.</p>`;
    const first =
      firstSession !== null &&
      html`<p>First session ${longDayName(firstSession.day)}, <time datetime="${firstSession.start}">${firstSession.start.slice(11, 16)}</time>.</p>`;
    return html`<li><h3>${feature.title}</h3>${facts(feature)}${opens}${first}</li>`;
  });
  return films.length > 0 && html`<section class="coming-soon" aria-labelledby="coming-soon-title"><h2 id="coming-soon-title">Coming soon</h2><ul class="coming-list">${items}</ul></section>
`;
}

/** `Friday 27 November to Thursday 3 December`. */
function windowText(from: string, days: number): string {
  return days === 1 ? longDayName(from) : `${longDayName(from)} to ${longDayName(addDays(from, days - 1))}`;
}

function zoneText(site: ShowtimesSite): string {
  return site.country.trim() === '' ? `Times are the cinema’s local times (${site.timeZone}).` : `Times are the cinema’s local times, in ${site.country} (${site.timeZone}).`;
}

function pageTitle(selection: Selection, context: PageContext): string {
  const film = context.query.films.length === 1 ? selection.features.find((shown) => shown.feature.kind === 'film') : undefined;
  return film === undefined ? `What’s on at ${selection.site.name}` : `${film.feature.title} at ${selection.site.name}`;
}

function header(site: ShowtimesSite): Html {
  const tel = site.phone === null ? undefined : telephone(site.phone);
  const phone = site.phone !== null && html` <span>${tel === undefined ? site.phone : html`<a href="${tel}">${site.phone}</a>`}</span>`;
  return html`<a class="skip-link" href="#programme">Skip to the programme</a>
<header class="site-header"><div class="width"><h1><span class="caption">What’s on at</span> ${site.name}</h1><p class="contact"><span>${addressOf(site)}</span>${phone}</p></div></header>
`;
}

function footer(context: PageContext, selection: Selection): Html {
  const calendar = `${context.origin.replace(/^https?:/, 'webcal:')}/programme.ics${search(context, { from: context.query.from, days: selection.days, films: context.query.films }, false).slice(PAGE_PATH.length)}`;
  return html`<footer class="site-footer"><div class="width"><p>${selection.site.name}, ${addressOf(selection.site)}</p><p><a href="${calendar}">Add these sessions to your calendar</a></p></div></footer>
`;
}

export function showtimesPage(selection: Selection, context: PageContext): string {
  const { site } = selection;
  const screens = site.screens.length > 1;
  const title = pageTitle(selection, context);
  const canonical = `${context.origin}${search(context, { from: context.query.from, days: context.query.days, films: context.query.films }, false)}`;
  const description = `Films and session times at ${site.name}, ${addressOf(site)}: ${windowText(selection.from, selection.days)}.`;
  const afterMidnight = selection.features.some(({ sessions }) => sessions.some(({ showing }) => showing.start.slice(0, 10) !== showing.day));
  const features = selection.features.map((shown, place) => featureSection(context, shown, place, screens));
  const allFilms = context.query.films.length > 0 && html`<p><a href="${search(context, { from: context.query.from, days: selection.days, films: [] })}">All films</a></p>`;
  const kind = context.query.access.length > 0 ? `${context.query.access.map((term) => TERM_WORDS[term].toLowerCase()).join(' and ')} ` : '';
  const empty = context.query.films.length > 0 ? `No ${kind}session of this film is on sale on these days.` : `No ${kind}session is on sale on these days.`;
  const page = html`<!doctype html>
<html lang="en" dir="ltr" class="${context.embed ? 'embed' : 'page'}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${title}</title>
<meta name="description" content="${description}">
<link rel="canonical" href="${canonical}">
<link rel="stylesheet" href="${PAGE_STYLESHEET.href}">
<link rel="icon" href="${PAGE_ICON.href}" type="image/svg+xml">
${context.dressing.badgeStyle !== '' && html`<style>${raw(context.dressing.badgeStyle)}</style>
`}${context.embed ? html`<script src="${HEIGHT_SCRIPT.href}" defer></script>` : html`<script type="application/ld+json">${raw(showtimesLinkedDataText(selection, context.pictures))}</script>`}
</head>
<body>
${!context.embed && header(site)}<div class="width">
${dayNavigation(context, selection)}<main id="programme" tabindex="-1">
${context.embed && html`<h1 class="visually-hidden">${title}</h1>
`}<p class="window">${windowText(selection.from, selection.days)}</p>
<p class="lead">${zoneText(site)}${afterMidnight && ' A time after midnight is listed under the evening before.'}${selection.features.length > 0 && ' Choose a time to book.'}</p>
${accessNavigation(context)}${allFilms}${features.length === 0 ? html`<p class="empty">${empty}</p>` : features}${comingSoonSection(context.comingSoon, context.today)}</main>
</div>
${!context.embed && footer(context, selection)}</body>
</html>
`;
  return page.text;
}
