/**
 * A sync writes what changed upstream, and nothing when nothing did: the committed change it
 * describes (the one servers publish from) names the one session whose seats moved, and an
 * unchanged upstream commits no change at all.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadCatalogueChanges, loadCatalogueVersion } from '../src/store/catalogue-repository.js';
import { openDatabase, parseDatabaseSpec } from '../src/store/database.js';
import { DEMO, freshDatabase, runCli, serve, waitFor } from './helpers.js';
import { changeSeats, type Json } from './upstreams.js';

test('a sync commits the one session that changed upstream, and nothing when nothing changed', { timeout: 120_000 }, async () => {
  const upstreamDatabase = await freshDatabase();
  const upstream = await serve(['--database', upstreamDatabase, '--seed', DEMO]);
  const local = await freshDatabase();
  const sync = async (): Promise<string> => {
    const result = await runCli(['sync', '--database', local, '--from', upstream.url]);
    assert.equal(result.status, 0, result.stderr);
    return result.stdout;
  };
  const changesSince = async (version: number): Promise<{ version: number; changes: Json[] }> => {
    const db = await openDatabase(parseDatabaseSpec(local));
    try {
      return { version: await loadCatalogueVersion(db, 'default'), changes: (await loadCatalogueChanges(db, 'default', version, 100)).map(({ change }) => change as Json) };
    } finally {
      await db.close();
    }
  };

  await sync();
  const first = await changesSince(0);
  assert.equal(first.changes.length, 1);

  assert.match(await sync(), /the upstream has not changed\./);
  assert.deepEqual(await changesSince(first.version), { version: first.version, changes: [] });

  const [session] = JSON.parse(await readFile(join(DEMO, 'sessions.json'), 'utf8')) as Json[];
  await changeSeats(upstreamDatabase, 'default', 3);
  await waitFor(async () => ((await (await fetch(`${upstream.url}/v1/session/${String(session?.['Id'])}`)).json()) as Json)['SeatsAvailable'] === 3, 5000);
  await sync();
  assert.deepEqual(await changesSince(first.version), {
    version: first.version + 1,
    changes: [{ sessions: { added: [], changed: [session?.['Id']], removed: [] } }],
  });
});
