import assert from 'node:assert/strict';
import { test } from 'node:test';
import { negotiateEncoding } from './accept-encoding.js';

test('brotli is preferred on a tie, gzip when it is all the client takes', () => {
  assert.equal(negotiateEncoding('gzip, deflate, br'), 'br');
  assert.equal(negotiateEncoding('gzip'), 'gzip');
  assert.equal(negotiateEncoding('x-gzip'), 'gzip');
  assert.equal(negotiateEncoding('br'), 'br');
  assert.equal(negotiateEncoding('*'), 'br');
});

test('q-values rank the codings and 0 refuses one', () => {
  assert.equal(negotiateEncoding('br;q=0.5, gzip'), 'gzip');
  assert.equal(negotiateEncoding('br;q=0, *'), 'gzip');
  assert.equal(negotiateEncoding('gzip;q=0, br;q=0'), undefined);
  assert.equal(negotiateEncoding('*;q=0'), undefined);
});

test('no header, identity or unknown codings get the identity body', () => {
  assert.equal(negotiateEncoding(undefined), undefined);
  assert.equal(negotiateEncoding(''), undefined);
  assert.equal(negotiateEncoding('identity'), undefined);
  assert.equal(negotiateEncoding('deflate, zstd'), undefined);
  assert.equal(negotiateEncoding('gzip;q=nope'), undefined);
});
