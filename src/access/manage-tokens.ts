/**
 * Issuing, listing and revoking access tokens: what `marquee token` does, apart from reading
 * its arguments. Each change bumps the token version, so running servers follow within their
 * poll interval.
 */
import { loadCatalogueVersion } from '../store/catalogue-repository.js';
import type { SqlClient } from '../store/sql-client.js';
import { bumpTokenVersion, insertToken, loadToken, loadTokens, markTokenRevoked } from '../store/token-repository.js';
import { newAccessToken, tokenDigest, type TokenInfo, type TokenKind } from './access-token.js';

/** A revoke named an id that was never issued. */
export class UnknownTokenError extends Error {
  constructor(readonly id: number) {
    super(`no token has the id ${id}; 'marquee token list' shows them`);
    this.name = 'UnknownTokenError';
  }
}

/** What sets a token apart, beside its customer. */
export interface TokenTerms {
  readonly label: string | null;
  /** Secret unless given. */
  readonly kind?: TokenKind;
  /** For a publishable key: the origins whose pages it serves; any page when empty or absent. */
  readonly origins?: readonly string[];
}

export interface IssueOptions extends TokenTerms {
  readonly customer: string;
}

export interface IssueResult {
  /** The token itself: shown once, never stored. */
  readonly token: string;
  readonly info: TokenInfo;
  /** False when nothing was ever imported for the customer: the token sees empty lists. */
  readonly customerHasCatalogue: boolean;
}

export async function issueToken(db: SqlClient, options: IssueOptions): Promise<IssueResult> {
  const { customer, ...terms } = options;
  const [issued] = await issueTokens(db, { customers: [customer], ...terms });
  return issued as IssueResult;
}

export interface IssueManyOptions extends TokenTerms {
  readonly customers: readonly string[];
}

/** Issues a token for each customer, in order, in one transaction: all of them or, on any failure, none. */
export async function issueTokens(db: SqlClient, options: IssueManyOptions): Promise<IssueResult[]> {
  const createdAt = new Date().toISOString();
  const { label, kind = 'secret', origins = [] } = options;
  return db.transaction(async (tx) => {
    await bumpTokenVersion(tx);
    const issued: IssueResult[] = [];
    for (const customer of options.customers) {
      const token = newAccessToken(kind);
      const id = await insertToken(tx, { customer, kind, label, origins, digest: tokenDigest(token), createdAt });
      const customerHasCatalogue = (await loadCatalogueVersion(tx, customer)) > 0;
      issued.push({ token, info: { id, customer, kind, label, origins, createdAt, lastUsedAt: null, revokedAt: null }, customerHasCatalogue });
    }
    return issued;
  });
}

export async function listTokens(db: SqlClient): Promise<TokenInfo[]> {
  return loadTokens(db);
}

export interface RevokeResult {
  readonly info: TokenInfo;
  /** The token had been revoked before; nothing changed. */
  readonly already: boolean;
}

/** Revokes tokens just issued, all in one transaction: those whose secret reached nobody. */
export async function revokeIssued(db: SqlClient, ids: readonly number[]): Promise<void> {
  const revokedAt = new Date().toISOString();
  await db.transaction(async (tx) => {
    for (const id of ids) await markTokenRevoked(tx, id, revokedAt);
    await bumpTokenVersion(tx);
  });
}

export async function revokeToken(db: SqlClient, id: number): Promise<RevokeResult> {
  return db.transaction(async (tx) => {
    const before = await loadToken(tx, id);
    if (before === undefined) throw new UnknownTokenError(id);
    if (before.revokedAt !== null) return { info: before, already: true };
    const revokedAt = new Date().toISOString();
    await markTokenRevoked(tx, id, revokedAt);
    await bumpTokenVersion(tx);
    return { info: { ...before, revokedAt }, already: false };
  });
}
