import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { openDatabase, parseDatabaseSpec } from '../src/store/database.js';
import { DEMO, emptyDatabase, freshDatabase, runCli, runCliWritingTo, tempDir } from './helpers.js';

type Json = Record<string, unknown>;

const digestOf = (token: string): string => createHash('sha256').update(token).digest('hex');

async function create(database: string, ...args: string[]): Promise<string> {
  const result = await runCli(['token', 'create', '--database', database, ...args]);
  assert.equal(result.status, 0, result.stderr);
  assert.match(result.stdout, /^mq_[A-Za-z0-9_-]{43}\n$/, 'the token alone on stdout');
  return result.stdout.trim();
}

async function storedRows(database: string): Promise<Json[]> {
  const db = await openDatabase(parseDatabaseSpec(database));
  try {
    return await db.query<Json>('SELECT * FROM access_token ORDER BY id');
  } finally {
    await db.close();
  }
}

describe('marquee token', () => {
  test('create prints a new token once; list shows it without the token; revoke ends it', async () => {
    const database = await freshDatabase();
    assert.equal((await runCli(['import', '--database', database, DEMO])).status, 0);

    const issued = await runCli(['token', 'create', '--database', database, '--customer', 'default', '--label', 'Box office kiosk']);
    assert.equal(issued.status, 0, issued.stderr);
    const kiosk = issued.stdout.trim();
    assert.match(issued.stderr, /^Issued token 1 for customer 'default'\. Keep it now: it cannot be shown again\.\n$/);
    const website = await create(database, '--customer', 'odeon-leeds');
    assert.notEqual(kiosk, website);

    const table = await runCli(['token', 'list', '--database', database]);
    assert.equal(table.status, 0, table.stderr);
    const lines = table.stdout.trim().split('\n');
    assert.match(lines[0] ?? '', /^ID\s+CUSTOMER\s+KIND\s+LABEL\s+CREATED\s+LAST USED\s+REVOKED\s+ORIGINS$/);
    assert.match(lines[1] ?? '', /^1\s+default\s+secret\s+Box office kiosk\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\s+never$/);
    assert.match(lines[2] ?? '', /^2\s+odeon-leeds\s+secret\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\s+never$/);

    // A switch given twice is as once.
    const json = await runCli(['token', 'list', '--json', '--json', '--database', database]);
    assert.equal(json.status, 0, json.stderr);
    const tokens = JSON.parse(json.stdout) as Json[];
    assert.deepEqual(tokens.map((token) => Object.keys(token)), [0, 1].map(() => ['id', 'customer', 'kind', 'label', 'origins', 'createdAt', 'lastUsedAt', 'revokedAt']));
    assert.deepEqual(tokens.map((token) => [token['id'], token['customer'], token['kind'], token['label'], token['origins'], token['lastUsedAt'], token['revokedAt']]), [
      [1, 'default', 'secret', 'Box office kiosk', [], null, null],
      [2, 'odeon-leeds', 'secret', null, [], null, null],
    ]);

    for (const secret of [kiosk, website]) {
      for (const output of [table.stdout, json.stdout]) {
        assert.ok(!output.includes(secret) && !output.includes(secret.slice(3)) && !output.includes(digestOf(secret)), 'neither token nor digest is listed');
      }
    }
    const rows = await storedRows(database);
    assert.deepEqual(rows.map((row) => row['digest']), [digestOf(kiosk), digestOf(website)], 'the digest is stored');
    assert.ok(!JSON.stringify(rows).includes(kiosk.slice(3)) && !JSON.stringify(rows).includes(website.slice(3)), 'the token is not');

    const revoked = await runCli(['token', 'revoke', '--database', database, '2']);
    assert.equal(revoked.status, 0, revoked.stderr);
    assert.match(revoked.stdout, /^Revoked token 2 of customer 'odeon-leeds'/);
    const again = await runCli(['token', 'revoke', '2', '--database', database]);
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stdout, /^Token 2 of customer 'odeon-leeds' was already revoked at \d{4}-/);
    const after = JSON.parse((await runCli(['token', 'list', '--json', '--database', database])).stdout) as Json[];
    assert.equal(after[0]?.['revokedAt'], null);
    assert.match(String(after[1]?.['revokedAt']), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(after.length, 2, 'a revoked token stays listed');
  });

  test('create --public issues a publishable key, locked to its origins, listed and revoked like any token', async () => {
    const database = await freshDatabase();
    assert.equal((await runCli(['import', '--database', database, DEMO])).status, 0);
    const issued = await runCli([
      'token', 'create', '--database', database, '--customer', 'default', '--public', '--label', 'Website',
      '--origin', 'https://Cinema.example:443', '--origin', 'http://localhost:3000', '--origin', 'https://cinema.example',
    ]);
    assert.equal(issued.status, 0, issued.stderr);
    assert.match(issued.stdout, /^mq_pub_[A-Za-z0-9_-]{43}\n$/, 'the key alone on stdout');
    assert.equal(
      issued.stderr,
      "Issued publishable key 1 for customer 'default': it reads only the programme, from pages of https://cinema.example, http://localhost:3000. Keep it now: it cannot be shown again.\n",
    );
    const anywhere = await runCli(['token', 'create', '--database', database, '--customer', 'default', '--public']);
    assert.equal(anywhere.status, 0, anywhere.stderr);
    assert.match(anywhere.stderr, /reads only the programme, from any page\./);

    const lines = (await runCli(['token', 'list', '--database', database])).stdout.trim().split('\n');
    assert.match(lines[1] ?? '', /^1\s+default\s+publishable\s+Website\s+\S+\s+never\s+https:\/\/cinema\.example http:\/\/localhost:3000$/);
    assert.match(lines[2] ?? '', /^2\s+default\s+publishable\s+\S+\s+never\s+any$/);
    const listed = JSON.parse((await runCli(['token', 'list', '--json', '--database', database])).stdout) as Json[];
    assert.deepEqual(listed.map((token) => [token['kind'], token['origins']]), [
      ['publishable', ['https://cinema.example', 'http://localhost:3000']],
      ['publishable', []],
    ]);
    const rows = await storedRows(database);
    assert.deepEqual(rows.map((row) => row['digest']), [digestOf(issued.stdout.trim()), digestOf(anywhere.stdout.trim())], 'only the digest is stored');
    assert.match((await runCli(['token', 'revoke', '--database', database, '1'])).stdout, /^Revoked token 1 of customer 'default'/);
  });

  test('a token for a customer without a catalogue is issued with a warning', async () => {
    const database = await freshDatabase();
    const result = await runCli(['token', 'create', '--database', database, '--customer', 'new-site']);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stderr, /warning: customer 'new-site' has no catalogue yet; the token sees empty lists until 'marquee import --customer new-site' loads one/);
  });

  test('a token that cannot be written is revoked, and the command fails saying nothing was issued', async () => {
    const database = await freshDatabase();
    const keys = join(await tempDir(), 'keys.txt');
    await writeFile(keys, 'cinema-0001\ncinema-0002\n');
    for (const args of [['--customer', 'default'], ['--customers-from', keys]]) {
      const result = await runCliWritingTo('/dev/full', ['token', 'create', '--database', database, ...args]);
      assert.equal(result.status, 1, args.join(' '));
      assert.equal(result.stderr, 'marquee: token create: nothing was issued: its secret could not be written to standard output (ENOSPC: no space left on device, write)\n');
    }
    const listed = JSON.parse((await runCli(['token', 'list', '--json', '--database', database])).stdout) as Json[];
    assert.deepEqual(listed.map((info) => [info['customer'], info['revokedAt'] !== null]), [['default', true], ['cinema-0001', true], ['cinema-0002', true]]);
  });

  test('an empty list says the service is open', async () => {
    const database = await emptyDatabase();
    const result = await runCli(['token', 'list', '--database', database]);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /^No token was ever issued: the default customer is served without one\./);
    assert.equal((await runCli(['token', 'list', '--json', '--database', database])).stdout, '[]\n');
  });

  test('revoking an id never issued fails, naming it', async () => {
    const result = await runCli(['token', 'revoke', '--database', await freshDatabase(), '7']);
    assert.equal(result.status, 1);
    assert.equal(result.stderr, "marquee: no token has the id 7; 'marquee token list' shows them\n");
  });

  test('bad usage is one line naming the flag or argument, exit status 2', async () => {
    const database = await freshDatabase();
    const cases: [string[], RegExp][] = [
      [['token', 'create'], /^marquee: token create: --customer KEY or --customers-from FILE is required$/],
      [['token', 'create', '--customer', 'Odeon!'], /^marquee: --customer must be 1 to 64 of a-z, 0-9 and -, got 'Odeon!'$/],
      [['token', 'create', '--customer', 'x'.repeat(65)], /^marquee: --customer must be 1 to 64/],
      [['token', 'create', '--customer', 'a', '--label', ''], /^marquee: token create: --label must not be empty$/],
      [['token', 'create', '--customer', 'a', '--label', 'two\nlines'], /^marquee: token create: --label must not hold control characters, line separators or direction overrides$/],
      [['token', 'create', '--customer', 'a', '--label', 'x\u202egnp.exe'], /^marquee: token create: --label must not hold control characters, line separators or direction overrides$/],
      [['token', 'create', '--customer', 'a', '--label', 'one\u2028two'], /--label must not hold control characters/],
      [['token', 'create', '--customer', 'a', '--label', 'x'.repeat(101)], /^marquee: token create: --label must be at most 100 characters$/],
      [['token', 'create', '--customer'], /^marquee: token create: --customer needs a value$/],
      [['token', 'list', '--customer', 'a'], /^marquee: token list: unknown option --customer$/],
      [['token', 'revoke'], /^marquee: token revoke: name the ID of the token to revoke/],
      [['token', 'revoke', 'abc'], /^marquee: token revoke: ID must be a token id as 'marquee token list' shows it, got 'abc'$/],
      [['token', 'revoke', '1', '2'], /^marquee: token revoke: unexpected argument 2$/],
      [['token', 'frob'], /^marquee: token: unknown subcommand 'frob'; use create, list or revoke$/],
      [['token', 'create', '--customer', 'a', '--origin', 'https://cinema.example'], /^marquee: token create: --origin needs --public: a secret token is never sent from a web page$/],
      [['token', 'create', '--customer', 'a', '--public', '--origin', 'cinema.example'], /^marquee: token create: --origin must be an origin such as https:\/\/cinema\.example \(scheme, host and port only\), got 'cinema\.example'$/],
      [['token', 'create', '--customer', 'a', '--public', '--origin', 'https://cinema.example/whats-on'], /^marquee: token create: --origin must be an origin/],
      [['token', 'create', '--customer', 'a', '--public', '--origin'], /^marquee: token create: --origin needs a value$/],
    ];
    for (const [args, message] of cases) {
      const result = await runCli([...args, '--database', database]);
      assert.equal(result.status, 2, args.join(' '));
      assert.equal(result.stderr.trim().split('\n').length, 1, args.join(' '));
      assert.match(result.stderr.trim(), message, args.join(' '));
    }
    assert.deepEqual(await storedRows(database), [], 'nothing was issued');
  });

  test('help names every option, and --customer as required', async () => {
    const result = await runCli(['token', 'create', '--help']);
    assert.equal(result.status, 0);
    assert.match(result.stdout, /--customer KEY\s+.*; required/);
    assert.match(result.stdout, /--label/);
    assert.equal((await runCli(['token'])).status, 2);
    assert.match((await runCli(['token', '--help'])).stdout, /create --customer KEY \[--label TEXT\]/);
    assert.match((await runCli(['token', '--help'])).stdout, /create --customer KEY --public \[--origin ORIGIN\]/);
    assert.match(result.stdout, /--public\s+issue a publishable key/);
    assert.match(result.stdout, /--origin ORIGIN\s+with --public: an origin/);
  });
});
