/**
 * Which addresses Marquee may connect to when it reads a picture (CONTRACT §13) or delivers a
 * webhook (§14) for a URL that a catalogue or an operator named: public addresses only, so that a
 * URL cannot make Marquee reach the machine it runs on or its private network, unless the URL
 * starts with a prefix the operator named (`--image-source`, `--webhook-target`). The addresses a
 * name resolves to are checked as the connection is made, so a name that resolves to a public
 * address when checked and to a private one when connected cannot slip through.
 */
import { lookup as resolve, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/** The URL or an address it resolved to is not one Marquee may connect to. */
export class RefusedAddressError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RefusedAddressError';
  }
}

/** Loopback, private, link-local, multicast, unspecified and reserved ranges, IPv4 and IPv6. */
const NOT_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // unspecified, "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) NOT_PUBLIC.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128],
  ['fc00::', 7], // unique local
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96], // NAT64 reaches IPv4 addresses, private ones included
  ['2002::', 16], // 6to4 likewise
] as const) NOT_PUBLIC.addSubnet(network, prefix, 'ipv6');

const MAPPED_IPV4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;

/** Whether `address` (an IP address) is on the public internet. */
export function isPublicAddress(address: string): boolean {
  const mapped = MAPPED_IPV4.exec(address)?.[1];
  if (mapped !== undefined) return isPublicAddress(mapped);
  const family = isIP(address);
  if (family === 0) return false;
  return !NOT_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export interface AddressRuleOptions {
  /** URLs that start with one of these may reach any address (the operator's own hosts). */
  readonly prefixes: readonly string[];
  /** Whether naming prefixes also limits Marquee to them (`--image-source`), or only adds them (`--webhook-target`). */
  readonly onlyPrefixes: boolean;
  /** How the option is named in errors, such as `--image-source`. */
  readonly flag: string;
}

export class AddressRule {
  /**
   * Each prefix with its origin, which a URL must have too: as text, `http://10.0.0.5:8000@elsewhere.example/`
   * starts with `http://10.0.0.5:8000` and `http://10.0.0.55/` with `http://10.0.0.5`, and both go elsewhere.
   */
  private readonly prefixes: readonly { readonly text: string; readonly origin: string | undefined }[];

  constructor(private readonly options: AddressRuleOptions) {
    this.prefixes = options.prefixes.map((text) => ({ text, origin: URL.parse(text)?.origin }));
  }

  /**
   * Checks what can be told from the URL alone: the scheme, the prefixes, and an address written
   * in it; throws RefusedAddressError naming why. A name's addresses are checked as it connects
   * (`lookup`).
   */
  check(url: URL): void {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new RefusedAddressError(`${url.href}: only http and https URLs are read`);
    if (this.named(url)) return;
    if (this.options.onlyPrefixes && this.options.prefixes.length > 0) {
      throw new RefusedAddressError(`${url.href}: does not start with a prefix named by ${this.options.flag}`);
    }
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    if (isIP(host) !== 0 && !isPublicAddress(host)) throw this.refused(url, host);
  }

  /** The `lookup` for a connection to `url`: refuses a name that resolves to an address that is not public. */
  lookupFor(url: URL): LookupFunction | undefined {
    if (this.named(url)) return undefined;
    return (hostname, options, callback) => {
      resolve(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
        if (error !== null) return callback(error, '', 0);
        const refused = addresses.find(({ address }) => !isPublicAddress(address));
        if (refused !== undefined || addresses.length === 0) return callback(this.refused(url, refused?.address ?? 'no address'), '', 0);
        if (options.all === true) return callback(null, addresses);
        const [first] = addresses as [LookupAddress];
        callback(null, first.address, first.family);
      });
    };
  }

  private named(url: URL): boolean {
    return this.prefixes.some(({ text, origin }) => url.origin === origin && url.href.startsWith(text));
  }

  private refused(url: URL, address: string): RefusedAddressError {
    return new RefusedAddressError(
      `${url.href}: ${url.hostname} is ${address}, not a public address; name a prefix with ${this.options.flag} to allow it`,
    );
  }
}
