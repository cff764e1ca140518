import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseCustomerKeys } from './customer-keys.js';

test('reads a key a line, skipping blank lines and comments, with Windows line ends', () => {
  assert.deepEqual(parseCustomerKeys('# provisioned today\r\ncinema-0001\r\n\r\n  odeon-leeds  \n#cinema-0002\n', 'keys.txt'), ['cinema-0001', 'odeon-leeds']);
});

test('the first line that is not a key fails the list, naming the line', () => {
  assert.throws(() => parseCustomerKeys('cinema-1\n\nOdeon Leeds\nbad!\n', 'keys.txt'), {
    name: 'UnreadableInputError',
    message: `keys.txt: line 3: "Odeon Leeds" is not a customer key (1 to 64 of a-z, 0-9 and -)`,
  });
  assert.throws(() => parseCustomerKeys(`${'x'.repeat(65)}\n`, '-'), /: -: line 1: "x{65}" is not a customer key/);
});

test('a list without any key is refused', () => {
  assert.throws(() => parseCustomerKeys('# nobody yet\n\n', 'keys.txt'), { message: 'keys.txt: names no customer' });
});
