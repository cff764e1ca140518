#!/usr/bin/env node
// The compiled command line; `npm install` builds dist/ through the prepare script.
import { readFileSync } from 'node:fs';

// The SQLite driver is Node's own node:sqlite, complete from the version package.json's engines
// names: an older Node is told so in one line rather than failing with a stack trace.
const { engines } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const [, neededMajor, neededMinor] = /(\d+)\.(\d+)/.exec(engines.node).map(Number);
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < neededMajor || (major === neededMajor && minor < neededMinor)) {
  console.error(`marquee: needs Node.js ${neededMajor}.${neededMinor} or later, for its built-in SQLite (node:sqlite); this is Node.js ${process.versions.node}`);
  process.exit(2);
}

// Node 22, and 24 before 24.15, print that node:sqlite is experimental when it is first loaded.
// Marquee uses only what those versions share, so that line, and only it, is kept from the operator.
const emitWarning = process.emitWarning;
process.emitWarning = function (warning, ...rest) {
  if (typeof warning === 'string' && warning.startsWith('SQLite is an experimental feature')) return;
  return emitWarning.call(this, warning, ...rest);
};

await import('../dist/src/cli/main.js');
