/**
 * Standard output for the server's log, written in batches: every line of the process goes
 * through here, so lines keep their order, and they leave together at most `FLUSH_INTERVAL_MS`
 * after the first of them was logged, or at once when 64 KiB are pending. Under load a turn of
 * the event loop answers only a few requests, and a write per turn cost a sixth of the
 * throughput of small answers; a write every few milliseconds costs next to nothing. Whatever is
 * pending when the process exits, also on an uncaught exception, is written then.
 */
import pino from 'pino';

/** Past this many pending characters the lines are written at once. */
const MAX_PENDING = 64 * 1024;
/** The longest a logged line waits before it is written. */
const FLUSH_INTERVAL_MS = 20;

export function batchedStandardOutput(): { write(line: string): void } {
  // Synchronous, so that nothing pending is lost when the process exits; it also retries a
  // write that standard output is not ready to take.
  const destination = pino.destination({ dest: 1, sync: true });
  let pending = '';
  let timer: NodeJS.Timeout | undefined;
  const flush = (): void => {
    clearTimeout(timer);
    timer = undefined;
    if (pending === '') return;
    destination.write(pending);
    pending = '';
  };
  process.once('exit', flush);
  return {
    write(line) {
      pending += line;
      if (pending.length >= MAX_PENDING) flush();
      // Unreferenced: pending lines never keep the process alive, the exit handler writes them.
      else timer ??= setTimeout(flush, FLUSH_INTERVAL_MS).unref();
    },
  };
}
