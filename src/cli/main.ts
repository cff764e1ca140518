/**
 * The `marquee` command line: dispatches to a command, and turns expected failures into one
 * clear line and an exit status (1 for bad data, 2 for bad usage), never a stack trace.
 */
import { problemLines, UnreadableInputError } from '../catalogue/problems.js';
import { ConfigError } from '../config.js';
import { InvalidImportError } from '../import/import-files.js';
import { SyncError } from '../import/upstream-fetch.js';
import { PACKAGE_VERSION } from '../package-version.js';
import { DatabaseFullError, LockTimeoutError } from '../store/sql-client.js';

type Command = (args: readonly string[]) => Promise<number | undefined>;

/** Each command loads when it runs, so that `import` and `export` start without the HTTP server. */
const COMMANDS: Readonly<Record<string, () => Promise<Command>>> = {
  serve: async () => (await import('./serve-command.js')).runServe,
  import: async () => (await import('./import-command.js')).runImport,
  export: async () => (await import('./export-command.js')).runExport,
  sync: async () => (await import('./sync-command.js')).runSync,
  token: async () => (await import('./token-command.js')).runToken,
  access: async () => (await import('./access-command.js')).runAccess,
  webhook: async () => (await import('./webhook-command.js')).runWebhook,
};

const USAGE = `Usage: marquee <command> [options]

Commands:
  serve     serve the catalogue API
  import    load films and packages from JSON or XML files
  export    write the catalogue to files that import reads back
  sync      mirror Veezi-compatible APIs, one or many; sync status shows how it goes
  token     issue, list and revoke access tokens
  access    show and correct how attributes read as access terms (captioned, relaxed…)
  webhook   add, list and remove the endpoints told of each change, and see their deliveries

Run 'marquee <command> --help' for a command's options.`;

async function main(args: readonly string[]): Promise<number | undefined> {
  const [name, ...rest] = args;
  if (name === undefined || name === '--help' || name === 'help') return console.log(USAGE), name === undefined ? 2 : 0;
  if (name === '--version') return console.log(PACKAGE_VERSION), 0;
  const load = COMMANDS[name];
  if (load === undefined) throw new ConfigError(`unknown command '${name}'; run 'marquee --help'`);
  return (await load())(rest);
}

function exitStatusFor(error: unknown): number {
  if (error instanceof ConfigError) {
    console.error(`marquee: ${error.message}`);
    return 2;
  }
  if (error instanceof InvalidImportError) {
    for (const line of problemLines(error.problems, error.problemCount, 'problems')) console.error(line);
    for (const line of problemLines(error.warnings, error.warningCount, 'warnings')) console.error(line);
    console.error(`marquee: ${error.message}`);
    return 1;
  }
  if (error instanceof SyncError) {
    console.error(`marquee: sync: ${error.message}; the catalogue was left as it was`);
    return 1;
  }
  if (error instanceof LockTimeoutError) {
    console.error(`marquee: ${error.message} (--lock-timeout); nothing was changed`);
    return 1;
  }
  if (error instanceof UnreadableInputError || error instanceof DatabaseFullError) {
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
