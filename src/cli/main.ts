/**
 * The `marquee` command line: dispatches to a command, and turns expected failures into one
 * clear line and an exit status (1 for bad data, 2 for bad usage), never a stack trace.
 */
import { readFileSync } from 'node:fs';
import { formatProblem, UnreadableInputError } from '../catalogue/problems.js';
import { ConfigError } from '../config.js';
import { InvalidImportError } from '../import/import-files.js';
import { SyncError } from '../import/sync.js';
import { runExport } from './export-command.js';
import { runImport } from './import-command.js';
import { runServe } from './serve-command.js';
import { runSync } from './sync-command.js';
import { runToken } from './token-command.js';

const COMMANDS: Readonly<Record<string, (args: readonly string[]) => Promise<number | undefined>>> = {
  serve: runServe,
  import: runImport,
  export: runExport,
  sync: runSync,
  token: runToken,
};

const USAGE = `Usage: marquee <command> [options]

Commands:
  serve     serve the catalogue API
  import    load films and packages from JSON or XML files
  export    write the catalogue to files that import reads back
  sync      mirror the catalogue of a Veezi-compatible API
  token     issue, list and revoke access tokens

Run 'marquee <command> --help' for a command's options.`;

function version(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
  return manifest.version;
}

async function main(args: readonly string[]): Promise<number | undefined> {
  const [name, ...rest] = args;
  if (name === undefined || name === '--help' || name === 'help') return console.log(USAGE), name === undefined ? 2 : 0;
  if (name === '--version') return console.log(version()), 0;
  const command = COMMANDS[name];
  if (command === undefined) throw new ConfigError(`unknown command '${name}'; run 'marquee --help'`);
  return command(rest);
}

function exitStatusFor(error: unknown): number {
  if (error instanceof ConfigError) {
    console.error(`marquee: ${error.message}`);
    return 2;
  }
  if (error instanceof InvalidImportError) {
    for (const problem of error.problems) console.error(formatProblem(problem));
    for (const warning of error.warnings) console.error(`warning: ${formatProblem(warning)}`);
    console.error(`marquee: ${error.message}`);
    return 1;
  }
  if (error instanceof SyncError) {
    console.error(`marquee: sync: ${error.message}; the catalogue was left as it was`);
    return 1;
  }
  if (error instanceof UnreadableInputError) {
    console.error(`marquee: ${error.message}; nothing was changed`);
    return 1;
  }
  console.error(`marquee: ${error instanceof Error ? error.message : String(error)}`);
  return 1;
}

main(process.argv.slice(2)).then(
  (status) => {
    if (status !== undefined) process.exitCode = status;
  },
  (error: unknown) => {
    process.exitCode = exitStatusFor(error);
  },
);
