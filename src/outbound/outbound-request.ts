/**
 * One HTTP request to a URL a catalogue or an operator named, connecting only where an
 * AddressRule allows. No redirect is followed here: a caller that follows them sends each hop
 * through this again, so that every hop is checked.
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressRule } from './address-rule.js';

export interface OutboundRequest {
  readonly method?: 'GET' | 'POST';
  readonly headers?: IncomingHttpHeaders;
  readonly body?: string | Buffer;
  /** Ends the request, and the reading of its answer, when aborted: the caller's deadline. */
  readonly signal: AbortSignal;
}

/**
 * Sends the request; resolves with the answer once its head has arrived (the caller reads the
 * body, within its own limits), rejects with RefusedAddressError for an address the rule refuses.
 */
export function sendOutbound(url: URL, rule: AddressRule, { method = 'GET', headers = {}, body, signal }: OutboundRequest): Promise<IncomingMessage> {
  rule.check(url);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    // A connection of its own each time: a pooled one could have been opened for a URL the rule treats otherwise.
    const outgoing = send(url, { method, headers, signal, agent: false, lookup: rule.lookupFor(url) }, resolve);
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}
