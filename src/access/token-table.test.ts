import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatTokenTable } from './token-table.js';

test('tokens are listed in aligned columns, to the second, never used shown as such', () => {
  const table = formatTokenTable([
    { id: 1, customer: 'default', kind: 'secret', label: null, origins: [], createdAt: '2024-05-01T09:00:00.123Z', lastUsedAt: null, revokedAt: null },
    { id: 12, customer: 'odeon-leeds', kind: 'secret', label: 'Kiosk — foyer', origins: [], createdAt: '2024-05-02T10:30:00.000Z', lastUsedAt: '2024-05-03T11:00:59.999Z', revokedAt: '2024-05-04T00:00:00.000Z' },
    { id: 13, customer: 'odeon-leeds', kind: 'publishable', label: 'Website', origins: ['https://odeon.example', 'https://www.odeon.example'], createdAt: '2024-05-05T10:30:00.000Z', lastUsedAt: null, revokedAt: null },
    { id: 14, customer: 'rex', kind: 'publishable', label: null, origins: [], createdAt: '2024-05-06T10:30:00.000Z', lastUsedAt: null, revokedAt: null },
  ]);
  assert.equal(
    table,
    [
      'ID  CUSTOMER     KIND         LABEL          CREATED               LAST USED             REVOKED               ORIGINS',
      '1   default      secret                      2024-05-01T09:00:00Z  never',
      '12  odeon-leeds  secret       Kiosk — foyer  2024-05-02T10:30:00Z  2024-05-03T11:00:59Z  2024-05-04T00:00:00Z',
      '13  odeon-leeds  publishable  Website        2024-05-05T10:30:00Z  never                                       https://odeon.example https://www.odeon.example',
      '14  rex          publishable                 2024-05-06T10:30:00Z  never                                       any',
    ].join('\n'),
  );
});

test('an empty list says what that means', () => {
  assert.match(formatTokenTable([]), /No token was ever issued: the default customer is served without one/);
});
