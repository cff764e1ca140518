import assert from 'node:assert/strict';
import { once } from 'node:events';
import { test } from 'node:test';
import { DEMO, freshDatabase, runCli, serve, waitFor } from './helpers.js';

type Json = Record<string, unknown>;

async function createToken(database: string, customer = 'default'): Promise<string> {
  const result = await runCli(['token', 'create', '--database', database, '--customer', customer]);
  assert.equal(result.status, 0, result.stderr);
  return result.stdout.trim();
}

async function status(url: string, headers: Record<string, string> = {}): Promise<number> {
  const response = await fetch(url, { headers });
  await response.arrayBuffer();
  return response.status;
}

// Changes reach a server at its next look at the database (every 250 ms); how soon is reported, not
// asserted: the deadlines only stop a test that would otherwise wait for ever.
const DEADLINE_MS = 30_000;

test('an open server says so, closes once the first token exists, with no restart, and a revocation reaches it the same way', async (t) => {
  const database = await freshDatabase();
  const server = await serve(['--database', database, '--seed', DEMO]);
  const films = `${server.url}/v4/film`;
  try {
    const warning = server.logs.find((entry) => String(entry['msg']).startsWith('no access token exists'));
    assert.ok(warning, 'the start-up log says the service is open');
    assert.equal(warning['level'], 40);
    assert.match(String(warning['msg']), /the 'default' customer is served to anyone without a token until 'marquee token create' issues one/);
    assert.equal(await status(films), 200);

    const token = await createToken(database);
    const closedAfter = await waitFor(async () => (await status(films)) === 401, DEADLINE_MS);
    t.diagnostic(`closed ${closedAfter} ms after the first token was created`);
    // The log leaves in batches: wait for the line itself.
    await waitFor(() => server.logs.some((entry) => entry['msg'] === 'access tokens loaded: every API request needs one'), DEADLINE_MS);
    assert.equal(await status(films, { veeziaccesstoken: token }), 200);
    assert.equal(await status(films, { authorization: `Bearer ${token}` }), 200);
    const refused = await fetch(films);
    assert.equal(refused.headers.get('www-authenticate'), 'Bearer realm="marquee"');
    assert.equal(((await refused.json()) as Json)['status'], 401);

    const revoked = await runCli(['token', 'revoke', '--database', database, '1']);
    assert.equal(revoked.status, 0, revoked.stderr);
    const revokedAfter = await waitFor(async () => (await status(films, { veeziaccesstoken: token })) === 401, DEADLINE_MS);
    t.diagnostic(`refused ${revokedAfter} ms after the token was revoked`);
    assert.equal(await status(films), 401, 'revoking the last token does not open the service again');
  } finally {
    server.child.kill('SIGTERM');
  }
  const [code] = await once(server.child, 'exit');
  assert.equal(code, 0);
});

test('a closed server says tokens are needed; last use is written every few seconds and when it stops', async () => {
  const database = await freshDatabase();
  const token = await createToken(database);
  const other = await createToken(database, 'another');
  const lastUses = async (): Promise<unknown[]> =>
    (JSON.parse((await runCli(['token', 'list', '--json', '--database', database])).stdout) as Json[]).map((info) => info['lastUsedAt']);
  const server = await serve(['--database', database, '--seed', DEMO]);
  try {
    assert.ok(server.logs.some((entry) => entry['msg'] === 'access tokens loaded: every API request needs one' && entry['tokens'] === 2));
    assert.ok(!server.logs.some((entry) => String(entry['msg']).startsWith('no access token exists')));
    assert.equal(await status(`${server.url}/v4/film/HO00000101`, { veeziaccesstoken: token }), 200);
    // Written by the flush every 5 s while the server runs. A flush that finds another writer
    // holding the database leaves its times to the next one.
    await waitFor(async () => typeof (await lastUses())[0] === 'string', DEADLINE_MS).catch((error: unknown) => {
      const warnings = server.logs.filter((entry) => Number(entry['level']) >= 40);
      throw new Error(`${String(error)}; the server's warnings: ${JSON.stringify(warnings)}`);
    });
    assert.equal((await lastUses())[1], null);
    assert.equal(await status(`${server.url}/v4/film/HO00000101`, { veeziaccesstoken: other }), 404, "another customer's token sees none of default's films");
  } finally {
    server.child.kill('SIGTERM');
  }
  const [code] = await once(server.child, 'exit');
  assert.equal(code, 0);
  assert.match(String((await lastUses())[1]), /^\d{4}-\d\d-\d\dT/, 'the use just before the stop is written as the server stops');
});

test('rate limits and CORS origins come from flags and the environment', async () => {
  const database = await freshDatabase();
  const server = await serve(['--database', database, '--seed', DEMO, '--rate-limit', '0.01', '--rate-burst', '2', '--cors-origin', 'https://one.example'], {
    MARQUEE_CORS_ORIGINS: 'https://ignored.example',
  });
  try {
    const first = await fetch(`${server.url}/v4/film`, { headers: { origin: 'https://one.example' } });
    assert.equal(first.status, 200);
    assert.equal(first.headers.get('access-control-allow-origin'), 'https://one.example');
    assert.equal(first.headers.get('ratelimit-limit'), '2');
    const ignored = await fetch(`${server.url}/v4/film`, { headers: { origin: 'https://ignored.example' } });
    assert.equal(ignored.headers.get('access-control-allow-origin'), null, 'the flag wins over the variable');
    const third = await fetch(`${server.url}/v4/film`);
    assert.equal(third.status, 429);
    // One request a hundred seconds: however slow the machine, the bucket has not refilled.
    const retryAfter = Number(third.headers.get('retry-after'));
    assert.ok(retryAfter > 50 && retryAfter <= 100, `Retry-After ${retryAfter}`);
  } finally {
    server.child.kill('SIGTERM');
    await once(server.child, 'exit');
  }

  const fromEnv = await serve(['--database', database], { MARQUEE_CORS_ORIGINS: 'https://one.example, HTTP://Two.Example:80' });
  try {
    const preflight = await fetch(`${fromEnv.url}/v1/filmpackage`, { method: 'OPTIONS', headers: { origin: 'http://two.example', 'access-control-request-method': 'GET' } });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), 'http://two.example');
    assert.equal((await fetch(`${fromEnv.url}/v4/film`)).headers.get('ratelimit-limit'), null, 'no limit by default');
  } finally {
    fromEnv.child.kill('SIGTERM');
    await once(fromEnv.child, 'exit');
  }
});

test('bad access settings stop serve with one line naming the flag or variable', async () => {
  const cases: [string[], NodeJS.ProcessEnv, RegExp][] = [
    [['--cors-origin', 'cinema.example'], {}, /^marquee: --cors-origin must be an origin such as https:\/\/cinema\.example \(scheme, host and port only\), got 'cinema\.example'$/],
    [['--cors-origin', 'https://a.example', '--cors-origin', 'https://b.example/path'], {}, /^marquee: --cors-origin must be an origin .*, got 'https:\/\/b\.example\/path'$/],
    [[], { MARQUEE_CORS_ORIGINS: 'https://a.example,*' }, /^marquee: MARQUEE_CORS_ORIGINS must be an origin .*, got '\*'$/],
    [['--rate-limit', 'fast'], {}, /^marquee: --rate-limit must be off or a number of requests per second from 0\.001 to 1000000, got 'fast'$/],
    [[], { MARQUEE_RATE_LIMIT: '-1' }, /^marquee: MARQUEE_RATE_LIMIT must be off/],
    [['--rate-burst', '0'], {}, /^marquee: --rate-burst must be an integer from 1 to 1000000, got '0'$/],
  ];
  for (const [args, env, message] of cases) {
    const result = await runCli(['serve', '--database', await freshDatabase(), ...args], env);
    assert.equal(result.status, 2, args.join(' '));
    assert.match(result.stderr.trim(), message);
    assert.equal(result.stderr.trim().split('\n').length, 1);
  }
});
