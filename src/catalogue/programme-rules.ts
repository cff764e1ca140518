/**
 * The rules of the records that make a cinema's programme beside its films and packages
 * (CONTRACT §11): screens, attributes, the site and sessions, each on its own. Whether the
 * records they name exist is a question about the whole catalogue, answered by `ImportCheck`.
 */
import {
  FILM_FORMATS,
  MAX_INT32,
  SALES_CHANNELS,
  SEATINGS,
  SESSION_STATUSES,
  SHOW_TYPES,
  type Attribute,
  type Screen,
  type Session,
  type Site,
} from './model.js';
import { describeValue, type RawRecord } from './raw-record.js';
import { FieldReader, isCalendarDateTime, type ReportRule } from './rules.js';
import { ianaZoneOf } from './site-time.js';

const ID = { required: true, nonEmpty: true, maxLength: 64 } as const;
const REQUIRED = { required: true } as const;
const NAME = { required: true, nonEmpty: true } as const;
const DATE_TIME = { required: true, dateTime: true } as const;
const COLOUR = { required: true, pattern: { test: /^#[0-9A-Fa-f]{6}$/, description: '# and six hex digits' } } as const;

export function readScreen(record: RawRecord, report: ReportRule): Screen {
  const r = new FieldReader(record, report);
  return {
    id: r.integer('Id', 1, MAX_INT32),
    name: r.text('Name', NAME) ?? '',
    screenNumber: r.text('ScreenNumber', NAME) ?? '',
    hasCustomLayout: r.boolean('HasCustomLayout'),
    totalSeats: r.integer('TotalSeats', 0),
    houseSeats: r.integer('HouseSeats', 0),
    wheelChairSeats: r.integer('WheelChairSeats', 0),
  };
}

export function readAttribute(record: RawRecord, report: ReportRule): Attribute {
  const r = new FieldReader(record, report);
  return {
    id: r.text('Id', ID) ?? '',
    description: r.text('Description', REQUIRED) ?? '',
    shortName: r.text('ShortName', REQUIRED) ?? '',
    fontColor: r.text('FontColor', COLOUR) ?? '',
    backgroundColor: r.text('BackgroundColor', COLOUR) ?? '',
    showOnSessionsWithNoComps: r.boolean('ShowOnSessionsWithNoComps'),
  };
}

/** Validates the site; whether its screens exist is checked with the whole import. */
export function readSite(record: RawRecord, report: ReportRule): Site {
  const r = new FieldReader(record, report);
  const screens: number[] = [];
  for (const { item, reader, path } of r.list('Screens')) {
    const id = reader.integer('Id', 1, MAX_INT32);
    if (screens.includes(id)) report(`${path}.Id`, 'must not repeat an earlier screen', describeValue(item['Id']));
    screens.push(id);
  }
  const site: Site = {
    name: r.text('Name', NAME) ?? '',
    shortName: r.text('ShortName', { ...NAME, maxLength: 12 }) ?? '',
    legalName: r.text('LegalName', NAME) ?? '',
    nationalCode: r.text('NationalCode'),
    address1: r.text('Address1'),
    address2: r.text('Address2'),
    address3: r.text('Address3'),
    postCode: r.text('PostCode'),
    phone1: r.text('Phone1'),
    phone2: r.text('Phone2'),
    fax: r.text('Fax'),
    salesTaxRegistration: r.text('SalesTaxRegistration'),
    ticketMessage1: r.text('TicketMessage1'),
    ticketMessage2: r.text('TicketMessage2'),
    receiptMessage1: r.text('ReceiptMessage1'),
    receiptMessage2: r.text('ReceiptMessage2'),
    receiptMessage3: r.text('ReceiptMessage3'),
    receiptMessage4: r.text('ReceiptMessage4'),
    receiptMessage5: r.text('ReceiptMessage5'),
    receiptMessage6: r.text('ReceiptMessage6'),
    timeZoneIdentifier: r.text('TimeZoneIdentifier', NAME) ?? '',
    country: r.text('Country', NAME) ?? '',
    screens,
  };
  if (site.timeZoneIdentifier !== '' && ianaZoneOf(site.timeZoneIdentifier) === undefined) {
    report('TimeZoneIdentifier', 'must be a Windows time zone id that maps to an IANA time zone, such as \'New Zealand Standard Time\'', describeValue(site.timeZoneIdentifier));
  }
  return site;
}

/** Each time that must not come before another: [earlier, later]. */
const TIME_ORDER = [
  ['PreShowStartTime', 'FeatureStartTime'],
  ['FeatureStartTime', 'FeatureEndTime'],
  ['FeatureEndTime', 'CleanupEndTime'],
  ['SalesCutOffTime', 'FeatureEndTime'],
] as const;

/** Validates one session on its own; the records it names are checked with the whole import. */
export function readSession(record: RawRecord, report: ReportRule): Session {
  const r = new FieldReader(record, report);
  const session: Session = {
    id: r.integer('Id', 1, MAX_INT32),
    filmId: r.text('FilmId', { nonEmpty: true, maxLength: 64 }),
    filmPackageId: r.optionalInteger('FilmPackageId', 1, MAX_INT32),
    title: r.text('Title', NAME) ?? '',
    screenId: r.integer('ScreenId', 1, MAX_INT32),
    seating: (r.text('Seating', { required: true, oneOf: SEATINGS }) ?? 'Allocated') as Session['seating'],
    areComplimentariesAllowed: r.boolean('AreComplimentariesAllowed'),
    showType: (r.text('ShowType', { required: true, oneOf: SHOW_TYPES }) ?? 'Public') as Session['showType'],
    salesVia: r.texts('SalesVia', { oneOf: SALES_CHANNELS, unique: true }) as Session['salesVia'][number][],
    status: (r.text('Status', { required: true, oneOf: SESSION_STATUSES }) ?? 'Open') as Session['status'],
    preShowStartTime: r.text('PreShowStartTime', DATE_TIME) ?? '',
    salesCutOffTime: r.text('SalesCutOffTime', DATE_TIME) ?? '',
    ticketsSoldOut: r.boolean('TicketsSoldOut'),
    fewTicketsLeft: r.boolean('FewTicketsLeft'),
    featureStartTime: r.text('FeatureStartTime', DATE_TIME) ?? '',
    featureEndTime: r.text('FeatureEndTime', DATE_TIME) ?? '',
    cleanupEndTime: r.text('CleanupEndTime', DATE_TIME) ?? '',
    seatsAvailable: r.integer('SeatsAvailable', 0),
    seatsHeld: r.integer('SeatsHeld', 0),
    seatsHouse: r.integer('SeatsHouse', 0),
    seatsSold: r.integer('SeatsSold', 0),
    filmFormat: (r.text('FilmFormat', { required: true, oneOf: FILM_FORMATS }) ?? '2D Film') as Session['filmFormat'],
    priceCardName: r.text('PriceCardName'),
    attributes: r.texts('Attributes', { nonEmpty: true, maxLength: 64 }),
    audioLanguage: r.text('AudioLanguage'),
    url: r.text('Url', { nonEmpty: true, url: true }),
  };
  if (session.filmPackageId === null && (record['FilmId'] === null || record['FilmId'] === undefined)) {
    report('FilmId', 'is required when FilmPackageId is null', describeValue(record['FilmId']));
  }
  for (const [earlier, later] of TIME_ORDER) {
    const first = record[earlier];
    const second = record[later];
    // The times share one fixed-width form, so their text orders as they do.
    if (typeof first === 'string' && typeof second === 'string' && isCalendarDateTime(first) && isCalendarDateTime(second) && first > second) {
      report(later, `must not be before ${earlier} (${first})`, describeValue(second));
    }
  }
  return session;
}
