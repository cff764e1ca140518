/**
 * When V8 begins to mark the old generation of a long-running process (a server, a sync) for a
 * full collection. By its own rule V8 begins as soon as the old generation's room (its limit less
 * its size) is smaller than what the young generation could promote. The young generation of such
 * a process grows to its largest under its first work (a server's first catalogues, a sync's
 * first pass) and stays so; and V8 sets the limit of a process that keeps little alive between
 * its pieces of work at about 1.1 times what is live. The room is then smaller from the start,
 * and marking begins again right after each full collection: one every half second while changes
 * come, whatever they allocate. That was half of what a film change cost a server in
 * `npm run bench -- --changes` (bench/README.md, "The storms, explained again"), and a third of a
 * sync's CPU, on V8's own threads, with a thousand cinemas changing ("Full collections of a sync",
 * there). Begun instead once half the room the last collection left is used, and at once from
 * 90 %, marking follows what the process allocates. The limits, and so how large the heap may
 * grow, stay V8's own.
 */
import { setFlagsFromString } from 'node:v8';

const TRIGGERS = { '--incremental-marking-soft-trigger': 50, '--incremental-marking-hard-trigger': 90 };

/**
 * Sets the triggers, unless the process was started with its own. V8 reads them each time it
 * decides whether to begin marking, so they take effect once set.
 */
export function setMarkingTriggers(): void {
  // V8 takes its flags' words joined by dashes or by underscores.
  const own = process.execArgv.map((flag) => flag.replaceAll('_', '-'));
  if (Object.keys(TRIGGERS).some((trigger) => own.some((flag) => flag.startsWith(trigger)))) return;
  for (const [flag, percent] of Object.entries(TRIGGERS)) setFlagsFromString(`${flag}=${percent}`);
}
