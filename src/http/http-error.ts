import type { HeaderFields } from './problem.js';

/** What a problem answer (RFC 9457) says: a status, its title, a detail, and headers it needs. */
export interface Problem {
  readonly status: number;
  readonly title: string;
  readonly detail: string;
  readonly headers: HeaderFields;
}

/** An error that answers a request with a status and a problem body. */
export class HttpError extends Error implements Problem {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly detail: string,
    readonly headers: HeaderFields = {},
  ) {
    super(detail);
    this.name = 'HttpError';
  }
}

/** A 404, as a value: unknown ids are common, and a thrown error's stack trace is costly. */
export function notFound(detail: string): Problem {
  return { status: 404, title: 'Not Found', detail, headers: {} };
}

/** The 404 of an id that names no record of a kind: `No film has the id 'X'.` */
export function unknownId(noun: string, id: string): Problem {
  return notFound(`No ${noun} has the id ${quote(id)}.`);
}

/** The 400 of a query parameter given a value it cannot take: `must be` `rule`, `got` `value` where one value broke it. */
export function badParameter(parameter: string, rule: string, value?: string): Problem {
  const got = value === undefined ? '' : `, got ${quote(value)}`;
  return { status: 400, title: 'Bad Request', detail: `The ${parameter} parameter must be ${rule}${got}.`, headers: {} };
}

/** The 404 of `/v1/site` when no site was imported. */
export const NO_SITE: Problem = notFound('No site has been imported.');

/** The most characters (code points) of client input a problem detail quotes. */
const MAX_QUOTED = 100;

/** Quotes what a client sent in a problem detail, cut short when it is long. */
export function quote(text: string): string {
  // A text has no more code points than UTF-16 units: a short one needs no counting.
  if (text.length <= MAX_QUOTED) return `'${text}'`;
  const characters = [...text];
  return `'${characters.length > MAX_QUOTED ? `${characters.slice(0, MAX_QUOTED).join('')}…` : text}'`;
}
