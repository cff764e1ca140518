/** What a problem answer (RFC 9457) says: a status, its title, a detail, and headers it needs. */
export interface Problem {
  readonly status: number;
  readonly title: string;
  readonly detail: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** An error that answers a request with a status and a problem body. */
export class HttpError extends Error implements Problem {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly detail: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(detail);
    this.name = 'HttpError';
  }

  static notFound(detail: string): HttpError {
    return new HttpError(404, 'Not Found', detail);
  }
}

/** Quotes what a client sent in a problem detail, cut short when it is long. */
export function quote(text: string): string {
  const characters = [...text];
  return `'${characters.length > 100 ? `${characters.slice(0, 100).join('')}…` : text}'`;
}
