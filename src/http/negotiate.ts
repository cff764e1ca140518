/**
 * Proactive negotiation on Accept (RFC 9110 §12.5.1): the highest q-value wins, then the most
 * specific range, then the order of the offers. Nothing acceptable falls back to the first
 * offer, never 406, since clients in the field send `text/plain` or `*` + `/*` and parse JSON.
 */
export interface MediaRange {
  readonly type: string;
  readonly subtype: string;
  readonly q: number;
}

/** One element of a list header such as Accept or Accept-Encoding: its lower-cased value and q-value. */
export interface WeightedElement {
  readonly value: string;
  readonly q: number;
}

/**
 * `decide` with its answers remembered by header value. Clients send few distinct values (each
 * browser, app and library its own), so each is parsed once rather than on every request; the
 * memory is capped and cleared when full, so a stream of made-up values cannot grow it.
 */
export function rememberedByHeader<T>(decide: (header: string) => T, capacity = 256): (header: string) => T {
  const answers = new Map<string, T>();
  return (header) => {
    const known = answers.get(header);
    if (known !== undefined || answers.has(header)) return known as T;
    if (answers.size >= capacity) answers.clear();
    const answer = decide(header);
    answers.set(header, answer);
    return answer;
  };
}

/** Reads a list header with q-values (RFC 9110 §12.4.2); a malformed q-value counts as 0. */
export function parseWeightedList(header: string): WeightedElement[] {
  return header.split(',').map((part) => {
    const [value = '', ...parameters] = part.split(';');
    let q = 1;
    for (const parameter of parameters) {
      const [name, weight] = parameter.split('=').map((s) => s.trim());
      if (name?.toLowerCase() === 'q') q = /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(weight ?? '') ? Number(weight) : 0;
    }
    return { value: value.trim().toLowerCase(), q };
  });
}

export function parseAccept(header: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const { value, q } of parseWeightedList(header)) {
    const [type, subtype, extra] = value.split('/');
    if (type && subtype && extra === undefined) ranges.push({ type, subtype, q });
  }
  return ranges;
}

/** 2 for an exact match, 1 for `type/*`, 0 for `*` + `/*`, undefined when the range does not match. */
function specificity(range: MediaRange, offer: string): number | undefined {
  const [type, subtype] = offer.split('/');
  if (range.type === '*') return range.subtype === '*' ? 0 : undefined;
  if (range.type !== type) return undefined;
  if (range.subtype === '*') return 1;
  return range.subtype === subtype ? 2 : undefined;
}

/** Picks one of `offers` (lower-case media types, the default first) for an Accept header. */
export function negotiate<Offer extends string>(accept: string | undefined, offers: readonly [Offer, ...Offer[]]): Offer {
  if (accept === undefined || accept.trim() === '') return offers[0];
  const ranges = parseAccept(accept);
  let best = offers[0];
  let bestQ = 0;
  let bestSpecificity = -1;
  for (const offer of offers) {
    // The most specific range that matches an offer decides its quality.
    let q = 0;
    let rank = -1;
    for (const range of ranges) {
      const s = specificity(range, offer);
      if (s !== undefined && s > rank) {
        rank = s;
        q = range.q;
      }
    }
    if (q > bestQ || (q === bestQ && q > 0 && rank > bestSpecificity)) {
      best = offer;
      bestQ = q;
      bestSpecificity = rank;
    }
  }
  return best;
}
