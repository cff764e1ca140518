import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatMillionths, parseMillionths } from './split-percent.js';

test('decimals are read exactly into millionths', () => {
  assert.equal(parseMillionths('33.333334'), 33_333_334);
  assert.equal(parseMillionths('50'), 50_000_000);
  assert.equal(parseMillionths('100.000000'), 100_000_000);
  assert.equal(parseMillionths('0.000001'), 1);
  assert.equal(parseMillionths('1e1'), 10_000_000);
  assert.equal(parseMillionths('2.5E-1'), 250_000);
  assert.equal(parseMillionths('12.3400000'), 12_340_000, 'trailing zeros past six decimals change nothing');
  assert.equal(parseMillionths('-0'), 0);
  assert.equal(parseMillionths('-5'), -5_000_000);
});

test('a seventh significant decimal or a non-number is refused', () => {
  assert.equal(parseMillionths('33.3333335'), undefined);
  assert.equal(parseMillionths('1e-7'), undefined);
  assert.equal(parseMillionths('abc'), undefined);
  assert.equal(parseMillionths('1.'), undefined);
  assert.equal(parseMillionths(''), undefined);
});

test('millionths are written with exactly six decimals', () => {
  assert.equal(formatMillionths(33_333_334), '33.333334');
  assert.equal(formatMillionths(50_000_000), '50.000000');
  assert.equal(formatMillionths(100_000_000), '100.000000');
  assert.equal(formatMillionths(0), '0.000000');
  assert.equal(formatMillionths(1), '0.000001');
});
