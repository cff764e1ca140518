/**
 * Every issued token a server knows, by digest, built from the stored tokens and swapped whole
 * when they change. Finding a token costs one SHA-256 and one map lookup the first time it is
 * presented, and one map lookup after that.
 */
import { timingSafeEqual } from 'node:crypto';
import { tokenDigest, type TokenKind } from './access-token.js';

/** A token as a server needs it to admit a request. */
export interface IssuedToken {
  readonly id: number;
  readonly customer: string;
  readonly kind: TokenKind;
  /** The origins whose pages a publishable key serves; empty for any. */
  readonly origins: readonly string[];
  readonly revoked: boolean;
}

export interface StoredDigest extends IssuedToken {
  /** SHA-256 of the token, in lower-case hex. */
  readonly digest: string;
}

interface Entry {
  readonly digest: string;
  readonly token: IssuedToken;
}

/** Compares two hex digests of the same length in a time that does not depend on where they differ. */
function sameDigest(a: string, b: string): boolean {
  return timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));
}

/** Tokens remembered by `find` at most; past this the memory starts again. */
const MAX_RECENTLY_FOUND = 10_000;

export class TokenSet {
  private readonly byDigest = new Map<string, Entry>();
  /**
   * Issued tokens already found, by the token a client presented: a client presents the same
   * token on every request, and its digest and comparison were a sixth of the cost of a small
   * answer. Only tokens that were issued are remembered, so made-up ones cannot fill it; it dies
   * with the set, so an issued or revoked token is looked up afresh in the set that replaces it.
   * The tokens are in this process's memory anyway, in the requests that carry them.
   */
  private readonly recentlyFound = new Map<string, IssuedToken>();

  constructor(digests: readonly StoredDigest[]) {
    for (const { digest, ...token } of digests) this.byDigest.set(digest, { digest, token });
  }

  /** Tokens ever issued, revoked ones included. */
  get size(): number {
    return this.byDigest.size;
  }

  /**
   * No token was ever issued: the service is open. A revoked token still counts, so revoking
   * the last one never opens a closed service.
   */
  get open(): boolean {
    return this.byDigest.size === 0;
  }

  /** The issued token, revoked or not; undefined for a token never issued. */
  find(token: string): IssuedToken | undefined {
    const known = this.recentlyFound.get(token);
    if (known !== undefined) return known;
    const digest = tokenDigest(token);
    const entry = this.byDigest.get(digest);
    // The map is keyed by digest, so its timing says nothing of the token; the final comparison
    // is constant-time all the same, as the contract asks.
    if (entry === undefined || !sameDigest(entry.digest, digest)) return undefined;
    if (this.recentlyFound.size >= MAX_RECENTLY_FOUND) this.recentlyFound.clear();
    this.recentlyFound.set(token, entry.token);
    return entry.token;
  }
}
