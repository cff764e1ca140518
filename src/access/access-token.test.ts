import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkTokenLabel, newAccessToken, tokenDigest } from './access-token.js';
import { TokenSet } from './token-set.js';

test('a new token carries 256 random bits after the prefix of its kind, and never repeats', () => {
  for (const [kind, prefix] of [['secret', 'mq_'], ['publishable', 'mq_pub_']] as const) {
    const tokens = Array.from({ length: 1000 }, () => newAccessToken(kind));
    for (const token of tokens) {
      assert.ok(token.startsWith(prefix), token);
      assert.match(token.slice(prefix.length), /^[A-Za-z0-9_-]{43}$/);
      assert.equal(Buffer.from(token.slice(prefix.length), 'base64url').length, 32);
    }
    assert.equal(new Set(tokens).size, tokens.length);
  }
});

test('a token set finds tokens by their digest alone', () => {
  const [a, b, c] = [newAccessToken('secret'), newAccessToken('publishable'), newAccessToken('secret')];
  const odeon = { id: 1, customer: 'odeon', kind: 'secret', origins: [], revoked: false } as const;
  const rex = { id: 2, customer: 'rex', kind: 'publishable', origins: ['https://rex.example'], revoked: true } as const;
  const set = new TokenSet([
    { ...odeon, digest: tokenDigest(a) },
    { ...rex, digest: tokenDigest(b) },
  ]);
  assert.deepEqual(set.find(a), odeon);
  assert.deepEqual(set.find(b), rex);
  assert.equal(set.find(c), undefined);
  assert.equal(set.find(''), undefined);
  assert.equal(set.find(tokenDigest(a)), undefined, 'the digest is not a token');
  assert.equal(set.open, false);
  assert.equal(new TokenSet([]).open, true);
});

test('a revoked token keeps a service closed', () => {
  const set = new TokenSet([{ id: 1, customer: 'default', kind: 'secret', origins: [], revoked: true, digest: tokenDigest(newAccessToken('secret')) }]);
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
