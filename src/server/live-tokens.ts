/**
 * The access tokens a server admits requests with, held in memory so that no request waits for
 * the database. The stored token version is polled like the catalogue versions, so a token
 * issued or revoked reaches a running server within one poll interval. Last-use times are
 * noted in memory and written in the background, and once more when the server stops.
 */
import { TokenSet, type IssuedToken } from '../access/token-set.js';
import type { TokenDirectory } from '../http/access.js';
import type { SqlClient } from '../store/sql-client.js';
import { loadTokenDigests, loadTokenVersion, recordTokenUses } from '../store/token-repository.js';

/** How often last-use times are written: often enough for `token list`, rarely enough to cost nothing. */
const USE_FLUSH_INTERVAL_MS = 5000;

export class LiveTokens implements TokenDirectory {
  /** Undefined until the first load: a server that does not know its tokens yet is closed, never open. */
  private tokens: TokenSet | undefined;
  private version: number | undefined;
  /** Milliseconds since the epoch of each token's latest use since the last write. */
  private uses = new Map<number, number>();
  private pollTimer: NodeJS.Timeout | undefined;
  private flushTimer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> | undefined;

  constructor(
    private readonly db: SqlClient,
    private readonly onReload: (tokens: TokenSet) => void = () => {},
  ) {}

  get open(): boolean {
    return this.tokens?.open ?? false;
  }

  authenticate(token: string): IssuedToken | undefined {
    const issued = this.tokens?.find(token);
    if (issued !== undefined && !issued.revoked) this.uses.set(issued.id, Date.now());
    return issued;
  }

  /** Reloads the tokens when their stored version moved. */
  refresh(): Promise<void> {
    // One refresh at a time; a call during one shares it.
    this.refreshing ??= this.reloadChanged().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  /**
   * Writes the last-use times noted since the previous write. In the background (`failIfBusy`)
   * it never waits for an import's lock; times it could not write are kept for the next try.
   */
  async flushUses(options: { readonly failIfBusy?: boolean } = {}): Promise<void> {
    if (this.uses.size === 0) return;
    const uses = this.uses;
    this.uses = new Map();
    const times = new Map([...uses].map(([id, usedAt]) => [id, new Date(usedAt).toISOString()]));
    try {
      await this.db.transaction((tx) => recordTokenUses(tx, times), options);
    } catch (error) {
      for (const [id, usedAt] of uses) {
        const later = this.uses.get(id);
        if (later === undefined || later < usedAt) this.uses.set(id, usedAt);
      }
      throw error;
    }
  }

  /** Polls the token version every `pollMs`, and writes last-use times every few seconds. */
  watch(pollMs: number, onError: (error: unknown, action: string) => void): void {
    this.pollTimer = setInterval(() => this.refresh().catch((error: unknown) => onError(error, 'token reload')), pollMs);
    this.flushTimer = setInterval(() => this.flushUses({ failIfBusy: true }).catch((error: unknown) => onError(error, 'recording token use')), USE_FLUSH_INTERVAL_MS);
    this.pollTimer.unref();
    this.flushTimer.unref();
  }

  /** Stops polling and writes the last-use times still in memory. */
  async stop(): Promise<void> {
    clearInterval(this.pollTimer);
    clearInterval(this.flushTimer);
    await this.flushUses();
  }

  private async reloadChanged(): Promise<void> {
    // The version is read before the tokens: a change committed in between is loaded now, and
    // once more on the next poll, never missed.
    const version = await loadTokenVersion(this.db);
    if (version === this.version) return;
    const tokens = new TokenSet(await loadTokenDigests(this.db));
    this.tokens = tokens;
    this.version = version;
    this.onReload(tokens);
  }
}
