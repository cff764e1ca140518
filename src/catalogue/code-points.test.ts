import assert from 'node:assert/strict';
import { test } from 'node:test';
import { codePointLength, compareCodePoints, findXmlUnsafeCharacter, replaceXmlUnsafeCharacters } from './code-points.js';

test('lengths are counted in code points, not UTF-16 units', () => {
  assert.equal(codePointLength('🎬Steamboat'), 10);
  assert.equal('🎬Steamboat'.length, 11);
  assert.equal(codePointLength(''), 0);
});

test('strings are ordered by code point, astral characters after U+FFFF', () => {
  const sorted = ['\u{1F3AC}', '\uFF21', 'b', 'a', 'ab', ''].sort(compareCodePoints);
  assert.deepEqual(sorted, ['', 'a', 'ab', 'b', '\uFF21', '\u{1F3AC}']);
  // Plain `<` gets this one wrong: U+FF21 is a larger code unit than the surrogate U+D83C.
  assert.ok(compareCodePoints('\uFF21', '\u{1F3AC}') < 0);
  assert.equal(compareCodePoints('same', 'same'), 0);
});

test('characters XML 1.0 cannot carry are found; tab, LF, CR and pairs are fine', () => {
  assert.equal(findXmlUnsafeCharacter('tab\tline\ncr\r🎬'), undefined);
  assert.equal(findXmlUnsafeCharacter('bell\u0007'), '\u0007');
  assert.equal(findXmlUnsafeCharacter('\uFFFE'), '\uFFFE');
  assert.equal(findXmlUnsafeCharacter('lone \uD83C high'), '\uD83C');
  assert.equal(findXmlUnsafeCharacter('lone \uDFAC low'), '\uDFAC');
  assert.equal(replaceXmlUnsafeCharacters('a\u0000b\u0001'), 'a\uFFFDb\uFFFD');
});
