import { resolveSettings } from '../config.js';
import { statusLines, syncStatuses } from '../import/sync-status.js';
import { loadSyncStates } from '../store/sync-repository.js';
import { commandHelp, openCommandDatabase, parseCommand, type CommandSpec } from './command.js';

export const SYNC_STATUS_COMMAND: CommandSpec = {
  name: 'sync status',
  usage: 'sync status [--json] [options]',
  summary:
    "Shows each synced customer's last attempt, last success, last change, failures in a row and last error,\n" +
    'from the database. Customers whose last success is older than twice their interval are stale: they come\n' +
    'first, and the exit status is then 1, for a monitoring check.',
  settings: ['database'],
  flags: { json: { type: 'boolean', description: 'print a JSON array instead of lines' } },
};

export async function runSyncStatus(args: readonly string[]): Promise<number> {
  const parsed = parseCommand(SYNC_STATUS_COMMAND, args);
  if (parsed.help) return console.log(commandHelp(SYNC_STATUS_COMMAND)), 0;
  const settings = resolveSettings(SYNC_STATUS_COMMAND.settings, parsed.values);
  const db = await openCommandDatabase(settings.database, { existing: true });
  try {
    const now = Date.now();
    const statuses = syncStatuses(await loadSyncStates(db), now);
    const stale = statuses.filter((status) => status.stale).length;
    if (parsed.values['json'] === true) console.log(JSON.stringify(statuses, null, 2));
    else if (statuses.length === 0) console.log('No customer is synced.');
    else {
      for (const line of statusLines(statuses, now)) console.log(line);
      console.log(`${stale.toLocaleString('en-US')} of ${statuses.length.toLocaleString('en-US')} customers stale.`);
    }
    return stale > 0 ? 1 : 0;
  } finally {
    await db.close();
  }
}
