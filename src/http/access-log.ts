/**
 * One JSON line per answered request, in the shape of every other line of the log (pino's:
 * level, time, pid, hostname, then the fields and the message). Its fields are an id, the method,
 * the route pattern (never the URL, which may carry anything a client sent), the status and the
 * duration. Everything but the time, id, method, status and duration is the same on every line
 * of a route, so it is written once per route and a request only joins the pieces: a logger's
 * generic serialisation cost about a tenth of the throughput of small answers.
 */
import { hostname } from 'node:os';
import pino from 'pino';
import type { LogConfig } from './log-options.js';

const INFO = pino.levels.values['info'] as number;

/** Writes the log line of each request answered on one route. */
export class RouteLog {
  private readonly routeFields: string;

  constructor(
    private readonly stream: LogConfig['stream'],
    private readonly processFields: string,
    route: string,
  ) {
    this.routeFields = `","route":${JSON.stringify(route)},"status":`;
  }

  /**
   * `reqId` and `method` are written as they are: request ids are made of letters, digits and
   * dashes, and Node's parser accepts only registered method names, neither of which JSON escapes.
   */
  write(reqId: string, method: string, status: number, milliseconds: number): void {
    const durationMs = Math.round(milliseconds * 1000) / 1000;
    this.stream.write(
      `{"level":${INFO},"time":${Date.now()}${this.processFields},"reqId":"${reqId}","method":"${method}${this.routeFields}${status},"durationMs":${durationMs},"msg":"request completed"}\n`,
    );
  }
}

export class AccessLog {
  /** The fields of every line between the time and the request's own. */
  private readonly processFields = `,"pid":${process.pid},"hostname":${JSON.stringify(hostname())}`;

  private constructor(private readonly stream: LogConfig['stream']) {}

  /** The access log of a server logging at `config.level`; undefined when that level hides it. */
  static of(config: LogConfig | undefined): AccessLog | undefined {
    if (config === undefined || (pino.levels.values[config.level] ?? Infinity) > INFO) return undefined;
    return new AccessLog(config.stream);
  }

  /** The writer of a route pattern such as `/v4/film/:id`, made once when the route is set up. */
  route(pattern: string): RouteLog {
    return new RouteLog(this.stream, this.processFields, pattern);
  }
}
