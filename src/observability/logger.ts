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

/**
 * Standard output, written asynchronously: lines logged while a write is under way leave together
 * in the next one, so a busy server writes a batch per turn rather than a line per request. What
 * is pending when the process exits is written before it goes.
 */
function standardOutput(): DestinationStream {
  const destination = pino.destination({ dest: 1, sync: false });
  process.once('exit', () => destination.flushSync());
  return destination;
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
