/**
 * One JSON line per answered request, in the shape of every other line of the log (pino's:
 * level, time, pid, hostname, then the fields and the message). Its fields are an id, the method,
 * the route pattern (never the URL, which may carry anything a client sent), the status and the
 * duration. Everything but the time, id, method, status and duration is the same on every line
 * of a route, so it is encoded once per route and a request writes only its own values: a
 * logger's generic serialisation cost about a tenth of the throughput of small answers.
 */
import { hostname } from 'node:os';
import pino from 'pino';
import type { LogConfig } from './log-options.js';
import type { LogOutput } from './log-output.js';

const INFO = pino.levels.values['info'] as number;

const LINE_START = Buffer.from(`{"level":${INFO},"time":`);
const METHOD = Buffer.from('","method":"');
const DURATION = Buffer.from(',"durationMs":');
const LINE_END = Buffer.from(',"msg":"request completed"}\n');
/** The most bytes a time, a status and a duration take. */
const NUMBERS_BYTES = 64;

/** Writes the log line of each request answered on one route. */
export class RouteLog {
  /** From the end of the method to the status. */
  private readonly routeFields: Buffer;
  private readonly fixedBytes: number;

  constructor(
    private readonly output: LogOutput,
    /** From the end of the time to the opening quote of the request id. */
    private readonly processFields: Buffer,
    route: string,
  ) {
    this.routeFields = Buffer.from(`","route":${JSON.stringify(route)},"status":`);
    this.fixedBytes = LINE_START.length + processFields.length + METHOD.length + this.routeFields.length + DURATION.length + LINE_END.length + NUMBERS_BYTES;
  }

  /**
   * `reqId` and `method` are written without escaping: request ids are made of letters, digits
   * and dashes, and Node's parser accepts only registered method names, none of which JSON escapes.
   */
  write(reqId: string, method: string, status: number, milliseconds: number): void {
    const output = this.output;
    output.reserve(this.fixedBytes + reqId.length + method.length);
    output.bytes(LINE_START);
    output.integer(Date.now());
    output.bytes(this.processFields);
    output.ascii(reqId);
    output.bytes(METHOD);
    output.ascii(method);
    output.bytes(this.routeFields);
    output.integer(status);
    output.bytes(DURATION);
    output.thousandths(Math.round(milliseconds * 1000));
    output.bytes(LINE_END);
    output.lineWritten();
  }
}

export class AccessLog {
  private readonly processFields = Buffer.from(`,"pid":${process.pid},"hostname":${JSON.stringify(hostname())},"reqId":"`);

  private constructor(private readonly output: LogOutput) {}

  /** The access log of a server logging at `config.level`; undefined when that level hides it. */
  static of(config: LogConfig | undefined): AccessLog | undefined {
    if (config === undefined || (pino.levels.values[config.level] ?? Infinity) > INFO) return undefined;
    return new AccessLog(config.output);
  }

  /** The writer of a route pattern such as `/v4/film/:id`, made once when the route is set up. */
  route(pattern: string): RouteLog {
    return new RouteLog(this.output, this.processFields, pattern);
  }
}
