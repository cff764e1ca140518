/**
 * The properties of each record of the API, in JSON order, written out from CONTRACT.md (§3, §11)
 * and the service description's tables, never read from the code's own shape tables: a change
 * of order in those tables must fail the tests, not move their expectations with it.
 */
export const FILM = [
  'Id', 'Title', 'ShortName', 'Synopsis', 'Genre', 'SignageText', 'Distributor', 'LastModifiedDate', 'OpeningDate', 'Rating', 'Status', 'Content',
  'Duration', 'DisplaySequence', 'NationalCode', 'Format', 'IsRestricted', 'People', 'AudioLanguage', 'GovernmentFilmTitle', 'FilmPosterUrl',
  'FilmPosterThumbnailUrl', 'BackdropImageUrl', 'FilmTrailerUrl',
];

/** §11: the v4 film without LastModifiedDate and the four URL fields. */
export const FILM_V1 = [
  'Id', 'Title', 'ShortName', 'Synopsis', 'Genre', 'SignageText', 'Distributor', 'OpeningDate', 'Rating', 'Status', 'Content', 'Duration',
  'DisplaySequence', 'NationalCode', 'Format', 'IsRestricted', 'People', 'AudioLanguage', 'GovernmentFilmTitle',
];

export const PERSON = ['Id', 'FirstName', 'LastName', 'Role'];

export const PACKAGE = ['Id', 'Title', 'Status', 'Films'];

export const PACKAGE_FILM = ['FilmId', 'Title', 'SplitPercent', 'TrailerDuration', 'CleanUpDuration', 'Order'];

export const SESSION = [
  'Id', 'FilmId', 'FilmPackageId', 'Title', 'ScreenId', 'Seating', 'AreComplimentariesAllowed', 'ShowType', 'SalesVia', 'Status', 'PreShowStartTime',
  'SalesCutOffTime', 'TicketsSoldOut', 'FewTicketsLeft', 'FeatureStartTime', 'FeatureEndTime', 'CleanupEndTime', 'SeatsAvailable', 'SeatsHeld',
  'SeatsHouse', 'SeatsSold', 'FilmFormat', 'PriceCardName', 'Attributes', 'AudioLanguage',
];

/** §11: a web session is the session with `Url` as its first property. */
export const WEB_SESSION = ['Url', ...SESSION];

export const SCREEN = ['Id', 'Name', 'ScreenNumber', 'HasCustomLayout', 'TotalSeats', 'HouseSeats', 'WheelChairSeats'];

export const SITE = [
  'Name', 'ShortName', 'LegalName', 'NationalCode', 'Address1', 'Address2', 'Address3', 'PostCode', 'Phone1', 'Phone2', 'Fax', 'SalesTaxRegistration',
  'TicketMessage1', 'TicketMessage2', 'ReceiptMessage1', 'ReceiptMessage2', 'ReceiptMessage3', 'ReceiptMessage4', 'ReceiptMessage5', 'ReceiptMessage6',
  'TimeZoneIdentifier', 'Country', 'Screens',
];

/** One of a site's Screens: `{"Id":1}`. */
export const SITE_SCREEN = ['Id'];

export const ATTRIBUTE = ['Id', 'Description', 'ShortName', 'FontColor', 'BackgroundColor', 'ShowOnSessionsWithNoComps'];

/** The same names in ordinal order, as XML writes them (§4): `FilmPosterThumbnailUrl` before `FilmPosterUrl`. */
export function inXmlOrder(properties: readonly string[]): string[] {
  return [...properties].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
