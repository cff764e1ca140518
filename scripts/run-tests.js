// Runs every compiled test file with node's test runner, once on SQLite and once on PostgreSQL
// (MARQUEE_TEST_DATABASE tells the tests which). Node 20 does not expand globs, so the files are
// listed here; finding none is a failure, never a silent pass. Set MARQUEE_TEST_DATABASE to run
// on one database only.
//
// A run passes only when tests ran, and skipped nothing but what test/skipped-by-design.ts lists
// (under CI; elsewhere other skips, such as a machine without Chromium, are named); the two
// databases must run the same tests. Under CI (CI=true) PostgreSQL must answer.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

const POSTGRES_URL = process.env.MARQUEE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const CI = process.env.CI === 'true';

const roots = ['dist/src', 'dist/test'].filter((root) => existsSync(root));
const files = roots
  .flatMap((root) => readdirSync(root, { recursive: true }).map((name) => join(root, String(name))))
  .filter((file) => file.endsWith('.test.js'))
  .sort();
if (files.length === 0) {
  console.error('run-tests: no test files found under dist/; run `tsc -p tsconfig.json` first');
  process.exit(1);
}
const { SKIPPED_BY_DESIGN } = await import(new URL('../dist/test/skipped-by-design.js', import.meta.url).href);

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

const censusDir = mkdtempSync(join(tmpdir(), 'marquee-census-'));
process.on('exit', () => rmSync(censusDir, { recursive: true, force: true }));

/**
 * Test files run three at a time: most of a file's time is spent waiting (for servers to start,
 * syncs to come due, processes to exit), so on two cores three at once take about 15 % less time
 * than two (9.5 against 10.7 minutes for both databases), and load the machine as a busy one
 * would, which the tests must bear.
 */
const TEST_FILES_AT_ONCE = 3;

/** Runs every test on `database`; answers its exit status and the tests that ended, as test-census wrote them. */
function run(database) {
  console.log(`run-tests: every test on ${database}, on Node.js ${process.versions.node}`);
  const census = join(censusDir, `${database}.json`);
  const reporters = ['--test-reporter=spec', '--test-reporter-destination=stdout', '--test-reporter=./scripts/test-census.js', `--test-reporter-destination=${census}`];
  // No test may hang a run: one that takes longer than this fails.
  const { status } = spawnSync(process.execPath, ['--test', '--test-timeout=180000', `--test-concurrency=${TEST_FILES_AT_ONCE}`, ...reporters, ...process.argv.slice(2), ...files], {
    stdio: 'inherit',
    env: { ...process.env, MARQUEE_TEST_DATABASE: database },
  });
  const tests = existsSync(census) ? JSON.parse(readFileSync(census, 'utf8') || '[]') : [];
  return { status: status ?? 1, tests };
}

const key = (test) => `${test.file}: ${test.name}`;
const designKey = (entry) => `${entry.file}: ${entry.test}`;

/** What is wrong with the tests a run on `database` ended, beyond failures the runner reports itself. */
function censusProblems(database, tests) {
  const problems = [];
  const ran = tests.filter((test) => !test.skipped);
  if (ran.length === 0) problems.push('no test ran');
  const byDesign = SKIPPED_BY_DESIGN.filter((entry) => entry.skippedOn === database);
  const designed = new Set(byDesign.map(designKey));
  const unplanned = tests.filter((test) => test.skipped && !designed.has(key(test)));
  if (unplanned.length > 0) {
    const list = unplanned.map(key).join('; ');
    if (CI) problems.push(`skipped what is not skipped by design: ${list}`);
    else console.log(`run-tests: on ${database}, skipped outside the design (a failure under CI): ${list}`);
  }
  // Arguments passed on (a name pattern, say) may leave a test out altogether.
  const everyTest = process.argv.length === 2;
  for (const entry of byDesign) {
    if (everyTest && !tests.some((test) => test.skipped && key(test) === designKey(entry))) problems.push(`did not skip, as test/skipped-by-design.ts says it does: ${designKey(entry)}`);
  }
  return problems;
}

const databases = process.env.MARQUEE_TEST_DATABASE ? [process.env.MARQUEE_TEST_DATABASE] : ['sqlite', 'postgres'];
if (!databases.every((database) => database === 'sqlite' || database === 'postgres')) {
  console.error(`run-tests: MARQUEE_TEST_DATABASE must be sqlite or postgres, got '${process.env.MARQUEE_TEST_DATABASE}'`);
  process.exit(2);
}
const failed = [];
const runs = new Map();
for (const database of databases) {
  if (database === 'postgres') {
    const reason = await postgresUnreachable();
    if (reason !== undefined) {
      const message = `PostgreSQL at ${POSTGRES_URL} does not answer (${reason})`;
      if (CI || process.env.MARQUEE_TEST_DATABASE === 'postgres') {
        console.error(`run-tests: ${message}; the PostgreSQL run cannot be skipped here`);
        failed.push(database);
        continue;
      }
      console.log(`run-tests: skipped the PostgreSQL run: ${message}; start it there or set MARQUEE_TEST_POSTGRES_URL to enable it`);
      continue;
    }
  }
  const { status, tests } = run(database);
  runs.set(database, tests);
  const problems = censusProblems(database, tests);
  for (const problem of problems) console.error(`run-tests: on ${database}, ${problem}`);
  if (status !== 0 || problems.length > 0) failed.push(database);
}

// Both databases run the same tests: a file that did not load on one would otherwise go unseen.
const [sqlite, postgres] = [runs.get('sqlite'), runs.get('postgres')];
if (sqlite !== undefined && postgres !== undefined) {
  const names = (tests) => tests.map(key).sort();
  const [one, other] = [names(sqlite), names(postgres)];
  const onlyIn = (these, those) => these.filter((name) => !those.includes(name));
  if (one.length !== other.length || onlyIn(one, other).length > 0 || onlyIn(other, one).length > 0) {
    console.error(`run-tests: the databases ran different tests: ${sqlite.length} on SQLite, ${postgres.length} on PostgreSQL`);
    for (const name of onlyIn(one, other)) console.error(`run-tests: only on SQLite: ${name}`);
    for (const name of onlyIn(other, one)) console.error(`run-tests: only on PostgreSQL: ${name}`);
    failed.push('the comparison of both');
  }
}

if (failed.length > 0) {
  console.error(`run-tests: failed on ${failed.join(' and ')}`);
  process.exit(1);
}
const counts = [...runs].map(([database, tests]) => `${tests.filter((test) => !test.skipped).length} on ${database}`);
const passed = [...runs.values()].flat().filter((test) => !test.skipped).length;
const skipped = [...runs.values()].flat().filter((test) => test.skipped).length;
// .ci/run reads this line.
console.log(`run-tests: ${passed} tests passed (${counts.join(', ')}), ${skipped} skipped`);
