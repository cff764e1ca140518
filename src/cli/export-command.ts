import { ConfigError, resolveSettings } from '../config.js';
import { exportFiles } from '../import/export-files.js';
import { XmlWriter } from '../formats/xml-writer.js';
import { loadCatalogueVersion } from '../store/catalogue-repository.js';
import { commandHelp, openCommandDatabase, parseCommand, type CommandSpec } from './command.js';

export const EXPORT_COMMAND: CommandSpec = {
  name: 'export',
  usage: 'export [options] --out DIR',
  summary:
    'Writes films, filmpackages, screens, attributes, site and sessions (with their Url) as .json or .xml files\n' +
    'that `import --replace` reads back to the identical catalogue.',
  settings: ['database', 'customer', 'xmlNamespace'],
  flags: {
    out: { type: 'string', valueName: 'DIR', description: 'directory to write into (created when missing)' },
    format: { type: 'string', valueName: 'json|xml', description: 'json (default) or xml' },
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
  const db = await openCommandDatabase(settings.database, { existing: true });
  try {
    // A customer never loaded has nothing to export: empty lists, imported with --replace, would empty a catalogue.
    if ((await loadCatalogueVersion(db, settings.customer)) === 0) {
      throw new Error(`export: customer '${settings.customer}' has no catalogue in this database: no import or sync ever wrote one; nothing was written`);
    }
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
