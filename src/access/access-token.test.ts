import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkTokenLabel, newAccessToken, tokenDigest } from './access-token.js';
import { TokenSet } from './token-set.js';

test('a new token carries 256 random bits after its prefix, and never repeats', () => {
  const tokens = Array.from({ length: 1000 }, newAccessToken);
  for (const token of tokens) {
    assert.match(token, /^mq_[A-Za-z0-9_-]{43}$/);
    assert.equal(Buffer.from(token.slice(3), 'base64url').length, 32);
  }
  assert.equal(new Set(tokens).size, tokens.length);
});

test('a token set finds tokens by their digest alone', () => {
  const [a, b, c] = [newAccessToken(), newAccessToken(), newAccessToken()];
  const set = new TokenSet([
    { id: 1, customer: 'odeon', revoked: false, digest: tokenDigest(a) },
    { id: 2, customer: 'rex', revoked: true, digest: tokenDigest(b) },
  ]);
  assert.deepEqual(set.find(a), { id: 1, customer: 'odeon', revoked: false });
  assert.deepEqual(set.find(b), { id: 2, customer: 'rex', revoked: true });
  assert.equal(set.find(c), undefined);
  assert.equal(set.find(''), undefined);
  assert.equal(set.find(tokenDigest(a)), undefined, 'the digest is not a token');
  assert.equal(set.open, false);
  assert.equal(new TokenSet([]).open, true);
});

test('a revoked token keeps a service closed', () => {
  const set = new TokenSet([{ id: 1, customer: 'default', revoked: true, digest: tokenDigest(newAccessToken()) }]);
  assert.equal(set.open, false);
});

test('labels are one short line of text', () => {
  assert.equal(checkTokenLabel('Box office kiosk — foyer'), undefined);
  assert.equal(checkTokenLabel('x'.repeat(100)), undefined);
  assert.match(checkTokenLabel('x'.repeat(101)) ?? '', /at most 100/);
  assert.match(checkTokenLabel('  ') ?? '', /empty/);
  assert.match(checkTokenLabel('two\nlines') ?? '', /control/);
  assert.match(checkTokenLabel('bell\u0007') ?? '', /control/);
});
