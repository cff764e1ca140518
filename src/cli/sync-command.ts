import { ConfigError, resolveSettings } from '../config.js';
import { SyncFleet, type FleetEvents, type FleetSettings } from '../import/sync-fleet.js';
import { parseUpstreamUrl, readUpstreamList, type Upstream } from '../import/upstream-list.js';
import { openDatabase } from '../store/database.js';
import { commandHelp, commandLockWait, parseCommand, type CommandSpec } from './command.js';
import { describeChanges } from './import-command.js';
import { setMarkingTriggers } from './marking-triggers.js';
import { runSyncStatus } from './sync-status-command.js';

export const SYNC_COMMAND: CommandSpec = {
  name: 'sync',
  usage: 'sync --from URL [--token T] [--customer KEY] [options]\n       marquee sync --upstreams FILE [options]\n       marquee sync status [--json]',
  summary:
    'Mirrors every list of a Veezi-compatible API (films, packages, screens, attributes, the site, sessions with\n' +
    'the Url of those on sale) into a customer\'s catalogue. Each list is read conditionally (an unchanged one\n' +
    'costs a 304 answer), and those that changed are written in one transaction; on any failure the catalogue\n' +
    'is left as it was. --from syncs one upstream, once unless --every is given; --upstreams FILE keeps syncing\n' +
    'every upstream FILE lists, a line customer<TAB>url<TAB>token (\'-\' for none), and takes up its changes.\n' +
    "'marquee sync status' shows how each customer's syncs went.",
  settings: ['database', 'customer', 'lockTimeout', 'maxDownload', 'maxTemp', 'maxProblems'],
  flags: {
    from: { type: 'string', valueName: 'URL', description: 'base address of the upstream API' },
    token: { type: 'string', valueName: 'T', description: 'access token sent as VeeziAccessToken (or env MARQUEE_SYNC_TOKEN); with --from' },
    upstreams: { type: 'string', valueName: 'FILE', insteadOf: 'customer', description: 'sync every upstream FILE lists, and keep syncing them' },
    every: { type: 'string', valueName: 'DURATION', description: 'read every list every DURATION, such as 30s, 5m or 1h; default 15m with --upstreams' },
    'sessions-every': { type: 'string', valueName: 'DURATION', description: 'read the sessions and web sessions every DURATION; default 1m (at most --every)' },
    concurrency: { type: 'string', valueName: 'N', description: 'syncs at once; default 8' },
    'per-host': { type: 'string', valueName: 'N', description: 'syncs (so requests) at once to one upstream host; default 4' },
    'upstream-timeout': { type: 'string', valueName: 'DURATION', description: 'longest one request to an upstream may take, its answer read; default 30s' },
    retries: { type: 'string', valueName: 'N', description: 'tries again after a transient failure this many times, before the next interval; default 4' },
    'retry-delay': { type: 'string', valueName: 'MS', description: 'milliseconds before the first retry, doubled each time, with jitter; default 1000' },
  },
};

function parseDuration(flag: string, text: unknown, fallback: number | undefined): number | undefined {
  if (text === undefined) return fallback;
  const match = typeof text === 'string' ? /^(\d{1,6})(s|m|h)$/.exec(text) : null;
  const ms = match ? Number(match[1]) * { s: 1000, m: 60_000, h: 3_600_000 }[match[2] as 's' | 'm' | 'h'] : 0;
  if (ms < 1000) throw new ConfigError(`sync: --${flag} must be a duration such as 30s, 5m or 1h, got '${String(text)}'`);
  return ms;
}

/** A duration as a flag takes it: `15m`, `90s`, `1h`. */
function formatDuration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  return ms % 60_000 === 0 ? `${ms / 60_000}m` : `${ms / 1000}s`;
}

function parseCount(flag: string, text: unknown, fallback: number, min = 0): number {
  if (text === undefined) return fallback;
  if (typeof text !== 'string' || !/^\d{1,7}$/.test(text) || Number(text) < min) throw new ConfigError(`sync: --${flag} must be a whole number${min > 0 ? ` from ${min}` : ''}, got '${String(text)}'`);
  return Number(text);
}

/** How often the list of upstreams is read again, at most: changes are taken up within one sessions interval. */
const LIST_CHECK_MS = 5000;

export async function runSync(args: readonly string[]): Promise<number | undefined> {
  if (args[0] === 'status') return runSyncStatus(args.slice(1));
  const parsed = parseCommand(SYNC_COMMAND, args);
  if (parsed.help) return console.log(commandHelp(SYNC_COMMAND)), 0;
  const settings = resolveSettings(SYNC_COMMAND.settings, parsed.values);
  const { values } = parsed;
  const file = values['upstreams'];
  if (typeof file === 'string' && (values['from'] !== undefined || values['token'] !== undefined)) {
    throw new ConfigError('sync: --from and --token name one upstream; with --upstreams, FILE names each');
  }
  if (typeof file !== 'string' && typeof values['from'] !== 'string') throw new ConfigError('sync: --from URL or --upstreams FILE is required');
  const everyMs = parseDuration('every', values['every'], typeof file === 'string' ? 15 * 60_000 : undefined);
  const sessionsEveryMs = Math.min(parseDuration('sessions-every', values['sessions-every'], 60_000) as number, everyMs ?? Infinity);
  const concurrency = parseCount('concurrency', values['concurrency'], 8, 1);
  // Each sync may keep --max-download of its answers; the syncs at once keep no more than --max-temp between them.
  const fitting = Math.floor(settings.maxTemp.bytes / settings.maxDownload.bytes);
  if (fitting < 1) throw new ConfigError(`sync: --max-temp (${settings.maxTemp.text}) must hold the --max-download of one sync (${settings.maxDownload.text})`);
  const fleetSettings: FleetSettings = {
    everyMs,
    sessionsEveryMs,
    concurrency: Math.min(concurrency, fitting),
    perHost: parseCount('per-host', values['per-host'], 4, 1),
    retries: parseCount('retries', values['retries'], 4),
    retryDelayMs: parseCount('retry-delay', values['retry-delay'], 1000),
    limits: { timeoutMs: parseDuration('upstream-timeout', values['upstream-timeout'], 30_000) as number, maxDownload: settings.maxDownload, maxProblems: settings.maxProblems },
    exclusive: typeof file === 'string',
  };
  let upstreams: Upstream[];
  let listed = '';
  if (typeof file === 'string') ({ text: listed, upstreams } = await readUpstreamList(file));
  else {
    const url = parseUpstreamUrl(String(values['from']));
    if (typeof url !== 'string') throw new ConfigError(`sync: --from ${url.reason}`);
    const token = values['token'] ?? process.env['MARQUEE_SYNC_TOKEN'];
    upstreams = [{ customer: settings.customer, url, token: typeof token === 'string' && token !== '' ? token : undefined }];
  }

  setMarkingTriggers();
  const db = await openDatabase(settings.database, { lockWait: commandLockWait(settings) });
  const fleet = new SyncFleet(db, fleetSettings, fleetEvents(everyMs === undefined));
  const stop = (): void => fleet.stop();
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  let listCheck: NodeJS.Timeout | undefined;
  try {
    await fleet.setUpstreams(upstreams);
    if (everyMs !== undefined) {
      const atOnce = fleetSettings.concurrency < concurrency ? `${fleetSettings.concurrency} at once (as many as --max-temp ${settings.maxTemp.text} holds)` : `${concurrency} at once`;
      console.log(`Syncing ${upstreams.length} upstream${upstreams.length === 1 ? '' : 's'}: every list every ${formatDuration(everyMs)}, sessions every ${formatDuration(sessionsEveryMs)}; ${atOnce}, ${fleetSettings.perHost} to one host.`);
    }
    if (typeof file === 'string') {
      let checking = false;
      listCheck = setInterval(() => {
        if (checking) return;
        checking = true;
        readUpstreamList(file)
          .then(async (list) => {
            if (list.text === listed) return;
            await fleet.setUpstreams(list.upstreams);
            // Only once taken up: a list the database could not take is tried again at the next check.
            listed = list.text;
            console.log(`sync: took up ${file}: ${list.upstreams.length} upstreams.`);
          })
          .catch((error: unknown) => console.error(`sync: ${(error as Error).message}; still syncing the upstreams listed before`))
          .finally(() => (checking = false));
      }, Math.min(LIST_CHECK_MS, sessionsEveryMs));
    }
    await fleet.run();
    // Syncing one upstream once: its failure is the command's, told as any command's failure is.
    const [failure] = fleet.failures().values();
    if (failure !== undefined) throw failure;
    return 0;
  } finally {
    clearInterval(listCheck);
    process.off('SIGTERM', stop);
    process.off('SIGINT', stop);
    await db.close();
  }
}

/** One line per sync that changed or failed something (and, syncing once, per sync), never a token. */
function fleetEvents(once: boolean): FleetEvents {
  return {
    onSynced: (upstream, outcome, seconds) => {
      const { result } = outcome;
      const synced = `Synced customer '${upstream.customer}' from ${upstream.url} in ${seconds.toFixed(2)} s`;
      if (result === undefined) {
        if (once) console.log(`${synced}: the upstream has not changed.`);
      } else if (result.written || once) {
        const version = result.written ? `catalogue version ${result.version}` : 'nothing changed';
        console.log(`${synced}: ${describeChanges(result, outcome.kinds)}; ${version}.`);
      }
    },
    onFailed: (upstream, { reason, failures, retrying, nextInMs }) => {
      const seconds = (nextInMs / 1000).toFixed(1);
      const customer = `sync: customer '${upstream.customer}'${failures > 1 ? ` (failure ${failures} in a row)` : ''}`;
      if (retrying) console.error(`${customer}: ${reason}; trying again in ${seconds} s`);
      // Syncing once, the last failure is told as the command's own.
      else if (!once) console.error(`${customer}: ${reason}; its catalogue was left as it was; next sync in ${seconds} s`);
    },
    onLost: (upstream) => console.error(`sync: customer '${upstream.customer}': another sync process took it while this one synced it; this one wrote nothing`),
    onForgotten: (customers) => console.log(`sync: no longer syncing ${customers.join(', ')}: not listed; their catalogues stay as they are.`),
    onDatabaseError: (error) => console.error(`sync: the database did not answer (${(error as Error).message}); trying again`),
  };
}
