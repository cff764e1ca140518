import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { formatProblem } from '../catalogue/problems.js';
import { resolveSettings } from '../config.js';
import { importFiles } from '../import/import-files.js';
import { openDatabase } from '../store/database.js';
import { ConfigError } from '../config.js';
import { commandHelp, parseCommand, type CommandSpec } from './command.js';

export const IMPORT_COMMAND: CommandSpec = {
  name: 'import',
  usage: 'import [options] FILE|DIR...',
  summary:
    'Loads films and packages from JSON or XML files in the API\'s own shapes (a list or one record).\n' +
    'A directory stands for the .json and .xml files in it. All or nothing: one invalid record\n' +
    'rejects the whole import, every problem is listed, and the catalogue is left as it was.',
  settings: ['database', 'customer'],
  flags: { replace: { type: 'boolean', description: 'make the catalogue exactly the input (default: add and update by Id)' } },
  positionals: true,
};

/** Files named on the command line, with each directory replaced by its .json and .xml files. */
export async function expandInputs(inputs: readonly string[]): Promise<string[]> {
  const files: string[] = [];
  for (const input of inputs) {
    const isDirectory = await stat(input).then((s) => s.isDirectory(), () => false);
    if (!isDirectory) {
      files.push(input);
      continue;
    }
    const names = (await readdir(input)).filter((name) => /\.(json|xml)$/i.test(name)).sort();
    if (names.length === 0) throw new ConfigError(`import: ${input} holds no .json or .xml file`);
    files.push(...names.map((name) => join(input, name)));
  }
  return files;
}

export async function runImport(args: readonly string[]): Promise<number> {
  const parsed = parseCommand(IMPORT_COMMAND, args);
  if (parsed.help) return console.log(commandHelp(IMPORT_COMMAND)), 0;
  const settings = resolveSettings(IMPORT_COMMAND.settings, parsed.values);
  if (parsed.positionals.length === 0) throw new ConfigError('import: name at least one FILE or DIR to import');
  const files = await expandInputs(parsed.positionals);
  const started = performance.now();
  const db = await openDatabase(settings.database);
  try {
    const result = await importFiles(db, { customer: settings.customer, files, replace: parsed.values['replace'] === true });
    for (const warning of result.warnings) console.error(`warning: ${formatProblem(warning)}`);
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `Imported ${result.films} films and ${result.packages} packages into customer '${settings.customer}' ` +
        `(catalogue version ${result.version}) in ${seconds.toFixed(2)} s.`,
    );
    return 0;
  } finally {
    await db.close();
  }
}
