/** `marquee token list` as a table for people; scripts use `--json`. */
import type { TokenInfo } from './access-token.js';
import { alignColumns } from '../cli/text-columns.js';

const HEADINGS = ['ID', 'CUSTOMER', 'KIND', 'LABEL', 'CREATED', 'LAST USED', 'REVOKED', 'ORIGINS'] as const;

/** The pages a token may be used from: those of its origins, any for a publishable key without, none for a secret one. */
function pages(token: TokenInfo): string {
  if (token.kind === 'secret') return '';
  return token.origins.length === 0 ? 'any' : token.origins.join(' ');
}

/** Seconds are enough to read; the stored times keep their milliseconds. */
function time(iso: string | null, absent: string): string {
  return iso === null ? absent : iso.replace(/\.\d+Z$/, 'Z');
}

export function formatTokenTable(tokens: readonly TokenInfo[]): string {
  if (tokens.length === 0) return "No token was ever issued: the default customer is served without one. 'marquee token create --customer KEY' issues one.";
  const rows = tokens.map((token) => [
    String(token.id),
    token.customer,
    token.kind,
    token.label ?? '',
    time(token.createdAt, ''),
    time(token.lastUsedAt, 'never'),
    time(token.revokedAt, ''),
    pages(token),
  ]);
  return alignColumns([HEADINGS, ...rows]).join('\n');
}
