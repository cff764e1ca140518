import assert from 'node:assert/strict';
import { test } from 'node:test';
import zlib from 'node:zlib';
import { Representation } from './representation.js';

const list = (bytes: number): Buffer => Buffer.from(`[${'{"Id":1,"Title":"Amélie","SeatsAvailable":120},'.repeat(bytes / 48)}{}]`);

test('a large body is compressed from its second compressed request on, in the coding asked alone', async (t) => {
  const brotli = t.mock.method(zlib, 'brotliCompress');
  const gzip = t.mock.method(zlib, 'gzip');
  const representation = new Representation(list(200_000));
  assert.equal(representation.encoded('br'), undefined, 'the first request goes out whole');
  assert.equal(brotli.mock.callCount(), 0, 'an edition asked for once is never compressed');
  assert.equal(representation.encoded('br'), undefined, 'the second goes out whole while its compression is under way');
  await representation.compressed('br');
  const encoded = representation.encoded('br');
  assert.ok(encoded !== undefined);
  assert.deepEqual(zlib.brotliDecompressSync(encoded.body), representation.body);
  assert.equal(encoded.etag, `${representation.etag.slice(0, -1)}-br"`);
  assert.equal(brotli.mock.callCount(), 1);
  assert.equal(gzip.mock.callCount(), 0, 'no coding is compressed that was not asked for');
  assert.equal(representation.bytes, representation.body.length + encoded.body.length);
});

test('a small body is compressed on its first compressed request, and a tiny one never', (t) => {
  const gzip = t.mock.method(zlib, 'gzipSync');
  const small = new Representation(list(10_000));
  const encoded = small.encoded('gzip');
  assert.ok(encoded !== undefined);
  assert.deepEqual(zlib.gunzipSync(encoded.body), small.body);
  assert.equal(new Representation(Buffer.from('[]')).encoded('gzip'), undefined);
  assert.equal(gzip.mock.callCount(), 1);
});
