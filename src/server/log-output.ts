/**
 * Standard output for the server's log, written once per turn of the event loop rather than once
 * per line. Under load a turn answers dozens of requests, and a write of its own for each of
 * their lines cost more than building them. Every line of the process goes through here, so
 * lines keep their order; each leaves by the end of the turn that logged it, and whatever is
 * pending when the process exits is written then.
 */
import pino from 'pino';

/** Past this many pending characters a turn's lines are written at once, not at its end. */
const MAX_PENDING = 64 * 1024;

export function batchedStandardOutput(): { write(line: string): void } {
  // Synchronous, so that nothing pending is lost when the process exits; it also retries a
  // write that standard output is not ready to take.
  const destination = pino.destination({ dest: 1, sync: true });
  let pending = '';
  let flushScheduled = false;
  const flush = (): void => {
    flushScheduled = false;
    if (pending === '') return;
    destination.write(pending);
    pending = '';
  };
  process.once('exit', flush);
  return {
    write(line) {
      pending += line;
      if (pending.length >= MAX_PENDING) flush();
      else if (!flushScheduled) {
        flushScheduled = true;
        setImmediate(flush);
      }
    },
  };
}
