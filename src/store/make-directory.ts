/** Where a command or server makes the directory its files go in. */
import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Makes a directory and its missing parents, one at a time. Node's `recursive` option loops for
 * ever where a parent cannot be made and the system answers ENOENT (anywhere under /proc), and
 * names a file in the way as "already exists".
 */
export function makeDirectory(path: string): void {
  const found = statSync(path, { throwIfNoEntry: false });
  if (found !== undefined) {
    if (!found.isDirectory()) throw new Error(`${path} is a file, not a directory`);
    return;
  }
  const parent = dirname(path);
  if (parent !== path) makeDirectory(parent);
  try {
    mkdirSync(path);
  } catch (error) {
    // Made meanwhile by another process.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}
