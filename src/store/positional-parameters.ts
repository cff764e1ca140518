/**
 * Rewrites the repositories' `?` placeholders as PostgreSQL's `$1`, `$2`, …, leaving alone a `?`
 * inside a string literal, a quoted identifier or a comment.
 */
const TOKENS = /'(?:[^']|'')*'|"(?:[^"]|"")*"|--[^\n]*|\/\*[\s\S]*?\*\/|\?/g;

export function toPositionalParameters(sql: string): string {
  let next = 0;
  return sql.replace(TOKENS, (token) => (token === '?' ? `$${++next}` : token));
}
