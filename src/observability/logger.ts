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
const BATCH_BYTES = 8 * 1024;
/** The longest a line waits for its batch to fill. */
const FLUSH_INTERVAL_MS = 50;

/**
 * Standard output, written asynchronously in batches: under load a write per line cost about a
 * tenth of the throughput of small answers, a write per batch next to nothing. A batch leaves
 * when it is full, or at most FLUSH_INTERVAL_MS after its first line; pino writes what is still
 * pending when the process exits.
 */
function standardOutput(): DestinationStream {
  const destination = pino.destination({ dest: 1, sync: false, minLength: BATCH_BYTES });
  setInterval(() => destination.flush(), FLUSH_INTERVAL_MS).unref();
  return destination;
}

/**
 * Resolves once the lines logged so far are written, or could not be, or after `timeoutMs`. A
 * server exits through this rather than leaving its last lines to the write pino makes at exit:
 * when the reader of standard output has gone (Ctrl-C on `marquee serve | jq` stops both), that
 * write retries for ever (sonic-boom 4 sleeps and retries a write that failed with EPIPE), while
 * this one fails, and a failed write makes pino stop writing.
 */
export function logWritten(logger: Logger, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, timeoutMs);
    logger.flush(() => {
      clearTimeout(timer);
      resolve();
    });
  });
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
