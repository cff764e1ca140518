/**
 * The server's structured log: pino, one JSON object per line on standard output. A token must
 * never reach a log line, so the headers that carry one are redacted wherever a logged object
 * holds them, and a logged request shows its path without the query string, where a client
 * might put one.
 */
import pino, { type DestinationStream, type Logger } from 'pino';

export interface LogConfig {
  readonly level: string;
  /** Where the lines go; standard output when absent. */
  readonly destination?: DestinationStream;
}

const TOKEN_HEADERS = ['authorization', 'veeziaccesstoken'];
const REDACTED_PATHS = TOKEN_HEADERS.flatMap((name) => [`headers.${name}`, `req.headers.${name}`, `request.headers.${name}`]);

/** The part of a request target before its query string. */
export function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/** Bytes of log lines gathered before they are written at once. */
const BATCH_BYTES = 2 * 1024;
/** The longest a line waits for its batch to fill. */
const FLUSH_INTERVAL_MS = 50;

/**
 * Standard output, written in batches of a few lines, each batch in one synchronous write. A write
 * per line cost about a twentieth of the throughput of small answers. Asynchronous writes cost
 * more than they saved: each went through the thread pool, which takes turns with the server's
 * thread on a core of its own, and sonic-boom counts the bytes of the whole pending batch on each
 * line, so the batches that piled up while a write was under way cost more the longer they grew.
 * A batch leaves when it is full, at most FLUSH_INTERVAL_MS after its first line (a process with
 * nothing to log is not woken to write nothing), and when the process exits. A reader of the log
 * slower than the server holds the server back, rather than letting lines pile up in its memory.
 */
function standardOutput(): DestinationStream {
  const destination = pino.destination({ dest: 1, sync: true, minLength: BATCH_BYTES });
  // flush rather than flushSync: a write that fails with EPIPE ends the log (pino then makes
  // writes no-ops) where flushSync would retry it for ever.
  process.once('exit', () => destination.flush());
  let flush: NodeJS.Timeout | undefined;
  return {
    write(line: string) {
      destination.write(line);
      flush ??= setTimeout(() => {
        flush = undefined;
        destination.flush();
      }, FLUSH_INTERVAL_MS).unref();
    },
  };
}

export function createLogger(config: LogConfig): Logger {
  return pino(
    {
      level: config.level,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      serializers: {
        req: (request: { method: string; url: string; ip?: string }) => ({ method: request.method, path: pathOf(request.url), remoteAddress: request.ip }),
      },
    },
    config.destination ?? standardOutput(),
  );
}
