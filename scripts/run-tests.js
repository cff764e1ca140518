// Runs every compiled test file with node's test runner, once on SQLite and once on PostgreSQL
// (MARQUEE_TEST_DATABASE tells the tests which). Node 20 does not expand globs, so the files are
// listed here; finding none is a failure, never a silent pass. Set MARQUEE_TEST_DATABASE to run
// on one database only.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';

const POSTGRES_URL = process.env.MARQUEE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const roots = ['dist/src', 'dist/test'].filter((root) => existsSync(root));
const files = roots
  .flatMap((root) => readdirSync(root, { recursive: true }).map((name) => join(root, String(name))))
  .filter((file) => file.endsWith('.test.js'))
  .sort();
if (files.length === 0) {
  console.error('run-tests: no test files found under dist/; run `tsc -p tsconfig.json` first');
  process.exit(1);
}

/** Why PostgreSQL cannot be used for the tests, or undefined when it answers. */
async function postgresUnreachable() {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 3000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await client.end().catch(() => {});
  }
}

function run(database) {
  console.log(`run-tests: every test on ${database}, on Node.js ${process.versions.node}`);
  const reporter = process.env.CI ? ['--test-reporter=spec'] : [];
  // No test may hang a run: one that takes longer than this fails.
  const { status } = spawnSync(process.execPath, ['--test', '--test-timeout=180000', ...reporter, ...process.argv.slice(2), ...files], {
    stdio: 'inherit',
    env: { ...process.env, MARQUEE_TEST_DATABASE: database },
  });
  return status ?? 1;
}

const databases = process.env.MARQUEE_TEST_DATABASE ? [process.env.MARQUEE_TEST_DATABASE] : ['sqlite', 'postgres'];
if (!databases.every((database) => database === 'sqlite' || database === 'postgres')) {
  console.error(`run-tests: MARQUEE_TEST_DATABASE must be sqlite or postgres, got '${process.env.MARQUEE_TEST_DATABASE}'`);
  process.exit(2);
}
const failed = [];
for (const database of databases) {
  if (database === 'postgres') {
    const reason = await postgresUnreachable();
    if (reason !== undefined) {
      const message = `PostgreSQL at ${POSTGRES_URL} does not answer (${reason})`;
      if (process.env.CI === 'true' || process.env.MARQUEE_TEST_DATABASE === 'postgres') {
        console.error(`run-tests: ${message}; the PostgreSQL run cannot be skipped here`);
        failed.push(database);
        continue;
      }
      console.log(`run-tests: skipped the PostgreSQL run: ${message}; start it there or set MARQUEE_TEST_POSTGRES_URL to enable it`);
      continue;
    }
  }
  if (run(database) !== 0) failed.push(database);
}
if (failed.length > 0) console.error(`run-tests: failed on ${failed.join(' and ')}`);
process.exit(failed.length > 0 ? 1 : 0);
