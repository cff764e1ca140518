/**
 * `marquee access set|clear|list`: how a cinema's attributes read into the access vocabulary
 * (CONTRACT §15), corrected where reading their names goes wrong.
 */
import { ConfigError, resolveSettings } from '../config.js';
import { ACCESS_TERMS, isAccessTerm, languageName, type AccessTerm } from '../showtimes/access-terms.js';
import { clearAccess, listAccess, setAccess, type AttributeAccess } from '../showtimes/access-corrections.js';
import { commandHelp, parseCommand, runSubcommand, withDatabase, type CommandSpec, type Subcommands } from './command.js';
import { alignColumns } from './text-columns.js';

/** The word that says an attribute means no term. */
const NONE = 'none';
const TERMS_TOLD = `${ACCESS_TERMS.join(', ')}, or ${NONE}`;

export const ACCESS_SET_COMMAND: CommandSpec = {
  name: 'access set',
  usage: 'access set --customer KEY [options] ATTRIBUTE_ID TERM…',
  summary:
    'Sets what an attribute means in the access vocabulary, in place of reading its names: one or more of\n' +
    `${ACCESS_TERMS.join(', ')}; '${NONE}' for no term. Running servers apply it within their poll interval.`,
  settings: ['database', 'customer', 'lockTimeout'],
  required: ['customer'],
  positionals: true,
};

export const ACCESS_CLEAR_COMMAND: CommandSpec = {
  name: 'access clear',
  usage: 'access clear --customer KEY [options] ATTRIBUTE_ID',
  summary: "Removes an attribute's correction: its names are read again. Running servers apply it within their poll interval.",
  settings: ['database', 'customer', 'lockTimeout'],
  required: ['customer'],
  positionals: true,
};

export const ACCESS_LIST_COMMAND: CommandSpec = {
  name: 'access list',
  usage: 'access list --customer KEY [--json] [options]',
  summary: 'Shows each attribute of the customer, the access terms it means and its subtitles\' language, and whether a correction set them or its names read so.',
  settings: ['database', 'customer', 'lockTimeout'],
  required: ['customer'],
  flags: { json: { type: 'boolean', description: 'print a JSON array instead of a table' } },
};

const USAGE = `Usage: marquee access <set|clear|list> --customer KEY [options]

  set ATTRIBUTE_ID TERM…   what the attribute means: ${ACCESS_TERMS.join(', ')}, or ${NONE}
  clear ATTRIBUTE_ID       read the attribute's names again
  list [--json]            each attribute, its terms, set or read

Run 'marquee access <subcommand> --help' for its options.`;

/** The terms given, without repeats; `none` alone for none. */
function parseTerms(words: readonly string[]): AccessTerm[] {
  if (words.length === 0) throw new ConfigError(`access set: name the TERMs the attribute means (${TERMS_TOLD})`);
  if (words.includes(NONE)) {
    if (words.length > 1) throw new ConfigError(`access set: '${NONE}' means no term, so it comes alone`);
    return [];
  }
  for (const word of words) if (!isAccessTerm(word)) throw new ConfigError(`access set: unknown term '${word}'; the terms are ${TERMS_TOLD}`);
  return [...new Set(words as AccessTerm[])];
}

/** `captioned, relaxed`, or `none`. */
function termsText(terms: readonly AccessTerm[]): string {
  return terms.length === 0 ? NONE : terms.join(', ');
}

function formatAccessTable(attributes: readonly AttributeAccess[], customer: string): string {
  if (attributes.length === 0) return `Customer '${customer}' has no attribute yet; 'marquee import --customer ${customer}' loads them.`;
  const rows = attributes.map((attribute) => [
    attribute.id,
    attribute.description ?? '(no longer in the catalogue)',
    attribute.shortName ?? '',
    termsText(attribute.terms),
    attribute.subtitleLanguage === null ? '' : `${languageName(attribute.subtitleLanguage)} (${attribute.subtitleLanguage})`,
    attribute.source,
  ]);
  return alignColumns([['ID', 'DESCRIPTION', 'SHORT NAME', 'TERMS', 'SUBTITLES', 'HOW'], ...rows]).join('\n');
}

async function runSet(args: readonly string[]): Promise<number> {
  const parsed = parseCommand(ACCESS_SET_COMMAND, args);
  if (parsed.help) return console.log(commandHelp(ACCESS_SET_COMMAND)), 0;
  const settings = resolveSettings(ACCESS_SET_COMMAND.settings, parsed.values);
  const [attributeId, ...words] = parsed.positionals;
  if (attributeId === undefined) throw new ConfigError(`access set: name the ATTRIBUTE_ID; 'marquee access list --customer ${settings.customer}' shows them`);
  const terms = parseTerms(words);
  const access = await withDatabase(settings, (db) => setAccess(db, settings.customer, attributeId, terms));
  console.log(
    `Attribute ${access.id} (${access.description ?? ''}) of customer '${settings.customer}' now means: ${termsText(access.terms)}. Running servers apply it within their poll interval.`,
  );
  return 0;
}

async function runClear(args: readonly string[]): Promise<number> {
  const parsed = parseCommand(ACCESS_CLEAR_COMMAND, args);
  if (parsed.help) return console.log(commandHelp(ACCESS_CLEAR_COMMAND)), 0;
  const settings = resolveSettings(ACCESS_CLEAR_COMMAND.settings, parsed.values);
  const [attributeId, extra] = parsed.positionals;
  if (attributeId === undefined) throw new ConfigError('access clear: name the ATTRIBUTE_ID whose correction to remove');
  if (extra !== undefined) throw new ConfigError(`access clear: unexpected argument ${extra}`);
  const cleared = await withDatabase(settings, (db) => clearAccess(db, settings.customer, attributeId));
  console.log(
    cleared
      ? `Attribute ${attributeId} of customer '${settings.customer}' is read from its names again. Running servers apply it within their poll interval.`
      : `Attribute ${attributeId} of customer '${settings.customer}' had no correction; nothing changed.`,
  );
  return 0;
}

async function runList(args: readonly string[]): Promise<number> {
  const parsed = parseCommand(ACCESS_LIST_COMMAND, args);
  if (parsed.help) return console.log(commandHelp(ACCESS_LIST_COMMAND)), 0;
  const settings = resolveSettings(ACCESS_LIST_COMMAND.settings, parsed.values);
  const attributes = await withDatabase(settings, (db) => listAccess(db, settings.customer), { existing: true });
  console.log(parsed.values['json'] === true ? JSON.stringify(attributes, null, 2) : formatAccessTable(attributes, settings.customer));
  return 0;
}

const SUBCOMMANDS: Subcommands = {
  set: runSet,
  clear: runClear,
  list: runList,
};

export function runAccess(args: readonly string[]): Promise<number> {
  return runSubcommand('access', USAGE, SUBCOMMANDS, args);
}
