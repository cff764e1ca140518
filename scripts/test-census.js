// A reporter for node's test runner that writes, as one JSON array, every test that ended: its
// file, its name and whether it was skipped. run-tests reads it to compare the two databases' runs.
import { relative } from 'node:path';

const root = process.cwd();

// The test runner loads a reporter from its module's default export.
// eslint-disable-next-line no-restricted-syntax
export default async function* testCensus(source) {
  const tests = [];
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { name, file, skip, todo, details } = event.data;
    // A suite that ran is counted through its tests; a skipped one stands for all of them.
    if (details?.type === 'suite' && skip === undefined) continue;
    const path = file === undefined ? '?' : relative(root, file).replace(/^dist\//, '');
    tests.push({ file: path, name, skipped: skip !== undefined || todo !== undefined, passed: event.type === 'test:pass' });
  }
  yield `${JSON.stringify(tests)}\n`;
}
