/**
 * The only tests a run may skip, and why. Each needs something one of the two databases cannot
 * give, so it runs on the other; `scripts/run-tests.js` fails a run that skipped anything else
 * under CI, or that skipped one of these on the database it is meant for.
 */
export const SKIPPED_BY_DESIGN = [
  {
    file: 'test/writers.test.js',
    test: 'an import that fills the disk says so, and leaves the catalogue as it was',
    skippedOn: 'postgres',
    why: 'the disk of a PostgreSQL server is not the test\'s to fill',
  },
  {
    file: 'test/shared-database.test.js',
    test: 'a server answers from its last catalogue while its database is away, and catches up when it returns',
    skippedOn: 'sqlite',
    why: 'cutting a database off is done on PostgreSQL',
  },
  {
    file: 'test/sync.test.js',
    test: 'on PostgreSQL, a sync of one changed session takes four round trips to the database more than one of an unchanged upstream',
    skippedOn: 'sqlite',
    why: 'SQLite runs in the process: it has no round trips to count',
  },
] as const;

/** The `skip` option of the test named `test` on this run's database: its reason where it is skipped by design. */
export function skippedByDesign(test: (typeof SKIPPED_BY_DESIGN)[number]['test']): string | false {
  const entry = SKIPPED_BY_DESIGN.find((candidate) => candidate.test === test);
  const database = process.env['MARQUEE_TEST_DATABASE'] === 'postgres' ? 'postgres' : 'sqlite';
  return entry !== undefined && entry.skippedOn === database ? entry.why : false;
}
