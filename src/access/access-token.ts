/**
 * Access tokens: random secrets shown once when issued. Only their SHA-256 digest is stored and
 * compared, so neither the database nor its backups can give a token away.
 */
import { hash, randomBytes } from 'node:crypto';

/** Tells a Marquee token apart in configuration files and to secret scanners. */
const TOKEN_PREFIX = 'mq_';
/** 256 bits of entropy: no token can be guessed, whatever the number of tries. */
const TOKEN_BYTES = 32;
const MAX_LABEL_LENGTH = 100;

/** What is known about an issued token; never the token itself. */
export interface TokenInfo {
  readonly id: number;
  readonly customer: string;
  readonly label: string | null;
  /** ISO-8601 timestamps in UTC. */
  readonly createdAt: string;
  readonly lastUsedAt: string | null;
  readonly revokedAt: string | null;
}

export function newAccessToken(): string {
  return TOKEN_PREFIX + randomBytes(TOKEN_BYTES).toString('base64url');
}

/** SHA-256 of the token, in lower-case hex: what is stored, and what a presented token is looked up by. */
export function tokenDigest(token: string): string {
  return hash('sha256', token);
}

/** A label is read in terminals: one short line of printable text. */
export function checkTokenLabel(label: string): string | undefined {
  if (label.trim() === '') return 'must not be empty';
  if ([...label].length > MAX_LABEL_LENGTH) return `must be at most ${MAX_LABEL_LENGTH} characters`;
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (/[\u0000-\u001f\u007f-\u009f]/.test(label)) return 'must not hold control characters';
  return undefined;
}
