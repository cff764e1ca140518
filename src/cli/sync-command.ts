import { setTimeout as sleep } from 'node:timers/promises';
import { ConfigError, resolveSettings } from '../config.js';
import { syncOnce, SyncError, type SyncOptions } from '../import/sync.js';
import { openDatabase } from '../store/database.js';
import { LockTimeoutError } from '../store/sql-client.js';
import { commandHelp, commandLockWait, parseCommand, type CommandSpec } from './command.js';
import { describeChanges } from './import-command.js';

export const SYNC_COMMAND: CommandSpec = {
  name: 'sync',
  usage: 'sync --from URL [options]',
  summary:
    'Mirrors every list of a Veezi-compatible API (films, packages, screens, attributes, the site, sessions with\n' +
    'the Url of those on sale) into the catalogue, replacing it in one transaction. An unchanged upstream costs\n' +
    'one 304 answer per list; on any failure the catalogue is left as it was.',
  settings: ['database', 'customer', 'lockTimeout', 'maxDownload', 'maxProblems'],
  flags: {
    from: { type: 'string', description: 'base address of the upstream API (required)' },
    token: { type: 'string', description: 'access token sent as VeeziAccessToken (or env MARQUEE_SYNC_TOKEN)' },
    every: { type: 'string', description: 'keep running and sync every DURATION, such as 30s, 5m or 1h' },
    retries: { type: 'string', description: 'tries again after a transient failure this many times; default 4' },
    'retry-delay': { type: 'string', description: 'milliseconds before the first retry, doubled each time; default 1000' },
  },
};

function parseDuration(text: string): number {
  const match = /^(\d+)(s|m|h)$/.exec(text);
  const ms = match ? Number(match[1]) * { s: 1000, m: 60_000, h: 3_600_000 }[match[2] as 's' | 'm' | 'h'] : 0;
  if (ms < 1000) throw new ConfigError(`sync: --every must be a duration such as 30s, 5m or 1h, got '${text}'`);
  return ms;
}

function parseCount(flag: string, text: unknown, fallback: number): number {
  if (text === undefined) return fallback;
  if (typeof text !== 'string' || !/^\d{1,7}$/.test(text)) throw new ConfigError(`sync: --${flag} must be a whole number, got '${String(text)}'`);
  return Number(text);
}

function parseUpstream(text: unknown): string {
  if (typeof text !== 'string') throw new ConfigError('sync: --from URL is required');
  try {
    const url = new URL(text);
    if (url.protocol === 'http:' || url.protocol === 'https:') return text;
  } catch {
    // Reported below.
  }
  throw new ConfigError(`sync: --from must be an http(s) URL, got '${text}'`);
}

export async function runSync(args: readonly string[]): Promise<number | undefined> {
  const parsed = parseCommand(SYNC_COMMAND, args);
  if (parsed.help) return console.log(commandHelp(SYNC_COMMAND)), 0;
  const settings = resolveSettings(SYNC_COMMAND.settings, parsed.values);
  const every = typeof parsed.values['every'] === 'string' ? parseDuration(parsed.values['every']) : undefined;
  const token = parsed.values['token'] ?? process.env['MARQUEE_SYNC_TOKEN'];
  const options: SyncOptions = {
    customer: settings.customer,
    from: parseUpstream(parsed.values['from']),
    token: typeof token === 'string' && token !== '' ? token : undefined,
    retries: parseCount('retries', parsed.values['retries'], 4),
    retryDelayMs: parseCount('retry-delay', parsed.values['retry-delay'], 1000),
    maxDownload: settings.maxDownload,
    maxProblems: settings.maxProblems,
    onRetry: (reason, delayMs) => console.error(`sync: ${reason}; trying again in ${(delayMs / 1000).toFixed(1)} s`),
  };

  const db = await openDatabase(settings.database, { lockWait: commandLockWait(settings) });
  const stopping = new AbortController();
  const stop = (): void => stopping.abort();
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  try {
    for (;;) {
      const started = performance.now();
      try {
        const outcome = await syncOnce(db, options);
        const seconds = ((performance.now() - started) / 1000).toFixed(2);
        if (outcome.unchanged) console.log(`Synced customer '${options.customer}' from ${options.from} in ${seconds} s: the upstream has not changed.`);
        else {
          const { result } = outcome;
          const version = result.written ? `catalogue version ${result.version}` : 'nothing changed';
          console.log(`Synced customer '${options.customer}' from ${options.from} in ${seconds} s: ${describeChanges(result)}; ${version}.`);
        }
      } catch (error) {
        // Kept running with --every: one failed sync is reported and the next one tried.
        if (every === undefined || !(error instanceof SyncError || error instanceof LockTimeoutError)) throw error;
        console.error(`sync: ${error.message}; the catalogue was left as it was; next sync in ${every / 1000} s`);
      }
      if (every === undefined) return 0;
      await sleep(every, undefined, { signal: stopping.signal }).catch(() => undefined);
      if (stopping.signal.aborted) return 0;
    }
  } finally {
    process.off('SIGTERM', stop);
    process.off('SIGINT', stop);
    await db.close();
  }
}
