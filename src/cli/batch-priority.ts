/**
 * An import is a batch job. On a small machine it shares the cores with the server answering
 * from the same database, and at the same priority it took them from it: replacing a catalogue of
 * 5,000 films held the server's event loop up to 300–400 ms, the server preempted (not waiting
 * on the database) while the import ran. At a lower priority the import takes the cores the
 * server leaves, and on an idle machine runs as fast as before.
 */
import { getPriority, setPriority } from 'node:os';

/** The niceness a batch command runs at, below the server's default 0. */
const BATCH_NICENESS = 10;

/** Lowers this process's CPU priority to a batch job's, never raising it. */
export function yieldToServers(): void {
  // An operator who started the command at a lower priority still meant it.
  if (getPriority() >= BATCH_NICENESS) return;
  try {
    setPriority(BATCH_NICENESS);
  } catch {
    // A system that refuses (a sandbox forbidding setpriority) leaves the import as fast as ever: it is no reason to fail it.
  }
}
