import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sniffFormat } from './source-picture.js';

test('the formats Marquee reads are told by their first bytes, and nothing else passes', () => {
  const padded = (head: number[] | string): Buffer => Buffer.concat([Buffer.from(head as never), Buffer.alloc(16)]);
  assert.equal(sniffFormat(padded([0xff, 0xd8, 0xff, 0xe0])), 'jpeg');
  assert.equal(sniffFormat(padded([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])), 'png');
  assert.equal(sniffFormat(padded('GIF89a')), 'gif');
  assert.equal(sniffFormat(padded('RIFF\0\0\0\0WEBPVP8 ')), 'webp');
  assert.equal(sniffFormat(Buffer.concat([Buffer.from([0, 0, 0, 28]), Buffer.from('ftypavifmif1miafMA1B'), Buffer.alloc(16)])), 'avif');
  assert.equal(sniffFormat(Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from('ftypmif1mif1heic'), Buffer.alloc(16)])), undefined, 'HEIC');
  assert.equal(sniffFormat(padded('<svg xmlns="http://www.w3.org/2000/svg">')), undefined);
  assert.equal(sniffFormat(padded('<!doctype html>')), undefined);
  assert.equal(sniffFormat(Buffer.from([0xff, 0xd8])), undefined, 'too short to be a picture');
});
