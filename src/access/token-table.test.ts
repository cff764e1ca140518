import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatTokenTable } from './token-table.js';

test('tokens are listed in aligned columns, to the second, never used shown as such', () => {
  const table = formatTokenTable([
    { id: 1, customer: 'default', label: null, createdAt: '2024-05-01T09:00:00.123Z', lastUsedAt: null, revokedAt: null },
    { id: 12, customer: 'odeon-leeds', label: 'Kiosk — foyer', createdAt: '2024-05-02T10:30:00.000Z', lastUsedAt: '2024-05-03T11:00:59.999Z', revokedAt: '2024-05-04T00:00:00.000Z' },
  ]);
  assert.equal(
    table,
    [
      'ID  CUSTOMER     LABEL          CREATED               LAST USED             REVOKED',
      '1   default                     2024-05-01T09:00:00Z  never',
      '12  odeon-leeds  Kiosk — foyer  2024-05-02T10:30:00Z  2024-05-03T11:00:59Z  2024-05-04T00:00:00Z',
    ].join('\n'),
  );
});

test('an empty list says what that means', () => {
  assert.match(formatTokenTable([]), /No token was ever issued: the default customer is served without one/);
});
