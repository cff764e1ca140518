import { readFile } from 'node:fs/promises';
import { text as readText } from 'node:stream/consumers';
import { checkTokenLabel } from '../access/access-token.js';
import { parseCustomerKeys } from '../access/customer-keys.js';
import { issueTokens, listTokens, revokeIssued, revokeToken, type IssueResult } from '../access/manage-tokens.js';
import { UnreadableInputError } from '../catalogue/problems.js';
import { formatTokenTable } from '../access/token-table.js';
import { ConfigError, resolveSettings } from '../config.js';
import { parseOrigin } from '../http/cors.js';
import { commandHelp, parseCommand, printSecret, runSubcommand, withDatabase, type CommandSpec, type Subcommands } from './command.js';

export const TOKEN_CREATE_COMMAND: CommandSpec = {
  name: 'token create',
  usage: 'token create --customer KEY|--customers-from FILE [--label TEXT] [options]',
  summary:
    "Issues an access token for a customer's catalogue and prints it once, on its own line; only its\n" +
    'digest is stored, so it cannot be shown again. Running servers accept it within their poll interval.\n' +
    'With --public, issues a publishable key (mq_pub_…) instead: made to sit in web pages, calendar links\n' +
    'and apps, it reads only the programme (/programme, .ics, .jsonld, /whats-on), from the pages of its\n' +
    '--origin (any page without one), and never what a cinema keeps to itself (seats sold, price cards).\n' +
    'With --customers-from, issues one for each customer the file names, all or none, and prints\n' +
    'a line CUSTOMER<TAB>TOKEN for each.',
  settings: ['database', 'customer', 'lockTimeout'],
  required: ['customer'],
  flags: {
    label: { type: 'string', description: 'a note for operators: the site or app that uses the token' },
    public: { type: 'boolean', description: 'issue a publishable key, which reads only the programme' },
    origin: {
      type: 'string',
      valueName: 'ORIGIN',
      multiple: true,
      description: 'with --public: an origin whose pages may use the key, such as https://cinema.example; repeatable',
    },
    'customers-from': {
      type: 'string',
      valueName: 'FILE',
      insteadOf: 'customer',
      description: "customer keys, one a line (# starts a comment; '-' reads standard input): a token for each",
    },
  },
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
  create --customer KEY --public [--origin ORIGIN]…
                                         issue a publishable key, for web pages
  create --customers-from FILE           issue one for each customer FILE names
  list [--json]                          show the tokens, never the tokens themselves
  revoke ID                              end a token, also for running servers

Run 'marquee token <subcommand> --help' for its options.`;

/** The keys of a file, or of standard input for `-`. */
async function readCustomerKeys(file: string): Promise<string[]> {
  const text = file === '-' ? await readText(process.stdin) : await readFile(file, 'utf8').catch((error: unknown) => {
    throw UnreadableInputError.of(file, error);
  });
  return parseCustomerKeys(text, file);
}

/** Names the first few customers of a long list, and counts the rest. */
function nameSome(customers: readonly string[]): string {
  const shown = 10;
  return customers.slice(0, shown).join(', ') + (customers.length > shown ? ` and ${customers.length - shown} more` : '');
}

async function runCreate(args: readonly string[]): Promise<number> {
  const parsed = parseCommand(TOKEN_CREATE_COMMAND, args);
  if (parsed.help) return console.log(commandHelp(TOKEN_CREATE_COMMAND)), 0;
  const settings = resolveSettings(TOKEN_CREATE_COMMAND.settings, parsed.values);
  const label = parsed.values['label'];
  const labelProblem = typeof label === 'string' ? checkTokenLabel(label) : undefined;
  if (labelProblem !== undefined) throw new ConfigError(`token create: --label ${labelProblem}`);
  const kind = parsed.values['public'] === true ? 'publishable' : 'secret';
  const originTexts = (parsed.values['origin'] ?? []) as string[];
  if (kind === 'secret' && originTexts.length > 0) throw new ConfigError('token create: --origin needs --public: a secret token is never sent from a web page');
  const origins = originTexts.map((text) => {
    try {
      return parseOrigin(text);
    } catch (error) {
      throw new ConfigError(`token create: --origin ${(error as Error).message}, got '${text}'`);
    }
  });
  const keysFile = parsed.values['customers-from'];
  const customers = typeof keysFile === 'string' ? await readCustomerKeys(keysFile) : [settings.customer];
  const issued = await withDatabase(settings, (db) =>
    issueTokens(db, { customers, kind, origins: [...new Set(origins)], label: typeof label === 'string' ? label : null }),
  );
  const ids = issued.map((one) => one.info.id);
  const issuedTokens = {
    what: ids.length === 1 ? `token ${ids[0]}` : `tokens ${ids[0]} to ${ids.at(-1)}`,
    endWith: ids.length === 1 ? `marquee token revoke ${ids[0]}` : 'marquee token revoke ID',
    takeBack: () => withDatabase(settings, (db) => revokeIssued(db, ids)),
  };
  if (typeof keysFile === 'string') {
    const withoutCatalogue = issued.filter((one) => !one.customerHasCatalogue).map((one) => one.info.customer);
    await printSecret('token create', issued.map(({ token, info }) => `${info.customer}\t${token}\n`).join(''), issuedTokens);
    console.error(`Issued ${ids.length} tokens, ids ${ids[0]} to ${ids.at(-1)}. Keep them now: they cannot be shown again.`);
    if (withoutCatalogue.length > 0) {
      console.error(`warning: ${withoutCatalogue.length} of these customers have no catalogue yet (${nameSome(withoutCatalogue)}); their tokens see empty lists until an import loads one`);
    }
    return 0;
  }
  const [{ token, info, customerHasCatalogue }] = issued as [IssueResult];
  // The token alone on stdout, so that `TOKEN=$(marquee token create ...)` works; the rest is for people.
  await printSecret('token create', `${token}\n`, issuedTokens);
  if (kind === 'secret') console.error(`Issued token ${info.id} for customer '${info.customer}'. Keep it now: it cannot be shown again.`);
  else {
    const pages = info.origins.length === 0 ? 'any page' : `pages of ${info.origins.join(', ')}`;
    console.error(`Issued publishable key ${info.id} for customer '${info.customer}': it reads only the programme, from ${pages}. Keep it now: it cannot be shown again.`);
  }
  if (!customerHasCatalogue) {
    console.error(`warning: customer '${info.customer}' has no catalogue yet; the token sees empty lists until 'marquee import --customer ${info.customer}' loads one`);
  }
  return 0;
}

async function runList(args: readonly string[]): Promise<number> {
  const parsed = parseCommand(TOKEN_LIST_COMMAND, args);
  if (parsed.help) return console.log(commandHelp(TOKEN_LIST_COMMAND)), 0;
  const settings = resolveSettings(TOKEN_LIST_COMMAND.settings, parsed.values);
  const tokens = await withDatabase(settings, listTokens, { existing: true });
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

const SUBCOMMANDS: Subcommands = {
  create: runCreate,
  list: runList,
  revoke: runRevoke,
};

export function runToken(args: readonly string[]): Promise<number> {
  return runSubcommand('token', USAGE, SUBCOMMANDS, args);
}
