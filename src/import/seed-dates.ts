/**
 * A demo programme whose sessions fall on the days it is first served: the seed's sessions are
 * moved by whole days, so that the first falls on the day of seeding in the site's time zone and
 * a new install has sessions on sale for as long as the seed's programme runs.
 */
import { createReadStream } from 'node:fs';
import { ianaZoneOf, wallClockTime } from '../catalogue/site-time.js';
import type { Session } from '../catalogue/model.js';
import { isRawRecord } from '../catalogue/raw-record.js';
import { readRecords } from '../formats/record-readers.js';

const DAY = 86_400_000;

/** `days` after a wall-clock time written `yyyy-mm-ddThh:mm:ss`, at the same time of day. */
function addDays(wallClock: string, days: number): string {
  return new Date(Date.parse(`${wallClock}Z`) + days * DAY).toISOString().slice(0, 19);
}

/** The session `days` later, every time moved alike. */
export function moveSession(session: Session, days: number): Session {
  if (days === 0) return session;
  return {
    ...session,
    preShowStartTime: addDays(session.preShowStartTime, days),
    salesCutOffTime: addDays(session.salesCutOffTime, days),
    featureStartTime: addDays(session.featureStartTime, days),
    featureEndTime: addDays(session.featureEndTime, days),
    cleanupEndTime: addDays(session.cleanupEndTime, days),
  };
}

/**
 * The whole days from the first session of `files` to `now`'s day in the zone of their site;
 * 0 when they hold no session or no site whose zone maps. The files are read once more by the
 * import, which reports whatever is wrong with them.
 */
export async function daysToToday(files: readonly string[], now: number): Promise<number> {
  let first: string | undefined;
  let zone: string | undefined;
  for (const file of files) {
    for await (const { kind, raw } of readRecords(createReadStream(file), file)) {
      if (!isRawRecord(raw)) continue;
      const start = raw['PreShowStartTime'];
      const windowsZone = raw['TimeZoneIdentifier'];
      if (kind === 'session' && typeof start === 'string' && (first === undefined || start < first)) first = start;
      if (kind === 'site' && typeof windowsZone === 'string') zone = ianaZoneOf(windowsZone);
    }
  }
  if (first === undefined || zone === undefined) return 0;
  const today = wallClockTime(zone, now).slice(0, 10);
  return Math.round((Date.parse(`${today}T00:00:00Z`) - Date.parse(`${first.slice(0, 10)}T00:00:00Z`)) / DAY);
}
