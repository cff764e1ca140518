import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ByteSlabs } from './byte-slabs.js';

test('each text comes back as its own UTF-8 bytes, across slabs and larger than one', () => {
  const slabs = new ByteSlabs();
  const texts = ['{"Title":"Amélie"}', '', '日本映画 🎬', 'x'.repeat(600_000), '<Film>ß</Film>', 'é'.repeat(400_000), 'last'];
  const written = texts.map((text) => slabs.write(text));
  written.forEach((bytes, index) => assert.deepEqual(bytes, Buffer.from(texts[index] as string), `text ${index}`));
  // Writing on must never change bytes handed out before.
  for (let round = 0; round < 2000; round++) slabs.write('overwrite?'.repeat(100));
  written.forEach((bytes, index) => assert.equal(bytes.toString(), texts[index], `text ${index} after more writes`));
});
