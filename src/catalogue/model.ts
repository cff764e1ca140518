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

/** One customer's whole catalogue, as stored. */
export interface Catalogue {
  readonly films: readonly Film[];
  readonly packages: readonly FilmPackage[];
}

export const DEFAULT_CUSTOMER = 'default';
export const CUSTOMER_KEY_PATTERN = /^[a-z0-9-]{1,64}$/;
export const MAX_INT32 = 2_147_483_647;
export const MIN_INT32 = -2_147_483_648;
