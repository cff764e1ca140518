import { ConfigError, resolveSettings } from '../config.js';
import { exportFiles } from '../import/export-files.js';
import { XmlWriter } from '../formats/xml-writer.js';
import { openDatabase } from '../store/database.js';
import { commandHelp, parseCommand, type CommandSpec } from './command.js';

export const EXPORT_COMMAND: CommandSpec = {
  name: 'export',
  usage: 'export [options] --out DIR',
  summary:
    'Writes films, filmpackages, screens, attributes, site and sessions (with their Url) as .json or .xml files\n' +
    'that `import --replace` reads back to the identical catalogue.',
  settings: ['database', 'customer', 'xmlNamespace'],
  flags: {
    out: { type: 'string', description: 'directory to write into (created when missing)' },
    format: { type: 'string', description: 'json (default) or xml' },
  },
};

export async function runExport(args: readonly string[]): Promise<number> {
  const parsed = parseCommand(EXPORT_COMMAND, args);
  if (parsed.help) return console.log(commandHelp(EXPORT_COMMAND)), 0;
  const settings = resolveSettings(EXPORT_COMMAND.settings, parsed.values);
  const directory = parsed.values['out'];
  if (typeof directory !== 'string' || directory === '') throw new ConfigError('export: --out DIR is required');
  const format = parsed.values['format'] ?? 'json';
  if (format !== 'json' && format !== 'xml') throw new ConfigError(`export: --format must be json or xml, got '${String(format)}'`);
  const db = await openDatabase(settings.database);
  try {
    const result = await exportFiles(db, new XmlWriter(settings.xmlNamespace), { customer: settings.customer, directory, format });
    console.log(
      `Exported ${result.films} films, ${result.packages} packages, ${result.screens} screens, ${result.attributes} attributes, ` +
        `${result.sites} site and ${result.sessions} sessions of customer '${settings.customer}' to ${result.files.join(', ')}.`,
    );
    return 0;
  } finally {
    await db.close();
  }
}
