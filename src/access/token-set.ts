/**
 * Every issued token a server knows, by digest, built from the stored tokens and swapped whole
 * when they change. Finding a token costs one SHA-256 and one map lookup.
 */
import { tokenDigest } from './access-token.js';

/** A token as a server needs it to admit a request. */
export interface IssuedToken {
  readonly id: number;
  readonly customer: string;
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

/** Compares two hex digests in a time that does not depend on where they differ. */
function sameDigest(a: string, b: string): boolean {
  let difference = a.length ^ b.length;
  for (let index = 0; index < a.length; index++) difference |= a.charCodeAt(index) ^ b.charCodeAt(index);
  return difference === 0;
}

export class TokenSet {
  private readonly byDigest = new Map<string, Entry>();

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
    const digest = tokenDigest(token);
    const entry = this.byDigest.get(digest);
    // The map is keyed by digest, so its timing says nothing of the token; the final comparison
    // is constant-time all the same, as the contract asks.
    return entry !== undefined && sameDigest(entry.digest, digest) ? entry.token : undefined;
  }
}
