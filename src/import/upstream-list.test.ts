import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseUpstreams, parseUpstreamUrl } from './upstream-list.js';

test('reads customer, URL and token a line, skipping blank lines and comments, with Windows line ends', { timeout: 5000 }, () => {
  const text = '# the group\'s sites\r\ncinema-1\thttps://api.example/v1/\tTOKEN-1\r\n\r\ncinema-2\thttp://10.0.0.2:8080\t-   # no token yet\n#cinema-3\thttp://x\t-\n';
  assert.deepEqual(parseUpstreams(text, 'upstreams.tsv'), [
    { customer: 'cinema-1', url: 'https://api.example/v1', token: 'TOKEN-1' },
    { customer: 'cinema-2', url: 'http://10.0.0.2:8080', token: undefined },
  ]);
  assert.deepEqual(parseUpstreams('# none yet\n', 'upstreams.tsv'), []);
});

test('the first bad line fails the list, naming the line', { timeout: 5000 }, () => {
  const bad = (text: string, message: string): void => assert.throws(() => parseUpstreams(`cinema-1\thttp://a.example\t-\n${text}\n`, 'up.tsv'), { name: 'UnreadableInputError', message });
  bad('cinema-2 http://b.example -', "up.tsv: line 2: must be customer<TAB>url<TAB>token ('-' for no token), got 1 field");
  bad('Cinema 2\thttp://b.example\t-', 'up.tsv: line 2: "Cinema 2" is not a customer key (1 to 64 of a-z, 0-9 and -)');
  bad('cinema-1\thttp://b.example\t-', "up.tsv: line 2: customer 'cinema-1' is on line 1 already");
  bad('cinema-2\tftp://b.example\t-', "up.tsv: line 2: the URL must be an http(s) URL, got 'ftp://b.example'");
  bad('cinema-2\thttp://b.example\t', "up.tsv: line 2: must be customer<TAB>url<TAB>token ('-' for no token), got 2 fields");
  bad('cinema-2\thttp://b.example\ta b', "up.tsv: line 2: the token must be one word, or '-' for none");
});

test('an upstream URL carries no secret: credentials, a query or a fragment are refused', { timeout: 5000 }, () => {
  assert.equal(parseUpstreamUrl('https://api.example/cinema//'), 'https://api.example/cinema');
  for (const text of ['https://user:secret@api.example', 'https://api.example/?key=secret', 'https://api.example/#x']) {
    const parsed = parseUpstreamUrl(text);
    assert.ok(typeof parsed !== 'string', text);
    assert.ok(!parsed.reason.includes('secret'), parsed.reason);
  }
});
