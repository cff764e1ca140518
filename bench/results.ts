/**
 * The shape of a results file under bench/results/, written by run-bench and read by report.
 */
import type { MemoryResult } from './memory.js';

/** What the servers Marquee is measured against are called in results and reports. */
export type BaselineName = 'ceiling' | 'plain fastify';

export interface WrkFigures {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly errors: number;
}

/** Marquee measured against one baseline on one scenario; every ratio is Marquee's rate ÷ the baseline's. */
export interface ScenarioResult {
  readonly films: number;
  readonly scenario: string;
  readonly against: BaselineName;
  /** wrk's connections and seconds per round. */
  readonly connections: number;
  readonly seconds: number;
  readonly marquee: WrkFigures;
  readonly baseline: WrkFigures;
  /** The median of the rounds' ratios, the two servers driven in turn. */
  readonly ratio: number;
  /** The first and third quartiles of the rounds' ratios: how far one round strays from the next. */
  readonly ratioQuartiles: readonly [number, number];
  /** Each round's ratio, in the order they ran. */
  readonly roundRatios: readonly number[];
  /** The same ratio with both servers driven at once on the core they share. */
  readonly sharedCore: { readonly ratio: number; readonly quartiles: readonly [number, number]; readonly roundRatios: readonly number[] };
}

export interface SizeResult {
  readonly films: number;
  readonly results: readonly ScenarioResult[];
  /** From start until /readyz answers 200 (in results older than publication on demand, the catalogue was loaded by then). */
  readonly readyMs: number;
  /** Once the catalogue is published (in older results, once loaded). */
  readonly rssMb: number;
  readonly reload?: { readonly reloadMs: number; readonly maxLatencyMs: number; readonly p99Ms: number };
}

export interface BenchResults {
  readonly date: string;
  readonly machine: string;
  /** `os.loadavg()` (1, 5 and 15 minutes) as the run started and as it ended: others' work disturbs the figures. */
  readonly loadAverage: { readonly start: readonly number[]; readonly end: readonly number[] };
  readonly duration: number;
  readonly rounds: number;
  readonly connections: number;
  readonly sizes: readonly SizeResult[];
  readonly memory: MemoryResult;
}
