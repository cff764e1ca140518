/**
 * The upstreams one sync process mirrors, as an operator lists them: a line per customer,
 * `customer<TAB>url<TAB>token` (`-` for no token), blank lines and `#` comments ignored.
 */
import { readFile } from 'node:fs/promises';
import { CUSTOMER_KEY_PATTERN, CUSTOMER_KEY_RULE } from '../catalogue/model.js';
import { UnreadableInputError } from '../catalogue/problems.js';

export interface Upstream {
  readonly customer: string;
  /** The upstream API's base address, without a trailing slash: the paths are added to it. */
  readonly url: string;
  /** Sent as VeeziAccessToken; never written anywhere. */
  readonly token: string | undefined;
}

/**
 * The base address `text` names, or why it names none. It may hold no credentials, query or
 * fragment: the paths are added to it, and an address is shown in logs and kept in the
 * database, where only the token, kept apart, is secret.
 */
export function parseUpstreamUrl(text: string): string | { readonly reason: string } {
  const url = URL.canParse(text) ? new URL(text) : undefined;
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:') return { reason: `must be an http(s) URL, got '${text}'` };
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') {
    return { reason: `must be an http(s) URL without credentials, query or fragment (a token goes apart), got '${url.origin}${url.pathname}…'` };
  }
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

/** A `#` at the start of a line or after a blank starts a comment; inside a field it is kept. */
const COMMENT = /(^|\s)#.*$/;

/**
 * The upstreams of `text`, in order. The first bad line fails the whole list, naming `source`
 * and the line: a list half taken would stop syncing the cinemas it lost.
 */
export function parseUpstreams(text: string, source: string): Upstream[] {
  const upstreams: Upstream[] = [];
  const lines = new Map<string, number>();
  for (const [index, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.replace(COMMENT, '').trim();
    if (line === '') continue;
    const fail = (reason: string): never => {
      throw new UnreadableInputError(source, `line ${index + 1}: ${reason}`);
    };
    const fields = line.split('\t');
    if (fields.length !== 3) fail(`must be customer<TAB>url<TAB>token ('-' for no token), got ${fields.length} field${fields.length === 1 ? '' : 's'}`);
    const [customer = '', address = '', token = ''] = fields.map((field) => field.trim());
    if (!CUSTOMER_KEY_PATTERN.test(customer)) fail(`${JSON.stringify(customer)} is not a customer key (${CUSTOMER_KEY_RULE})`);
    const first = lines.get(customer);
    if (first !== undefined) fail(`customer '${customer}' is on line ${first} already`);
    const url = parseUpstreamUrl(address);
    if (typeof url !== 'string') return fail(`the URL ${url.reason}`);
    if (token === '' || /\s/.test(token)) fail("the token must be one word, or '-' for none");
    lines.set(customer, index + 1);
    upstreams.push({ customer, url, token: token === '-' ? undefined : token });
  }
  return upstreams;
}

/** The upstreams `file` lists; a file that cannot be read is refused as a bad line is. */
export async function readUpstreamList(file: string): Promise<{ readonly text: string; readonly upstreams: Upstream[] }> {
  const text = await readFile(file, 'utf8').catch((error: unknown) => {
    throw UnreadableInputError.of(file, error);
  });
  return { text, upstreams: parseUpstreams(text, file) };
}
