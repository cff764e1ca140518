import { checkServerTimeouts, resolveSettings } from '../config.js';
import { closeOnSignals, startServer } from '../server/serve.js';
import { commandHelp, parseCommand, type CommandSpec } from './command.js';
import { expandInputs } from './import-command.js';

export const SERVE_COMMAND: CommandSpec = {
  name: 'serve',
  usage: 'serve [options]',
  summary:
    'Serves the catalogue API: GET /v4/film, /v4/film/{id}, /v1/filmpackage, /v1/filmpackage/{id};\n' +
    'and for operators /healthz, /readyz, /metrics, /openapi.json and /docs. Logs are JSON lines on standard output.',
  settings: [
    'database',
    'readDatabase',
    'port',
    'host',
    'xmlNamespace',
    'cacheControl',
    'pollInterval',
    'rateLimit',
    'rateBurst',
    'corsOrigins',
    'metricsCustomers',
    'logLevel',
    'requestTimeout',
    'headersTimeout',
    'idleTimeout',
    'keepAliveTimeout',
    'maxRequestsPerSocket',
    'maxHeaderSize',
    'shutdownTimeout',
  ],
  flags: { seed: { type: 'string', description: 'FILE or DIR imported when the default catalogue has never been loaded' } },
};

export async function runServe(args: readonly string[]): Promise<number | undefined> {
  const parsed = parseCommand(SERVE_COMMAND, args);
  if (parsed.help) return console.log(commandHelp(SERVE_COMMAND)), 0;
  const settings = resolveSettings(SERVE_COMMAND.settings, parsed.values);
  checkServerTimeouts(settings);
  const seed = parsed.values['seed'];
  const seedFiles = typeof seed === 'string' ? await expandInputs([seed]) : [];
  closeOnSignals(await startServer({ settings, seedFiles }));
  // Keeps running until a signal.
  return undefined;
}
