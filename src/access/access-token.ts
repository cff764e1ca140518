/**
 * Access tokens: random secrets shown once when issued. Only their SHA-256 digest is stored and
 * compared, so neither the database nor its backups can give a token away.
 */
import { hash, randomBytes } from 'node:crypto';

/**
 * A secret token reads the whole catalogue and is kept on servers; a publishable key reads only
 * the programme (CONTRACT §12) and is made to sit in web pages, calendar links and apps.
 */
export const TOKEN_KINDS = ['secret', 'publishable'] as const;
export type TokenKind = (typeof TOKEN_KINDS)[number];

/** Tells a Marquee token and its kind apart in configuration files, page sources and to secret scanners. */
const TOKEN_PREFIXES: Readonly<Record<TokenKind, string>> = { secret: 'mq_', publishable: 'mq_pub_' };
/** 256 bits of entropy: no token can be guessed, whatever the number of tries. */
const TOKEN_BYTES = 32;
const MAX_LABEL_LENGTH = 100;

/** What is known about an issued token; never the token itself. */
export interface TokenInfo {
  readonly id: number;
  readonly customer: string;
  readonly kind: TokenKind;
  readonly label: string | null;
  /** The origins whose pages a publishable key serves; empty for any page, and for a secret token. */
  readonly origins: readonly string[];
  /** ISO-8601 timestamps in UTC. */
  readonly createdAt: string;
  readonly lastUsedAt: string | null;
  readonly revokedAt: string | null;
}

export function newAccessToken(kind: TokenKind): string {
  return TOKEN_PREFIXES[kind] + randomBytes(TOKEN_BYTES).toString('base64url');
}

/** SHA-256 of the token, in lower-case hex: what is stored, and what a presented token is looked up by. */
export function tokenDigest(token: string): string {
  return hash('sha256', token);
}

/** A label is read in terminals: one short line of printable text. */
export function checkTokenLabel(label: string): string | undefined {
  if (label.trim() === '') return 'must not be empty';
  if ([...label].length > MAX_LABEL_LENGTH) return `must be at most ${MAX_LABEL_LENGTH} characters`;
  // A line or paragraph separator breaks a table's line, and a direction override (U+202A–202E,
  // U+2066–2069) turns the text after it round, as in a name written to pass for another.
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/.test(label)) return 'must not hold control characters, line separators or direction overrides';
  return undefined;
}
