/**
 * Escapes text for XML element content so that a conforming parser reads back exactly the
 * stored string: a literal CR would come back as LF, so it is written as a character reference.
 */
const SPECIAL = /[&<>\r]/g;
const REPLACEMENTS: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '\r': '&#xD;' };

export function escapeXmlText(text: string): string {
  // Most text has nothing to escape; testing first spares building a new string.
  SPECIAL.lastIndex = 0;
  if (!SPECIAL.test(text)) return text;
  return text.replace(SPECIAL, (character) => REPLACEMENTS[character] ?? character);
}

/** Escapes text for a double-quoted XML attribute value. */
export function escapeXmlAttribute(text: string): string {
  return escapeXmlText(text).replace(/"/g, '&quot;').replace(/\n/g, '&#xA;').replace(/\t/g, '&#x9;');
}
