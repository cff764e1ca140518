import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clientOf } from './client-address.js';

test('an IPv4 client is its address, also when it reaches a dual-stack socket', () => {
  assert.equal(clientOf('203.0.113.7'), '203.0.113.7');
  assert.equal(clientOf('::ffff:203.0.113.7'), '203.0.113.7');
  assert.equal(clientOf('::FFFF:203.0.113.7'), '203.0.113.7');
});

test('an IPv6 client is its /64 network, however the address is written', () => {
  assert.equal(clientOf('2001:db8:85a3:8d3:1319:8a2e:370:7348'), '2001:db8:85a3:8d3::/64');
  assert.equal(clientOf('2001:0db8:85a3:08d3:ffff:ffff:ffff:ffff'), '2001:db8:85a3:8d3::/64');
  assert.equal(clientOf('2001:db8::1'), '2001:db8:0:0::/64');
  assert.equal(clientOf('2001:db8:1:2::'), '2001:db8:1:2::/64');
  assert.equal(clientOf('2001:db8:1:2:3::9'), '2001:db8:1:2::/64');
  assert.equal(clientOf('::1'), '0:0:0:0::/64');
  assert.equal(clientOf('fe80::1'), 'fe80:0:0:0::/64');
});

test('a port a proxy wrote beside the address is not part of the client', () => {
  assert.equal(clientOf('203.0.113.7:51234'), '203.0.113.7');
  assert.equal(clientOf('[2001:db8:1:2::9]:51234'), '2001:db8:1:2::/64');
  assert.equal(clientOf('[2001:db8:1:2::9]'), '2001:db8:1:2::/64');
});
