import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { checkServerTimeouts, ConfigError, resolveSettings } from '../config.js';
import { setMarkingTriggers } from './marking-triggers.js';
import { closeOnSignals, startServer } from '../server/serve.js';
import { commandHelp, parseCommand, type CommandSpec } from './command.js';
import { expandInputs } from './input-files.js';

/** The folder of a seed directory that holds the pictures its catalogue names, by host and path. */
const SEED_PICTURES = 'images';

export const SERVE_COMMAND: CommandSpec = {
  name: 'serve',
  usage: 'serve [options]',
  summary:
    'Serves the catalogue API: GET /v4/film, /v1/film, /v1/filmpackage, /v1/screen, /v1/attribute, /v1/session,\n' +
    '/v1/websession (each also by /{id}) and /v1/site; the programme: /programme, /programme.ics, /programme.jsonld,\n' +
    'its page /whats-on and its pictures, resized, under /images/; the change feed /changes, and webhooks to\n' +
    'the endpoints of `marquee webhook add`;\n' +
    'and for operators /healthz, /readyz, /metrics, /openapi.json and /docs. Logs are JSON lines on standard output.',
  settings: [
    'database',
    'readDatabase',
    'port',
    'host',
    'xmlNamespace',
    'cacheControl',
    'pollInterval',
    'cacheMemory',
    'rateLimit',
    'rateBurst',
    'publicRateLimit',
    'publicRateBurst',
    'programmeCacheControl',
    'trustProxy',
    'corsOrigins',
    'metricsCustomers',
    'requestLog',
    'logLevel',
    'requestTimeout',
    'headersTimeout',
    'idleTimeout',
    'keepAliveTimeout',
    'maxRequestsPerSocket',
    'maxHeaderSize',
    'shutdownTimeout',
    'webhookTarget',
    'changeRetention',
    'imageSources',
    'imageTimeout',
    'imageMaxBytes',
    'imageCache',
  ],
  flags: {
    seed: { type: 'string', valueName: 'FILE|DIR', description: "FILE or DIR imported when the default catalogue has never been loaded; a DIR's images/HOST/PATH files are the pictures its URLs name" },
    'seed-today': { type: 'boolean', description: "move the seed's sessions by whole days so that the first falls on the day of seeding" },
  },
};

export async function runServe(args: readonly string[]): Promise<number | undefined> {
  const parsed = parseCommand(SERVE_COMMAND, args);
  if (parsed.help) return console.log(commandHelp(SERVE_COMMAND)), 0;
  const settings = resolveSettings(SERVE_COMMAND.settings, parsed.values);
  checkServerTimeouts(settings);
  const seed = parsed.values['seed'];
  if (parsed.values['seed-today'] === true && typeof seed !== 'string') throw new ConfigError('serve: --seed-today moves the sessions of --seed FILE|DIR, which is not given');
  const seedFiles = typeof seed === 'string' ? await expandInputs([seed]) : [];
  const seedPictures = typeof seed === 'string' ? join(seed, SEED_PICTURES) : undefined;
  const withPictures = seedPictures !== undefined && (await stat(seedPictures).catch(() => undefined))?.isDirectory() === true;
  setMarkingTriggers();
  closeOnSignals(await startServer({ settings, seedFiles, seedToday: parsed.values['seed-today'] === true, seedPictures: withPictures ? seedPictures : undefined }));
  // Keeps running until a signal.
  return undefined;
}
