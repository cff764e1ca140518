/**
 * The programme as operators run it: `marquee serve` with the demo, as `npm start` runs it, and
 * publishable keys issued and revoked through the command line while several servers run on one
 * database, none of whose log lines ever holds a key or a token.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { test } from 'node:test';
import { DEMO, freshDatabase, runCli, serve, waitFor, type ServerProcess } from './helpers.js';

async function stop(...servers: ServerProcess[]): Promise<void> {
  await Promise.all(
    servers.map(async (server) => {
      const exited = once(server.child, 'exit');
      server.child.kill('SIGTERM');
      assert.deepEqual(await exited, [0, null]);
    }),
  );
}

test('the demo, served as npm start serves it, says where its programme and calendar are, and serves them', { timeout: 60_000 }, async () => {
  const server = await serve(['--database', await freshDatabase(), '--seed', DEMO, '--seed-today']);
  try {
    const told = server.logs.find((entry) => entry['calendar'] !== undefined);
    assert.ok(told, 'a log line names the calendar');
    assert.equal(told['calendar'], `${server.url.replace('http://', 'webcal://')}/programme.ics`);
    assert.equal(told['programme'], `${server.url}/programme`);
    assert.equal(told['page'], `${server.url}/whats-on`);
    assert.match(String(told['msg']), /subscribe to its calendar at webcal:\/\/127\.0\.0\.1:\d+\/programme\.ics$/);
    const calendar = await fetch(`${server.url}/programme.ics`);
    assert.equal(calendar.status, 200);
    assert.equal(calendar.headers.get('content-type'), 'text/calendar; charset=utf-8');
    // The seed's sessions start today: the week ahead holds some on sale.
    assert.match(await calendar.text(), /BEGIN:VEVENT/);
    const programme = (await (await fetch(`${server.url}/programme`)).json()) as { features: unknown[] };
    assert.ok(programme.features.length > 0);
    const page = await fetch(`${server.url}/whats-on`);
    assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.ok(((await page.text()).match(/<article class="feature">/g)?.length ?? 0) > 0, 'the page shows the week\'s films and packages');
  } finally {
    await stop(server);
  }
});

test('a key issued or revoked through the command line reaches every running server; no log line holds a key or a token', { timeout: 90_000 }, async () => {
  const database = await freshDatabase();
  assert.equal((await runCli(['import', '--database', database, DEMO])).status, 0);
  const servers = await Promise.all([serve(['--database', database, '--poll-interval', '50']), serve(['--database', database, '--poll-interval', '50'])]);
  try {
    const secret = (await runCli(['token', 'create', '--database', database, '--customer', 'default'])).stdout.trim();
    const issued = await runCli(['token', 'create', '--database', database, '--customer', 'default', '--public', '--origin', 'https://cinema.example']);
    assert.equal(issued.status, 0, issued.stderr);
    const key = issued.stdout.trim();
    const status = async (server: ServerProcess, path: string, headers: Record<string, string> = {}): Promise<number> => (await fetch(`${server.url}${path}`, { headers })).status;
    await Promise.all(servers.map((server) => waitFor(async () => (await status(server, `/programme?key=${key}`)) === 200, 5000)));
    for (const server of servers) {
      assert.equal(await status(server, '/programme'), 401);
      assert.equal(await status(server, `/programme.ics?key=${key}`, { origin: 'https://cinema.example' }), 200);
      assert.equal(await status(server, `/whats-on?key=${key}&embed=1`), 200);
      assert.equal(await status(server, `/programme.jsonld?key=${key}`, { origin: 'https://elsewhere.example' }), 403);
      assert.equal(await status(server, `/v4/film?key=${key}`), 403);
      assert.equal(await status(server, `/v4/film/NOPE%zz?key=${key}`), 403);
      assert.equal(await status(server, `/programme?key=${secret}`), 401);
      assert.equal(await status(server, '/programme', { veeziaccesstoken: secret }), 200);
      assert.equal(await status(server, '/v4/film', { authorization: `Bearer ${secret}` }), 200);
    }
    assert.equal((await runCli(['token', 'revoke', '--database', database, '2'])).status, 0);
    await Promise.all(servers.map((server) => waitFor(async () => (await status(server, `/programme?key=${key}`)) === 401, 5000)));
  } finally {
    await stop(...servers);
  }
  const logged = servers.flatMap((server) => server.output).join('\n');
  assert.match(logged, /request completed/);
  for (const secret of [...logged.matchAll(/mq_(?:pub_)?[A-Za-z0-9_-]{43}/g)]) assert.fail(`a log line holds ${secret[0].slice(0, 10)}…`);
});
