/**
 * The client a per-address rate limit counts: an IPv4 address, or the /64 network of an IPv6
 * one, since a single IPv6 host is handed a whole /64 and could otherwise take a new address,
 * and a fresh allowance, for every request. Some proxies write the client's port in
 * X-Forwarded-For (`203.0.113.7:51234`, `[2001:db8::1]:51234`): a new port is not a new client.
 */
import { isIPv6 } from 'node:net';

/** Hextets in the /64 network prefix of an IPv6 address. */
const PREFIX_HEXTETS = 4;

export function clientOf(written: string): string {
  const address = /^(\d+\.\d+\.\d+\.\d+):\d+$/.exec(written)?.[1] ?? /^\[([^\]]+)\](?::\d+)?$/.exec(written)?.[1] ?? written;
  if (!isIPv6(address)) return address;
  // An IPv4 client seen through a dual-stack socket is that IPv4 address.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped !== null) return mapped[1] as string;
  const [head = '', tail] = address.split('::');
  const headHextets = head === '' ? [] : head.split(':');
  // `::` stands for as many zero hextets as make eight; a /64 lies in the head or reaches past it.
  const tailCount = tail === undefined || tail === '' ? 0 : tail.split(':').length;
  const hextets = tail === undefined ? headHextets : [...headHextets, ...Array<string>(8 - headHextets.length - tailCount).fill('0')];
  const prefix = hextets.slice(0, PREFIX_HEXTETS);
  while (prefix.length < PREFIX_HEXTETS) prefix.push('0');
  return `${prefix.map((hextet) => Number.parseInt(hextet, 16).toString(16)).join(':')}::/64`;
}
