// Runs every compiled test file with node's test runner. Node 20 does not expand globs, so the
// files are listed here; finding none is a failure, never a silent pass.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const roots = ['dist/src', 'dist/test'].filter((root) => existsSync(root));
const files = roots
  .flatMap((root) => readdirSync(root, { recursive: true }).map((name) => join(root, String(name))))
  .filter((file) => file.endsWith('.test.js'))
  .sort();
if (files.length === 0) {
  console.error('run-tests: no test files found under dist/; run `tsc -p tsconfig.json` first');
  process.exit(1);
}
const reporter = process.env.CI ? ['--test-reporter=spec'] : [];
const { status } = spawnSync(process.execPath, ['--test', ...reporter, ...process.argv.slice(2), ...files], { stdio: 'inherit' });
process.exit(status ?? 1);
