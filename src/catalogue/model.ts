/** The catalogue's records as the rest of the code sees them, free of any wire or row shape. */

export const STATUSES = ['Active', 'Inactive', 'Deleted'] as const;
export type Status = (typeof STATUSES)[number];

export const FILM_FORMATS = ['2D Film', '2D Digital', '3D Digital', '3D HFR', 'Not a Film'] as const;
export type FilmFormat = (typeof FILM_FORMATS)[number];

export const ROLES = ['Actor', 'Director', 'Producer'] as const;
export type Role = (typeof ROLES)[number];

export interface Person {
  readonly id: string;
  readonly firstName: string | null;
  readonly lastName: string | null;
  readonly role: Role;
}

export interface Film {
  readonly id: string;
  readonly title: string;
  readonly shortName: string | null;
  readonly synopsis: string | null;
  readonly genre: string | null;
  readonly signageText: string | null;
  readonly distributor: string | null;
  /** `yyyy-mm-ddThh:mm:ss`, as validated on import. */
  readonly lastModifiedDate: string;
  readonly openingDate: string | null;
  readonly rating: string | null;
  readonly status: Status;
  readonly content: string | null;
  readonly duration: number;
  readonly displaySequence: number;
  readonly nationalCode: string | null;
  readonly format: FilmFormat;
  readonly isRestricted: boolean;
  readonly people: readonly Person[];
  readonly audioLanguage: string | null;
  readonly governmentFilmTitle: string | null;
  readonly filmPosterUrl: string | null;
  readonly filmPosterThumbnailUrl: string | null;
  readonly backdropImageUrl: string | null;
  readonly filmTrailerUrl: string | null;
}

export interface PackageFilm {
  readonly filmId: string;
  readonly title: string;
  /** SplitPercent in millionths of a percent: 33.333334 % is 33_333_334. Exact, never a float. */
  readonly splitMillionths: number;
  readonly trailerDuration: number;
  readonly cleanUpDuration: number;
  readonly order: number;
}

export interface FilmPackage {
  readonly id: number;
  readonly title: string;
  readonly status: Status;
  /** Sorted by `order`, 1 first. */
  readonly films: readonly PackageFilm[];
}

export interface Screen {
  readonly id: number;
  readonly name: string;
  readonly screenNumber: string;
  readonly hasCustomLayout: boolean;
  readonly totalSeats: number;
  readonly houseSeats: number;
  readonly wheelChairSeats: number;
}

/** A feature of a session shown to customers, such as "Subtitled". */
export interface Attribute {
  readonly id: string;
  readonly description: string;
  readonly shortName: string;
  /** `#` and six hex digits, in the case imported. */
  readonly fontColor: string;
  readonly backgroundColor: string;
  readonly showOnSessionsWithNoComps: boolean;
}

/** The cinema itself: one per customer. */
export interface Site {
  readonly name: string;
  readonly shortName: string;
  readonly legalName: string;
  readonly nationalCode: string | null;
  readonly address1: string | null;
  readonly address2: string | null;
  readonly address3: string | null;
  readonly postCode: string | null;
  readonly phone1: string | null;
  readonly phone2: string | null;
  readonly fax: string | null;
  readonly salesTaxRegistration: string | null;
  readonly ticketMessage1: string | null;
  readonly ticketMessage2: string | null;
  readonly receiptMessage1: string | null;
  readonly receiptMessage2: string | null;
  readonly receiptMessage3: string | null;
  readonly receiptMessage4: string | null;
  readonly receiptMessage5: string | null;
  readonly receiptMessage6: string | null;
  /** A Windows time zone id, such as `New Zealand Standard Time`, that maps to an IANA zone. */
  readonly timeZoneIdentifier: string;
  readonly country: string;
  /** Ids of the site's screens, by Id. */
  readonly screens: readonly number[];
}

export const SEATINGS = ['Allocated', 'Select', 'Open'] as const;
export const SHOW_TYPES = ['Public', 'Private'] as const;
export const SALES_CHANNELS = ['WWW', 'POS', 'KIOSK', 'MX', 'RSP'] as const;
export const SESSION_STATUSES = ['Open', 'Closed', 'Planned'] as const;

/** A showing of a film or a package on a screen. Times are the site's wall-clock time, `yyyy-mm-ddThh:mm:ss`. */
export interface Session {
  readonly id: number;
  /** Null only for a package session. */
  readonly filmId: string | null;
  readonly filmPackageId: number | null;
  readonly title: string;
  readonly screenId: number;
  readonly seating: (typeof SEATINGS)[number];
  readonly areComplimentariesAllowed: boolean;
  readonly showType: (typeof SHOW_TYPES)[number];
  /** In the order imported, no repeats. */
  readonly salesVia: readonly (typeof SALES_CHANNELS)[number][];
  readonly status: (typeof SESSION_STATUSES)[number];
  readonly preShowStartTime: string;
  readonly salesCutOffTime: string;
  readonly ticketsSoldOut: boolean;
  readonly fewTicketsLeft: boolean;
  readonly featureStartTime: string;
  readonly featureEndTime: string;
  readonly cleanupEndTime: string;
  readonly seatsAvailable: number;
  readonly seatsHeld: number;
  readonly seatsHouse: number;
  readonly seatsSold: number;
  readonly filmFormat: FilmFormat;
  readonly priceCardName: string | null;
  /** Attribute ids, in the order imported. */
  readonly attributes: readonly string[];
  readonly audioLanguage: string | null;
  /** Where the web sells tickets for the session; null when the web does not sell them. */
  readonly url: string | null;
}

/** One customer's whole catalogue, as stored. */
export interface Catalogue {
  readonly films: readonly Film[];
  readonly packages: readonly FilmPackage[];
  readonly screens: readonly Screen[];
  readonly attributes: readonly Attribute[];
  /** Null until a site is imported. */
  readonly site: Site | null;
  readonly sessions: readonly Session[];
}

/** How many films, packages and sessions a catalogue has. */
export interface RecordCounts {
  readonly films: number;
  readonly packages: number;
  readonly sessions: number;
}

export const DEFAULT_CUSTOMER = 'default';
export const CUSTOMER_KEY_PATTERN = /^[a-z0-9-]{1,64}$/;
/** The pattern, as error messages tell it. */
export const CUSTOMER_KEY_RULE = '1 to 64 of a-z, 0-9 and -';
export const MAX_INT32 = 2_147_483_647;
export const MIN_INT32 = -2_147_483_648;
