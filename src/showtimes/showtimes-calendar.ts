/**
 * `/programme.ics`: a selection as an iCalendar object (RFC 5545) to subscribe to, one event per
 * session, its times in UTC so that no calendar needs the site's zone to place them, its access
 * terms (CONTRACT §15) as its CATEGORIES.
 */
import { PACKAGE_VERSION } from '../package-version.js';
import type { Selection } from './showings.js';

/** How often a subscribed calendar should read the feed again: sessions go on and off sale through the day. */
const REFRESH = 'PT1H';
const MAX_LINE_OCTETS = 75;

/** A TEXT value (RFC 5545 §3.3.11): backslash, semicolon, comma and line breaks escaped. */
export function escapeText(text: string): string {
  return text.replace(/[\\;,]/g, (character) => `\\${character}`).replace(/\r\n|\r|\n/g, '\\n');
}

/**
 * A content line folded after at most 75 octets (RFC 5545 §3.1), each continuation beginning with
 * a space, never within a character's UTF-8 bytes.
 */
export function foldLine(line: string): string {
  if (Buffer.byteLength(line) <= MAX_LINE_OCTETS) return line;
  const parts: string[] = [];
  let part = '';
  let octets = 0;
  for (const character of line) {
    const size = Buffer.byteLength(character);
    // Each continuation's leading space counts towards its 75 octets.
    if (octets + size > MAX_LINE_OCTETS) {
      parts.push(part);
      part = ' ';
      octets = 1;
    }
    part += character;
    octets += size;
  }
  parts.push(part);
  return parts.join('\r\n');
}

/** A UTC date-time (RFC 5545 §3.3.5, form 2): `20261127T063000Z`. */
export function utcDateTime(instant: number): string {
  return new Date(instant).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}Z$/, 'Z');
}

export interface CalendarContext {
  /** The customer's key: with a session's id, an event's UID, unique and stable. */
  readonly customer: string;
  /** When the catalogue last changed: the events' DTSTAMP, so that a feed changes only when its events do. */
  readonly changedAt: Date;
}

export function showtimesCalendar(selection: Selection, { customer, changedAt }: CalendarContext): string {
  const { site } = selection;
  const stamp = utcDateTime(changedAt.getTime());
  const lines = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    `PRODID:-//Marquee//Marquee ${PACKAGE_VERSION}//EN`,
    'CALSCALE:GREGORIAN',
    'METHOD:PUBLISH',
    `X-WR-CALNAME:${escapeText(site.name)}`,
    `X-WR-TIMEZONE:${site.timeZone}`,
    `REFRESH-INTERVAL;VALUE=DURATION:${REFRESH}`,
    `X-PUBLISHED-TTL:${REFRESH}`,
  ];
  for (const { feature, sessions } of selection.features) {
    for (const { showing, onSale } of sessions) {
      lines.push(
        'BEGIN:VEVENT',
        `UID:${showing.id}.${customer}@marquee`,
        `DTSTAMP:${stamp}`,
        `DTSTART:${utcDateTime(showing.startInstant)}`,
      );
      // DTEND must come after DTSTART (RFC 5545 §3.8.2.2); with none, an event lasts no time.
      if (showing.endInstant > showing.startInstant) lines.push(`DTEND:${utcDateTime(showing.endInstant)}`);
      lines.push(`SUMMARY:${escapeText(feature.title)}`, `LOCATION:${escapeText(`${site.name}, ${showing.screen.name}`)}`);
      // The access terms are the vocabulary's own words, which need no escaping.
      if (showing.access.length > 0) lines.push(`CATEGORIES:${showing.access.join(',')}`);
      // A URL is a URI value, not TEXT: written as WHATWG serializes it, with what no URI holds (a
      // space, a quote, a line break) escaped, so that it can never end its line.
      const url = onSale && showing.url !== null ? URL.parse(showing.url)?.href : undefined;
      if (url !== undefined) lines.push(`URL:${url}`);
      if (feature.synopsis !== null && feature.synopsis !== '') lines.push(`DESCRIPTION:${escapeText(feature.synopsis)}`);
      lines.push('END:VEVENT');
    }
  }
  lines.push('END:VCALENDAR');
  return `${lines.map(foldLine).join('\r\n')}\r\n`;
}
