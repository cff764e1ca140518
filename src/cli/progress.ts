/**
 * Progress of a long import: a bar redrawn in place on a terminal, a plain line every few
 * seconds otherwise (logs, CI), and nothing at all for imports that finish quickly.
 */
import type { ImportProgress } from '../import/import-files.js';

const TERMINAL_INTERVAL_MS = 100;
const LOG_INTERVAL_MS = 2000;
const BAR_WIDTH = 24;

export interface ProgressReporter {
  update(progress: ImportProgress): void;
  /** Clears the bar, so the closing line starts on a clean line. */
  finish(): void;
}

/**
 * Reports to `stream` at most once an `interval` of milliseconds as `now` (a monotonic clock)
 * counts them, from the first update: the time before it, opening and reading the database,
 * is not the input's progress, and a small file read at once is never reported however long that took.
 */
export function progressReporter(
  stream: Pick<NodeJS.WriteStream, 'isTTY' | 'write'>,
  interval = stream.isTTY ? TERMINAL_INTERVAL_MS : LOG_INTERVAL_MS,
  now: () => number = () => performance.now(),
): ProgressReporter {
  let started: number | undefined;
  let lastShown = 0;
  let drawn = false;

  return {
    update({ file, bytesRead, fileBytes, records }) {
      const at = now();
      if (started === undefined) started = lastShown = at;
      if (at - lastShown < interval) return;
      lastShown = at;
      const fraction = fileBytes > 0 ? Math.min(1, bytesRead / fileBytes) : 1;
      const rate = at > started ? Math.round(records / ((at - started) / 1000)) : 0;
      const figures = `${Math.floor(fraction * 100)}%  ${records.toLocaleString('en')} records  ${rate.toLocaleString('en')} records/s`;
      if (stream.isTTY) {
        const filled = Math.round(fraction * BAR_WIDTH);
        stream.write(`\r\x1b[2K${file} [${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${figures}`);
        drawn = true;
      } else {
        stream.write(`progress: ${file} ${figures}\n`);
      }
    },
    finish() {
      if (drawn) stream.write('\r\x1b[2K');
    },
  };
}
