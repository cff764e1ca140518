/**
 * libvips's worker threads yield to the rest of the server: on Linux, each is given the lowest
 * priority (nice 19) once it exists, so that a core busy resizing still answers other requests
 * at once. A server pinned to one core, or a machine whose cores are all busy, otherwise shares
 * its time evenly between the event loop and the resizing.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { setPriority } from 'node:os';

const TASKS = '/proc/self/task';
const LOWEST = 19;
const lowered = new Set<string>();

/** Lowers the priority of the libvips threads started since the last call; elsewhere than Linux, does nothing. */
export function lowerResizingPriority(): void {
  let tasks: string[];
  try {
    tasks = readdirSync(TASKS);
  } catch {
    return;
  }
  for (const task of tasks) {
    if (lowered.has(task)) continue;
    try {
      if (readFileSync(`${TASKS}/${task}/comm`, 'utf8').trim() !== 'libvips worker') continue;
      setPriority(Number(task), LOWEST);
      lowered.add(task);
    } catch {
      // The thread ended meanwhile: there is nothing to lower.
    }
  }
}
