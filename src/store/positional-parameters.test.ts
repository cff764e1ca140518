import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toPositionalParameters } from './positional-parameters.js';

test('numbers each ? placeholder in order', () => {
  assert.equal(toPositionalParameters('SELECT a FROM t WHERE b = ? AND c IN (?, ?)'), 'SELECT a FROM t WHERE b = $1 AND c IN ($2, $3)');
  assert.equal(toPositionalParameters('SELECT 1'), 'SELECT 1');
});

test('leaves a ? in literals, quoted identifiers and comments alone', () => {
  assert.equal(
    toPositionalParameters(`SELECT '?', 'it''s ?', "odd?name" FROM t -- why?\nWHERE a = ? /* or ? */ AND b = ?`),
    `SELECT '?', 'it''s ?', "odd?name" FROM t -- why?\nWHERE a = $1 /* or ? */ AND b = $2`,
  );
});
