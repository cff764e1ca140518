/**
 * `marquee webhook add|list|remove|deliveries` (CONTRACT §14): the endpoints that hear of each
 * committed change of a customer's catalogue, and how their deliveries went. The secret of an
 * endpoint is printed once, as it is made, and never again, nor logged.
 */
import { checkTokenLabel } from '../access/access-token.js';
import { eventId } from '../changes/catalogue-event.js';
import { newWebhookSecret } from '../changes/webhook-signature.js';
import { ConfigError, resolveSettings } from '../config.js';
import { AddressRule, RefusedAddressError } from '../outbound/address-rule.js';
import { deleteEndpoint, insertEndpoint, loadDeliveries, loadEndpoints, type DeliveryAttempt, type WebhookEndpoint } from '../store/webhook-repository.js';
import { commandHelp, parseCommand, printSecret, runSubcommand, withDatabase, type CommandSpec, type Subcommands } from './command.js';
import { alignColumns } from './text-columns.js';

export const WEBHOOK_ADD_COMMAND: CommandSpec = {
  name: 'webhook add',
  usage: 'webhook add --customer KEY --url URL [--label TEXT] [options]',
  summary:
    "Registers an endpoint that receives a signed POST (Standard Webhooks v1) for each committed change of the\n" +
    "customer's catalogue from now on, and prints its secret (whsec_…) once, on its own line: keep it now, it\n" +
    'cannot be shown again. The URL must reach a public address unless it starts with a --webhook-target prefix;\n' +
    'the servers that deliver check it again, with their own --webhook-target.',
  settings: ['database', 'customer', 'lockTimeout', 'webhookTarget'],
  required: ['customer'],
  flags: {
    url: { type: 'string', valueName: 'URL', description: 'where the events are POSTed: an http or https URL' },
    label: { type: 'string', valueName: 'TEXT', description: 'a note for operators: the site or service that receives them' },
  },
};

export const WEBHOOK_LIST_COMMAND: CommandSpec = {
  name: 'webhook list',
  usage: 'webhook list [--json] [options]',
  summary: 'Lists the endpoints: id, customer, URL, label, whether enabled (or why disabled), the last version delivered and the failed tries of the next. Never the secret.',
  settings: ['database', 'lockTimeout'],
  flags: { json: { type: 'boolean', description: 'print a JSON array instead of a table' } },
};

export const WEBHOOK_REMOVE_COMMAND: CommandSpec = {
  name: 'webhook remove',
  usage: 'webhook remove [options] ID',
  summary: 'Removes an endpoint and its deliveries: running servers send it nothing more.',
  settings: ['database', 'lockTimeout'],
  positionals: true,
};

export const WEBHOOK_DELIVERIES_COMMAND: CommandSpec = {
  name: 'webhook deliveries',
  usage: 'webhook deliveries [ID] [--failed] [--json] [options]',
  summary: 'Shows the tries of deliveries, newest first, of one endpoint or all: the event (its webhook-id), when, the answer or the error, and the next try.',
  settings: ['database', 'lockTimeout'],
  positionals: true,
  flags: {
    failed: { type: 'boolean', description: 'only the tries that did not deliver' },
    json: { type: 'boolean', description: 'print a JSON array instead of a table' },
    limit: { type: 'string', valueName: 'N', description: 'show at most N tries; default 50' },
  },
};

const USAGE = `Usage: marquee webhook <add|list|remove|deliveries> [options]

  add --customer KEY --url URL [--label TEXT]   register an endpoint and print its secret once
  list [--json]                                 show the endpoints, never their secrets
  remove ID                                     remove an endpoint
  deliveries [ID] [--failed] [--json]           show how deliveries went

Run 'marquee webhook <subcommand> --help' for its options.`;

/** Refuses a URL the address rule refuses, by what it says and by the addresses its name resolves to now. */
async function checkTarget(url: URL, rule: AddressRule): Promise<void> {
  rule.check(url);
  const lookup = rule.lookupFor(url);
  if (lookup === undefined) return;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  await new Promise<void>((resolve, reject) => {
    lookup(host, { all: true }, (error) => {
      // A name that does not resolve here may resolve where the servers run: the servers check it as they connect.
      if (error instanceof RefusedAddressError) reject(error);
      else resolve();
    });
  });
}

/** An id that names no endpoint: the operation failed (exit 1), as a revoke of a token never issued does; the flag was not bad. */
class UnknownEndpointError extends Error {
  constructor(command: string, id: number) {
    super(`${command}: no endpoint has the id ${id}; 'marquee webhook list' shows them`);
    this.name = 'UnknownEndpointError';
  }
}

function endpointId(text: string | undefined, command: string): number {
  if (text === undefined || !/^\d{1,9}$/.test(text)) throw new ConfigError(`${command}: ID must be an endpoint id as 'marquee webhook list' shows it, got '${text ?? ''}'`);
  return Number(text);
}

async function runAdd(args: readonly string[]): Promise<number> {
  const parsed = parseCommand(WEBHOOK_ADD_COMMAND, args);
  if (parsed.help) return console.log(commandHelp(WEBHOOK_ADD_COMMAND)), 0;
  const settings = resolveSettings(WEBHOOK_ADD_COMMAND.settings, parsed.values);
  const urlText = parsed.values['url'];
  if (typeof urlText !== 'string') throw new ConfigError('webhook add: --url URL is required');
  const url = URL.parse(urlText);
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) throw new ConfigError(`webhook add: --url must be an http or https URL, got '${urlText}'`);
  const label = parsed.values['label'];
  const labelProblem = typeof label === 'string' ? checkTokenLabel(label) : undefined;
  if (labelProblem !== undefined) throw new ConfigError(`webhook add: --label ${labelProblem}`);
  try {
    await checkTarget(url, new AddressRule({ prefixes: settings.webhookTarget, onlyPrefixes: false, flag: '--webhook-target' }));
  } catch (error) {
    if (error instanceof RefusedAddressError) throw new ConfigError(`webhook add: --url ${error.message}`);
    throw error;
  }
  // Each delivery is signed with the secret this prints; a password in the URL would be shown by `webhook list`.
  if (url.username !== '' || url.password !== '') throw new ConfigError(`webhook add: --url must hold no user name or password (each delivery is signed), got '${url.origin}${url.pathname}…'`);
  const secret = newWebhookSecret();
  const endpoint = await withDatabase(settings, (db) =>
    db.transaction((tx) => insertEndpoint(tx, { customer: settings.customer, url: url.href, label: typeof label === 'string' ? label : null, secret, now: Date.now() })),
  );
  // The secret alone on stdout, so that `SECRET=$(marquee webhook add ...)` works; the rest is for people.
  await printSecret('webhook add', `${secret}\n`, {
    what: `endpoint ${endpoint.id}`,
    endWith: `marquee webhook remove ${endpoint.id}`,
    takeBack: () => withDatabase(settings, (db) => db.transaction((tx) => deleteEndpoint(tx, endpoint.id))),
  });
  console.error(
    `Added webhook endpoint ${endpoint.id} for customer '${endpoint.customer}': ${endpoint.url} receives each change after version ${endpoint.deliveredVersion}. ` +
      'The secret above signs every delivery; keep it now: it cannot be shown again.',
  );
  return 0;
}

function state(endpoint: WebhookEndpoint): string {
  return endpoint.disabledAt === null ? 'enabled' : `disabled: ${endpoint.disabledReason ?? ''}`;
}

async function runList(args: readonly string[]): Promise<number> {
  const parsed = parseCommand(WEBHOOK_LIST_COMMAND, args);
  if (parsed.help) return console.log(commandHelp(WEBHOOK_LIST_COMMAND)), 0;
  const settings = resolveSettings(WEBHOOK_LIST_COMMAND.settings, parsed.values);
  const endpoints = await withDatabase(settings, loadEndpoints, { existing: true });
  if (parsed.values['json'] === true) {
    console.log(JSON.stringify(endpoints.map((endpoint) => ({ ...endpoint, enabled: endpoint.disabledAt === null })), null, 2));
  } else if (endpoints.length === 0) {
    console.log("No webhook endpoint: 'marquee webhook add --customer KEY --url URL' registers one.");
  } else {
    const rows = endpoints.map((e) => [String(e.id), e.customer, e.url, e.label ?? '', state(e), String(e.deliveredVersion), String(e.failures)]);
    console.log(alignColumns([['ID', 'CUSTOMER', 'URL', 'LABEL', 'STATE', 'DELIVERED', 'FAILURES'], ...rows]).join('\n'));
  }
  return 0;
}

async function runRemove(args: readonly string[]): Promise<number> {
  const parsed = parseCommand(WEBHOOK_REMOVE_COMMAND, args);
  if (parsed.help) return console.log(commandHelp(WEBHOOK_REMOVE_COMMAND)), 0;
  const settings = resolveSettings(WEBHOOK_REMOVE_COMMAND.settings, parsed.values);
  const [text, extra] = parsed.positionals;
  if (extra !== undefined) throw new ConfigError(`webhook remove: unexpected argument ${extra}`);
  const id = endpointId(text, 'webhook remove');
  const removed = await withDatabase(settings, (db) => db.transaction((tx) => deleteEndpoint(tx, id)));
  if (removed === undefined) throw new UnknownEndpointError('webhook remove', id);
  console.log(`Removed webhook endpoint ${id} of customer '${removed.customer}' (${removed.url}).`);
  return 0;
}

/** Seconds are enough to read; the stored times keep their milliseconds. */
function time(iso: string | null): string {
  return iso === null ? '' : iso.replace(/\.\d+Z$/, 'Z');
}

function result(attempt: DeliveryAttempt): string {
  const answered = attempt.status === null ? '' : String(attempt.status);
  return [answered, attempt.error ?? ''].filter((part) => part !== '').join(' ');
}

async function runDeliveries(args: readonly string[]): Promise<number> {
  const parsed = parseCommand(WEBHOOK_DELIVERIES_COMMAND, args);
  if (parsed.help) return console.log(commandHelp(WEBHOOK_DELIVERIES_COMMAND)), 0;
  const settings = resolveSettings(WEBHOOK_DELIVERIES_COMMAND.settings, parsed.values);
  const [text, extra] = parsed.positionals;
  if (extra !== undefined) throw new ConfigError(`webhook deliveries: unexpected argument ${extra}`);
  const endpointIdGiven = text === undefined ? undefined : endpointId(text, 'webhook deliveries');
  const limitText = parsed.values['limit'];
  const limit = typeof limitText === 'string' ? Number(limitText) : 50;
  if (typeof limitText === 'string' && !(/^\d{1,6}$/.test(limitText) && limit >= 1)) throw new ConfigError(`webhook deliveries: --limit must be an integer from 1 to 999999, got '${limitText}'`);
  const { attempts, customers } = await withDatabase(settings, async (db) => ({
    attempts: await loadDeliveries(db, { ...(endpointIdGiven !== undefined && { endpointId: endpointIdGiven }), failedOnly: parsed.values['failed'] === true, limit }),
    customers: new Map((await loadEndpoints(db)).map((endpoint) => [endpoint.id, endpoint.customer])),
  }), { existing: true });
  if (endpointIdGiven !== undefined && !customers.has(endpointIdGiven)) throw new UnknownEndpointError('webhook deliveries', endpointIdGiven);
  const withEvent = attempts.map((attempt) => ({ event: eventId(customers.get(attempt.endpointId) ?? '', attempt.version), ...attempt }));
  if (parsed.values['json'] === true) console.log(JSON.stringify(withEvent, null, 2));
  else if (withEvent.length === 0) console.log('No delivery was tried yet.');
  else {
    const rows = withEvent.map((a) => [String(a.endpointId), a.event, String(a.attempt), time(a.attemptedAt), result(a), time(a.nextAt)]);
    console.log(alignColumns([['ENDPOINT', 'EVENT', 'TRY', 'AT', 'RESULT', 'NEXT TRY'], ...rows]).join('\n'));
  }
  return 0;
}

const SUBCOMMANDS: Subcommands = {
  add: runAdd,
  list: runList,
  remove: runRemove,
  deliveries: runDeliveries,
};

export function runWebhook(args: readonly string[]): Promise<number> {
  return runSubcommand('webhook', USAGE, SUBCOMMANDS, args);
}
