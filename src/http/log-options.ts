/**
 * The server's structured log: pino, one JSON object per line. A token must never reach a log
 * line, so the headers that carry one are redacted wherever a logged object holds them, and a
 * logged request shows its path without the query string, where a client might put one.
 */
import type { FastifyServerOptions } from 'fastify';
import type { LogOutput } from './log-output.js';

export interface LogConfig {
  readonly level: string;
  /** Where the lines go. */
  readonly output: LogOutput;
}

const TOKEN_HEADERS = ['authorization', 'veeziaccesstoken'];
const REDACTED_PATHS = TOKEN_HEADERS.flatMap((name) => [`headers.${name}`, `req.headers.${name}`, `request.headers.${name}`]);

/** The part of a request target before its query string. */
export function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

export function logOptions(config: LogConfig): Exclude<FastifyServerOptions['logger'], boolean | undefined> {
  return {
    level: config.level,
    stream: config.output,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    serializers: {
      req: (request) => ({ method: request.method, path: pathOf(request.url), remoteAddress: request.ip }),
    },
  };
}
