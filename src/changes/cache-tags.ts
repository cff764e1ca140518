/**
 * Cache tags (CONTRACT §14): every catalogue and programme answer names, in `Surrogate-Key` and
 * `Cache-Tag`, its customer and each kind of record its bytes are made of; a change's event names
 * the kinds it altered, so that a CDN purges the answers that read them and keeps the rest. A
 * customer is named by a keyed digest of its key, the same on every server of a database (the
 * key lives there), so that a tag tells nothing of the key to whoever does not know it.
 */
import { createHmac } from 'node:crypto';
import { changedKinds, type CatalogueChange, type ChangeKind } from '../catalogue/catalogue-change.js';

/** The two headers of one answer, as CDNs read them: Fastly's space-separated, Cloudflare's comma-separated. */
export type CacheTagHeaders = Readonly<Record<'surrogate-key' | 'cache-tag', string>>;

export class CacheTags {
  private readonly customerTags = new Map<string, string>();
  /** The headers of each set of kinds a route reads (a route's set is one array), by customer. */
  private readonly headers = new WeakMap<readonly ChangeKind[], Map<string, CacheTagHeaders>>();

  constructor(private readonly secret: string) {}

  /** The tag of everything a customer's catalogue answers. */
  customerTag(customer: string): string {
    let tag = this.customerTags.get(customer);
    if (tag === undefined) {
      tag = `mq-${createHmac('sha256', this.secret).update(customer).digest('base64url').slice(0, 22)}`;
      this.customerTags.set(customer, tag);
    }
    return tag;
  }

  /** The tag of the answers of a customer that read a kind of record. */
  kindTag(customer: string, kind: ChangeKind): string {
    return `${this.customerTag(customer)}-${kind}`;
  }

  /** The headers of an answer of `customer` made of `reads`. */
  answerHeaders(customer: string, reads: readonly ChangeKind[]): CacheTagHeaders {
    let byCustomer = this.headers.get(reads);
    if (byCustomer === undefined) this.headers.set(reads, (byCustomer = new Map()));
    let found = byCustomer.get(customer);
    if (found === undefined) {
      const tags = [this.customerTag(customer), ...reads.map((kind) => this.kindTag(customer, kind))];
      found = { 'surrogate-key': tags.join(' '), 'cache-tag': tags.join(',') };
      byCustomer.set(customer, found);
    }
    return found;
  }

  /** The tags a change purges: one per kind it altered. */
  changeTags(customer: string, change: CatalogueChange): string[] {
    return changedKinds(change).map((kind) => this.kindTag(customer, kind));
  }
}
