/** An error that answers a request with a status and a problem body (RFC 9457). */
export class HttpError extends Error {
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
