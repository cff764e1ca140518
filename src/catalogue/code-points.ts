/** Strings measured and ordered by Unicode code point, as the contract counts characters. */

export function codePointLength(text: string): number {
  let length = 0;
  for (const _ of text) length++;
  return length;
}

/**
 * Orders strings by code point. JavaScript's `<` compares UTF-16 code units, which puts
 * U+E000..U+FFFF after astral characters; remapping the code units fixes exactly that case.
 */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

function codePointRank(unit: number): number {
  if (unit >= 0xe000) return unit - 0x800;
  if (unit >= 0xd800) return unit + 0x2000;
  return unit;
}

/** Characters that XML 1.0 cannot carry: most C0 controls, U+FFFE, U+FFFF and lone surrogates. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const XML_UNSAFE = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/u;

export function findXmlUnsafeCharacter(text: string): string | undefined {
  return XML_UNSAFE.exec(text)?.[0];
}

export function replaceXmlUnsafeCharacters(text: string): string {
  return text.replace(new RegExp(XML_UNSAFE.source, 'gu'), '\uFFFD');
}
