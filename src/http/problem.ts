/** Problem details (RFC 9457) in JSON or in XML (namespace urn:ietf:rfc:7807). */
import { replaceXmlUnsafeCharacters } from '../catalogue/code-points.js';
import { jsonString } from '../formats/json-writer.js';
import type { FormatName } from '../formats/representation.js';
import { escapeXmlText } from '../formats/xml-text.js';
import type { Problem } from './http-error.js';

export const PROBLEM_NAMESPACE = 'urn:ietf:rfc:7807';

/**
 * The header fields of an answer, each value a string. Node checks every value with a regular
 * expression before writing it, and one number among them (a Content-Length) sent those checks in
 * the whole process down V8's generic path: about 3 % of the throughput of small answers.
 */
export type HeaderFields = Readonly<Record<string, string>>;

export interface PreparedResponse {
  readonly status: number;
  readonly headers: HeaderFields;
  /** Prebuilt bytes, or the text of an answer made for one request, which Node encodes as it writes. */
  readonly body: Buffer | string;
}

const CONTENT_TYPES: Readonly<Record<FormatName, string>> = {
  json: 'application/problem+json; charset=utf-8',
  xml: 'application/problem+xml; charset=utf-8',
};

function problemBody(format: FormatName, error: Problem): string {
  // The same text as JSON.stringify of the object, in a fraction of the time: a 404 is common.
  if (format === 'json') return `{"type":"about:blank","title":${jsonString(error.title)},"status":${error.status},"detail":${jsonString(error.detail)}}`;
  // A detail may quote what the client sent; XML cannot carry every character it might hold.
  const detail = replaceXmlUnsafeCharacters(error.detail);
  return (
    `<problem xmlns="${PROBLEM_NAMESPACE}"><type>about:blank</type>` +
    `<title>${escapeXmlText(error.title)}</title><status>${error.status}</status>` +
    `<detail>${escapeXmlText(detail)}</detail></problem>`
  );
}

/**
 * The whole answer for an error, in the negotiated format. Its body is text: Node writes text
 * together with the status line and headers, where bytes made first would cost an allocation
 * and a second write.
 */
export function problemResponse(error: Problem, format: FormatName): PreparedResponse & { readonly body: string } {
  const body = problemBody(format, error);
  return {
    status: error.status,
    headers: {
      ...error.headers,
      vary: 'Accept',
      'content-type': CONTENT_TYPES[format],
      'content-length': String(Buffer.byteLength(body)),
    },
    body,
  };
}
