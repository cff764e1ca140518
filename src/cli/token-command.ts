import { checkTokenLabel } from '../access/access-token.js';
import { issueToken, listTokens, revokeToken } from '../access/manage-tokens.js';
import { formatTokenTable } from '../access/token-table.js';
import { ConfigError, resolveSettings, type Settings } from '../config.js';
import { openDatabase } from '../store/database.js';
import type { SqlClient } from '../store/sql-client.js';
import { commandHelp, commandLockWait, parseCommand, type CommandSpec } from './command.js';

export const TOKEN_CREATE_COMMAND: CommandSpec = {
  name: 'token create',
  usage: 'token create --customer KEY [--label TEXT] [options]',
  summary:
    "Issues an access token for a customer's catalogue and prints it once, on its own line; only its\n" +
    'digest is stored, so it cannot be shown again. Running servers accept it within their poll interval.',
  settings: ['database', 'customer', 'lockTimeout'],
  required: ['customer'],
  flags: { label: { type: 'string', description: 'a note for operators: the site or app that uses the token' } },
};

export const TOKEN_LIST_COMMAND: CommandSpec = {
  name: 'token list',
  usage: 'token list [options]',
  summary: 'Lists every token ever issued: id, customer, label, created, last used and revoked. Never the token.',
  settings: ['database', 'lockTimeout'],
  flags: { json: { type: 'boolean', description: 'print a JSON array instead of a table' } },
};

export const TOKEN_REVOKE_COMMAND: CommandSpec = {
  name: 'token revoke',
  usage: 'token revoke [options] ID',
  summary: 'Ends a token at once: running servers refuse it within their poll interval.',
  settings: ['database', 'lockTimeout'],
  positionals: true,
};

const USAGE = `Usage: marquee token <create|list|revoke> [options]

  create --customer KEY [--label TEXT]   issue a token and print it once
  list [--json]                          show the tokens, never the tokens themselves
  revoke ID                              end a token, also for running servers

Run 'marquee token <subcommand> --help' for its options.`;

async function withDatabase<T>(settings: Settings<'database' | 'lockTimeout'>, work: (db: SqlClient) => Promise<T>): Promise<T> {
  const db = await openDatabase(settings.database, { lockWait: commandLockWait(settings) });
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}

async function runCreate(args: readonly string[]): Promise<number> {
  const parsed = parseCommand(TOKEN_CREATE_COMMAND, args);
  if (parsed.help) return console.log(commandHelp(TOKEN_CREATE_COMMAND)), 0;
  const settings = resolveSettings(TOKEN_CREATE_COMMAND.settings, parsed.values);
  const label = parsed.values['label'];
  const labelProblem = typeof label === 'string' ? checkTokenLabel(label) : undefined;
  if (labelProblem !== undefined) throw new ConfigError(`token create: --label ${labelProblem}`);
  const issued = await withDatabase(settings, (db) =>
    issueToken(db, { customer: settings.customer, label: typeof label === 'string' ? label : null }),
  );
  // The token alone on stdout, so that `TOKEN=$(marquee token create ...)` works; the rest is for people.
  console.log(issued.token);
  console.error(`Issued token ${issued.info.id} for customer '${issued.info.customer}'. Keep it now: it cannot be shown again.`);
  if (!issued.customerHasCatalogue) {
    console.error(`warning: customer '${issued.info.customer}' has no catalogue yet; the token sees empty lists until 'marquee import --customer ${issued.info.customer}' loads one`);
  }
  return 0;
}

async function runList(args: readonly string[]): Promise<number> {
  const parsed = parseCommand(TOKEN_LIST_COMMAND, args);
  if (parsed.help) return console.log(commandHelp(TOKEN_LIST_COMMAND)), 0;
  const settings = resolveSettings(TOKEN_LIST_COMMAND.settings, parsed.values);
  const tokens = await withDatabase(settings, listTokens);
  console.log(parsed.values['json'] === true ? JSON.stringify(tokens, null, 2) : formatTokenTable(tokens));
  return 0;
}

async function runRevoke(args: readonly string[]): Promise<number> {
  const parsed = parseCommand(TOKEN_REVOKE_COMMAND, args);
  if (parsed.help) return console.log(commandHelp(TOKEN_REVOKE_COMMAND)), 0;
  const settings = resolveSettings(TOKEN_REVOKE_COMMAND.settings, parsed.values);
  const [id, extra] = parsed.positionals;
  if (id === undefined) throw new ConfigError("token revoke: name the ID of the token to revoke; 'marquee token list' shows them");
  if (extra !== undefined) throw new ConfigError(`token revoke: unexpected argument ${extra}`);
  if (!/^\d{1,9}$/.test(id)) throw new ConfigError(`token revoke: ID must be a token id as 'marquee token list' shows it, got '${id}'`);
  const result = await withDatabase(settings, (db) => revokeToken(db, Number(id)));
  const { info } = result;
  console.log(
    result.already
      ? `Token ${info.id} of customer '${info.customer}' was already revoked at ${info.revokedAt ?? ''}.`
      : `Revoked token ${info.id} of customer '${info.customer}'; running servers refuse it within their poll interval.`,
  );
  return 0;
}

const SUBCOMMANDS: Readonly<Record<string, (args: readonly string[]) => Promise<number>>> = {
  create: runCreate,
  list: runList,
  revoke: runRevoke,
};

export async function runToken(args: readonly string[]): Promise<number> {
  const [name, ...rest] = args;
  if (name === undefined || name === '--help' || name === 'help') return console.log(USAGE), name === undefined ? 2 : 0;
  const subcommand = SUBCOMMANDS[name];
  if (subcommand === undefined) throw new ConfigError(`token: unknown subcommand '${name}'; use create, list or revoke`);
  return subcommand(rest);
}
