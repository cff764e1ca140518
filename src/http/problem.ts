/** Problem details (RFC 9457) in JSON or in XML (namespace urn:ietf:rfc:7807). */
import { replaceXmlUnsafeCharacters } from '../catalogue/code-points.js';
import type { FormatName } from '../formats/representation.js';
import { escapeXmlText } from '../formats/xml-text.js';
import type { Problem } from './http-error.js';

export const PROBLEM_NAMESPACE = 'urn:ietf:rfc:7807';

/** The header fields of an answer, each value a string. */
export type HeaderFields = Readonly<Record<string, string>>;

export const PROBLEM_CONTENT_TYPES: Readonly<Record<FormatName, string>> = {
  json: 'application/problem+json; charset=utf-8',
  xml: 'application/problem+xml; charset=utf-8',
};

export function problemBody(format: FormatName, problem: Problem): string {
  if (format === 'json') return JSON.stringify({ type: 'about:blank', title: problem.title, status: problem.status, detail: problem.detail });
  // A detail may quote what the client sent; XML cannot carry every character it might hold.
  const detail = replaceXmlUnsafeCharacters(problem.detail);
  return (
    `<problem xmlns="${PROBLEM_NAMESPACE}"><type>about:blank</type>` +
    `<title>${escapeXmlText(problem.title)}</title><status>${problem.status}</status>` +
    `<detail>${escapeXmlText(detail)}</detail></problem>`
  );
}
