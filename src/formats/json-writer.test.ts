import assert from 'node:assert/strict';
import { test } from 'node:test';
import { jsonString } from './json-writer.js';

test('a text is quoted exactly as JSON.stringify quotes it', () => {
  const texts = ['', 'Amélie', "it's", 'say "hi"', 'back\\slash', '\u0000', '\u001f', '\u007f', '\t\n', '日本映画 🎬', '\ud83c', 'x\udc00', '\u2028', '</script>'];
  for (const text of texts) assert.equal(jsonString(text), JSON.stringify(text), JSON.stringify(text));
  for (let code = 0; code < 0x10000; code++) {
    const text = `a${String.fromCharCode(code)}b`;
    assert.equal(jsonString(text), JSON.stringify(text), `U+${code.toString(16)}`);
  }
});
