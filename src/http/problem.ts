/** Problem details (RFC 9457) in JSON or in XML (namespace urn:ietf:rfc:7807). */
import type { FormatName } from '../formats/representation.js';
import { escapeXmlText } from '../formats/xml-text.js';

export const PROBLEM_NAMESPACE = 'urn:ietf:rfc:7807';

export interface ProblemDetails {
  readonly status: number;
  readonly title: string;
  readonly detail: string;
}

export function problemContentType(format: FormatName): string {
  return `application/problem+${format}; charset=utf-8`;
}

export function problemBody(format: FormatName, problem: ProblemDetails): string {
  if (format === 'json') return JSON.stringify({ type: 'about:blank', title: problem.title, status: problem.status, detail: problem.detail });
  return (
    `<problem xmlns="${PROBLEM_NAMESPACE}"><type>about:blank</type>` +
    `<title>${escapeXmlText(problem.title)}</title><status>${problem.status}</status>` +
    `<detail>${escapeXmlText(problem.detail)}</detail></problem>`
  );
}
