import assert from 'node:assert/strict';
import { test } from 'node:test';
import { negotiate, rememberedByHeader } from './negotiate.js';

const OFFERS = ['application/json', 'application/xml', 'text/json', 'text/xml'] as const;

test('no Accept, */* or nothing we offer gives the default', () => {
  for (const accept of [undefined, '', '*/*', 'text/plain', 'text/html', 'image/png', 'garbage', 'application/xml;q=0']) {
    assert.equal(negotiate(accept, OFFERS), 'application/json', String(accept));
  }
});

test('an exact type is chosen', () => {
  assert.equal(negotiate('application/xml', OFFERS), 'application/xml');
  assert.equal(negotiate('text/xml', OFFERS), 'text/xml');
  assert.equal(negotiate('TEXT/JSON', OFFERS), 'text/json');
});

test('q-values decide before order', () => {
  assert.equal(negotiate('application/json;q=0.5, application/xml', OFFERS), 'application/xml');
  assert.equal(negotiate('application/xml;q=0.9, application/json;q=0.91', OFFERS), 'application/json');
  assert.equal(negotiate('application/json;q=0, */*', OFFERS), 'application/xml');
});

test('the most specific matching range sets an offer\'s quality', () => {
  assert.equal(negotiate('text/*;q=0.2, text/xml', OFFERS), 'text/xml');
  assert.equal(negotiate('*/*;q=0.1, application/xml;q=0.5', OFFERS), 'application/xml');
  assert.equal(negotiate('text/*', OFFERS), 'text/json');
});

test('equal quality prefers the more specific range, then the order of offers', () => {
  assert.equal(negotiate('*/*, application/xml', OFFERS), 'application/xml');
  assert.equal(negotiate('application/xml, application/json', OFFERS), 'application/json');
});

test('malformed q-values count as 0', () => {
  assert.equal(negotiate('application/xml;q=2', OFFERS), 'application/json');
  assert.equal(negotiate('application/xml;q=abc, text/xml;q=0.4', OFFERS), 'text/xml');
});

test('answers are remembered by header value, undefined ones too, and forgotten when the memory is full', () => {
  const asked: string[] = [];
  const decide = rememberedByHeader((header: string) => {
    asked.push(header);
    return header === 'none' ? undefined : header.length;
  }, 2);
  assert.equal(decide('gzip'), 4);
  assert.equal(decide('gzip'), 4);
  assert.equal(decide('none'), undefined);
  assert.equal(decide('none'), undefined);
  assert.deepEqual(asked, ['gzip', 'none']);
  assert.equal(decide('br'), 2, 'a third value clears the memory');
  assert.equal(decide('gzip'), 4);
  assert.deepEqual(asked, ['gzip', 'none', 'br', 'gzip']);
});
