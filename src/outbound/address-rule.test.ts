import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { AddressRule, RefusedAddressError, isPublicAddress } from './address-rule.js';
import { sendOutbound } from './outbound-request.js';

const publicOnly = new AddressRule({ prefixes: [], onlyPrefixes: false, flag: '--image-source' });

describe('the address rule', { timeout: 10_000 }, () => {
  it('tells public addresses from loopback, private, link-local, multicast and unspecified ones', () => {
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700::6810:85e5']) assert.equal(isPublicAddress(address), true, address);
    for (const address of [
      '127.0.0.1',
      '127.8.9.10',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::',
      '::1',
      'fd00::1',
      'fe80::1',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      'not an address',
    ]) {
      assert.equal(isPublicAddress(address), false, address);
    }
  });

  it('refuses schemes other than http(s) and addresses written in the URL, naming the flag', () => {
    assert.throws(() => publicOnly.check(new URL('file:///etc/passwd')), /only http and https/);
    assert.throws(() => publicOnly.check(new URL('http://127.0.0.1:8080/a.jpg')), (error: unknown) => error instanceof RefusedAddressError && /--image-source/.test(error.message));
    assert.throws(() => publicOnly.check(new URL('http://[::1]/a.jpg')), RefusedAddressError);
    assert.throws(() => publicOnly.check(new URL('http://0x7f000001/a.jpg')), RefusedAddressError);
    publicOnly.check(new URL('https://images.example.com/a.jpg'));
  });

  it('lets named prefixes through, and with onlyPrefixes lets nothing else through', () => {
    const only = new AddressRule({ prefixes: ['http://127.0.0.1:9/posters/'], onlyPrefixes: true, flag: '--image-source' });
    only.check(new URL('http://127.0.0.1:9/posters/a.jpg'));
    assert.throws(() => only.check(new URL('http://127.0.0.1:9/other/a.jpg')), /does not start with a prefix named by --image-source/);
    assert.throws(() => only.check(new URL('https://images.example.com/a.jpg')), RefusedAddressError);
    const adding = new AddressRule({ prefixes: ['http://127.0.0.1:9/hooks/'], onlyPrefixes: false, flag: '--webhook-target' });
    adding.check(new URL('http://127.0.0.1:9/hooks/a'));
    adding.check(new URL('https://hooks.example.com/a'));
    assert.throws(() => adding.check(new URL('http://127.0.0.1:9/other')), /--webhook-target/);
    // A URL that starts with a prefix as text but goes to another host or port is not the prefix's.
    const bare = new AddressRule({ prefixes: ['http://127.0.0.1:9', 'http://10.0.0.5'], onlyPrefixes: false, flag: '--webhook-target' });
    bare.check(new URL('http://127.0.0.1:9/hooks'));
    bare.check(new URL('http://10.0.0.5/hooks'));
    for (const elsewhere of ['http://127.0.0.1:9@10.1.2.3/x', 'http://127.0.0.1:90/x', 'http://10.0.0.55/x']) {
      assert.throws(() => bare.check(new URL(elsewhere)), RefusedAddressError, elsewhere);
    }
    // A name that starts as the prefix's host does has its addresses checked as it connects.
    assert.notEqual(bare.lookupFor(new URL('http://10.0.0.5.example/x')), undefined);
    assert.equal(bare.lookupFor(new URL('http://10.0.0.5/x')), undefined);
  });

  it('checks the addresses a name resolves to as it connects, and never connects to a refused one', async () => {
    let connections = 0;
    const server = createServer((_request, response) => response.end('reached'));
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const signal = AbortSignal.timeout(5_000);
      await assert.rejects(sendOutbound(new URL(`http://localhost:${port}/a.jpg`), publicOnly, { signal }), RefusedAddressError);
      assert.equal(connections, 0);
      const named = new AddressRule({ prefixes: [`http://localhost:${port}/`], onlyPrefixes: false, flag: '--image-source' });
      const answer = await sendOutbound(new URL(`http://localhost:${port}/a.jpg`), named, { signal });
      answer.resume();
      assert.equal(answer.statusCode, 200);
      assert.equal(connections, 1);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
