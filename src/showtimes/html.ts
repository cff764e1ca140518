/**
 * HTML written from text the catalogue holds, which may be anything a cinema typed: every value
 * put into an `html` template is escaped, unless it is itself `Html` (a fragment already written
 * by a template, or marked safe with `raw`). Lists are written one item after the other, and
 * absent values (null, undefined, false) write nothing, so that a template can hold `cond && html`.
 */

/** Markup that is safe to put in a page as it is. */
export class Html {
  constructor(readonly text: string) {}

  toString(): string {
    return this.text;
  }
}

export type HtmlValue = Html | string | number | null | undefined | false | readonly HtmlValue[];

const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text as it reads in an element or in a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ESCAPES[character] as string);
}

function written(value: HtmlValue): string {
  if (value instanceof Html) return value.text;
  if (value === null || value === undefined || value === false) return '';
  if (Array.isArray(value)) return value.map(written).join('');
  return escapeHtml(String(value));
}

/** A fragment of HTML whose interpolated values are escaped. */
export function html(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): Html {
  let text = strings[0] as string;
  for (let index = 0; index < values.length; index++) text += written(values[index] as HtmlValue) + (strings[index + 1] as string);
  return new Html(text);
}

/** Markup written elsewhere and known to be safe, such as a data block escaped for its element. */
export function raw(markup: string): Html {
  return new Html(markup);
}
