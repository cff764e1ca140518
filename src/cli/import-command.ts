import { problemLines, UnreadableInputError } from '../catalogue/problems.js';
import { ConfigError, resolveSettings } from '../config.js';
import type { ChangeKind } from '../catalogue/catalogue-change.js';
import { CHANGE_KIND_OF, type RecordKind } from '../formats/record-kinds.js';
import type { ChangeCounts } from '../import/catalogue-changes.js';
import { importFiles, InvalidImportError, type ImportResult } from '../import/import-files.js';
import { LockTimeoutError } from '../store/sql-client.js';
import { commandHelp, commandLockWait, openCommandDatabase, parseCommand, type CommandSpec } from './command.js';
import { yieldToServers } from './batch-priority.js';
import { importCustomers } from './import-customers.js';
import { expandInputs } from './input-files.js';
import { progressReporter } from './progress.js';

export const IMPORT_COMMAND: CommandSpec = {
  name: 'import',
  usage: 'import [options] FILE|DIR...\n       marquee import --customers-from DIR [options]',
  summary:
    'Loads films, packages, screens, attributes, the site and sessions from JSON or XML files in the\n' +
    'API\'s own shapes (a list or one record, in any order; a session may carry its web Url).\n' +
    'A directory stands for the .json and .xml files in it. All or nothing: one invalid record\n' +
    'rejects the whole import, every problem is listed, and the catalogue is left as it was.\n' +
    'With --customers-from, each folder of DIR is the catalogue of the customer it is named after (cinema-0001/…),\n' +
    'imported all or nothing on its own: a customer that fails is reported and left as it was, the others import.\n' +
    'It runs at a lower CPU priority (nice 10), so that a server on the same machine answers first.',
  settings: ['database', 'customer', 'lockTimeout', 'maxProblems'],
  flags: {
    replace: { type: 'boolean', description: 'make the catalogue exactly the input (default: add and update by Id)' },
    'dry-run': { type: 'boolean', description: 'check the input and report what would change, without writing' },
    json: { type: 'boolean', description: 'print a machine-readable report on standard output' },
    'customers-from': { type: 'string', valueName: 'DIR', insteadOf: 'customer', description: 'import a catalogue per customer, from the folders of DIR named by their keys' },
  },
  positionals: true,
};

function describeCounts(kind: string, counts: ChangeCounts): string {
  return `${kind} ${counts.added} added, ${counts.changed} changed, ${counts.removed} removed, ${counts.unchanged} unchanged`;
}

const KINDS = Object.values(CHANGE_KIND_OF);

/** The changes to each kind of record in `kinds`; unless given, films and packages always, the others where there were any. */
export function describeChanges(result: Pick<ImportResult, ChangeKind>, kinds?: readonly RecordKind[]): string {
  const any = (counts: ChangeCounts): boolean => counts.added + counts.changed + counts.removed + counts.unchanged > 0;
  const named = kinds?.map((kind) => CHANGE_KIND_OF[kind]);
  return KINDS.filter((kind) => (named === undefined ? kind === 'films' || kind === 'packages' || any(result[kind]) : named.includes(kind)))
    .map((kind) => describeCounts(kind, result[kind]))
    .join('; ');
}

function summary(result: ImportResult, customer: string, seconds: number, dryRun: boolean): string {
  const read = (counts: ChangeCounts): number => counts.added + counts.changed + counts.unchanged;
  const films = read(result.films);
  const packages = read(result.packages);
  const rate = Math.round(KINDS.reduce((sum, kind) => sum + read(result[kind]), 0) / Math.max(seconds, 0.001));
  const verb = dryRun ? 'Checked' : 'Imported';
  const outcome = dryRun ? 'nothing was written' : result.written ? `catalogue version ${result.version}` : 'nothing changed';
  return (
    `${verb} ${films} films and ${packages} packages for customer '${customer}' in ${seconds.toFixed(2)} s (${rate} records/s): ` +
    `${describeChanges(result)}; ${outcome}.`
  );
}

export async function runImport(args: readonly string[]): Promise<number> {
  const parsed = parseCommand(IMPORT_COMMAND, args);
  if (parsed.help) return console.log(commandHelp(IMPORT_COMMAND)), 0;
  const settings = resolveSettings(IMPORT_COMMAND.settings, parsed.values);
  yieldToServers();
  const json = parsed.values['json'] === true;
  const dryRun = parsed.values['dry-run'] === true;
  const replace = parsed.values['replace'] === true;
  const customersFrom = parsed.values['customers-from'];
  if (typeof customersFrom === 'string') {
    const [input] = parsed.positionals;
    if (input !== undefined) throw new ConfigError(`import: --customers-from takes each customer's files from its folder; name no FILE or DIR besides, got ${input}`);
    if (json) throw new ConfigError('import: --json reports on one customer; it cannot be given with --customers-from');
    return importCustomers(settings, { directory: customersFrom, replace, dryRun });
  }
  if (parsed.positionals.length === 0) throw new ConfigError('import: name at least one FILE or DIR to import');
  const files = await expandInputs(parsed.positionals);
  const progress = progressReporter(process.stderr);
  const started = performance.now();
  const db = await openCommandDatabase(settings.database, { existing: dryRun, lockWait: commandLockWait(settings) });
  try {
    const result = await importFiles(db, {
      customer: settings.customer,
      files,
      replace,
      dryRun,
      maxProblems: settings.maxProblems,
      onProgress: (p) => progress.update(p),
    });
    progress.finish();
    const seconds = (performance.now() - started) / 1000;
    if (json) {
      console.log(JSON.stringify({ ok: true, dryRun, customer: settings.customer, seconds, ...result, problems: [] }));
    } else {
      for (const line of problemLines(result.warnings, result.warningCount, 'warnings')) console.error(line);
      console.log(summary(result, settings.customer, seconds, dryRun));
    }
    return 0;
  } catch (error) {
    progress.finish();
    if (json && error instanceof LockTimeoutError) {
      // Scripts read the report; the line on standard error stays, as for any write that waited too long.
      console.log(JSON.stringify({ ok: false, dryRun, customer: settings.customer, error: error.message }));
      throw error;
    }
    if (!json || !(error instanceof InvalidImportError || error instanceof UnreadableInputError)) throw error;
    const report =
      error instanceof InvalidImportError
        ? { problems: error.problems, problemCount: error.problemCount, warnings: error.warnings, warningCount: error.warningCount }
        : { error: error.message };
    console.log(JSON.stringify({ ok: false, dryRun, customer: settings.customer, ...report }));
    return 1;
  } finally {
    await db.close();
  }
}
