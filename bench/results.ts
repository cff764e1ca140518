/**
 * The shape of a results file under bench/results/, written by run-bench and read by report.
 */
import type { MemoryResult } from './memory.js';

/**
 * What the servers Marquee is measured against are called in results and reports. The fastify
 * floor is the plain app doing the least a fastify app can per request (plain-fastify-app.ts).
 */
export type BaselineName = 'ceiling' | 'plain fastify' | 'fastify floor';

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

/** What every results file opens with. */
export interface RunHeader {
  readonly date: string;
  readonly machine: string;
  /** `os.loadavg()` (1, 5 and 15 minutes) as the run started and as it ended: others' work disturbs the figures. */
  readonly loadAverage: { readonly start: readonly number[]; readonly end: readonly number[] };
}

/** The demo cinema's 7-day programme against its web sessions, on one server (programme.ts). */
export interface ProgrammeResult {
  /** Sessions in the 7-day programme. */
  readonly sessions: number;
  readonly bytes: { readonly programme: number; readonly webSessions: number };
  /** The medians of the rounds. */
  readonly requestsPerSecond: { readonly programme: number; readonly webSessions: number };
  /** The median of the rounds' ratios, programme ÷ web sessions. */
  readonly ratio: number;
  readonly ratioQuartiles: readonly [number, number];
  readonly roundRatios: readonly number[];
  /** A film filter's first answer and the same answer asked again, in the server's own log: medians over the demo's films, in milliseconds. */
  readonly filter: { readonly films: number; readonly firstMs: number; readonly againMs: number };
  /** The week kept to the captioned screenings against the whole week, in rounds; absent from results older than the access terms. */
  readonly access?: {
    readonly bytes: number;
    readonly requestsPerSecond: { readonly filtered: number; readonly whole: number };
    /** The median of the rounds' ratios, filtered ÷ whole. */
    readonly ratio: number;
    readonly ratioQuartiles: readonly [number, number];
  };
}

export interface BenchResults extends RunHeader {
  readonly duration: number;
  readonly rounds: number;
  readonly connections: number;
  readonly sizes: readonly SizeResult[];
  readonly memory: MemoryResult;
  /** Absent from results older than the programme. */
  readonly programme?: ProgrammeResult;
}

/** How long a kind of request took, over many. */
export interface LatencySpread {
  readonly p50Ms: number;
  readonly p95Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

/** One customer's import while the server answers others (scale.ts). */
export interface ImportUnderLoad {
  readonly customer: string;
  /** How long the import command ran. */
  readonly importMs: number;
  /** From the import command's exit until the customer's film list has its new ETag. */
  readonly inServiceMs: number;
  /** The slowest answer to the other customers from the import's start until the customer was in service. */
  readonly othersMaxMs: number;
  readonly othersRequests: number;
  /** Of those, the answers whose status was not 200. */
  readonly othersFailures: number;
  /** The longest the clients' own event loop was held up meanwhile: what of the slowest answer may be theirs. */
  readonly clientsDelayMaxMs: number;
}

/** `npm run bench -- --scale`: a server with many customers (scale.ts). */
export interface ScaleResult {
  readonly customers: number;
  readonly films: number;
  /** Sessions per customer. */
  readonly sessions: number;
  readonly database: 'sqlite' | 'postgres';
  readonly cacheMemory: string;
  /** Seconds each step of provisioning took, when the run had to provision the database. */
  readonly provisioning: { readonly generateSeconds: number; readonly importSeconds: number; readonly tokensSeconds: number } | null;
  /** From spawning the server until /readyz answers 200. */
  readonly readyMs: number;
  /** Customers never asked before, each asked one film and then the film list. */
  readonly cold: { readonly customers: number; readonly film: LatencySpread; readonly list: LatencySpread };
  /** Clients asking random customers for one film or the film list. */
  readonly touches: {
    readonly clients: number;
    readonly seconds: number;
    readonly requests: number;
    readonly requestsPerSecond: number;
    readonly latency: LatencySpread;
    /** Answers whose status was not 200. */
    readonly failures: number;
    readonly maxRssMb: number;
    readonly builds: number;
    readonly evictions: number;
    /** Catalogues held as the clients stopped. */
    readonly held: number;
  };
  /** One warm customer's film, with its token, against the ceiling. */
  readonly hot: ScenarioResult;
  readonly imports: readonly ImportUnderLoad[];
}

export interface ScaleRunResults extends RunHeader {
  readonly scale: ScaleResult;
}

/** `npm run bench -- --imports`: one film asked while imports make the server read its catalogue again (imports.ts). */
export interface ImportsResult {
  readonly database: 'sqlite' | 'postgres';
  /** The server, wrk and the imports shared both cores (`--imports-unpinned`). */
  readonly unpinned: boolean;
  readonly films: number;
  readonly connections: number;
  readonly seconds: number;
  /** wrk's figures over the whole load. */
  readonly load: WrkFigures;
  /** How long each import command ran. */
  readonly importMs: readonly number[];
  /** The server's own time to read and publish each catalogue imported meanwhile. */
  readonly publishedMs: readonly number[];
  /** The longest the server's event loop was held up during the load. */
  readonly eventLoopDelayMaxMs: number;
}

export interface ImportsRunResults extends RunHeader {
  readonly imports: readonly ImportsResult[];
}

/** What one kind of one-record change cost a server (`--changes`). */
export interface ChangeCost {
  readonly kind: 'session' | 'film';
  readonly changes: number;
  /** The server's CPU per change, published alone. */
  readonly cpuAloneMs: number;
  /** The server's CPU per change: published, then its lists and the week's programme asked once. */
  readonly cpuPerChangeMs: number;
  /** The full garbage collections the server made over those changes with their requests. */
  readonly fullCollections: number;
  /** What the server spends anyway in the time a change took, at its idle CPU (`ChangesResult.idleCpuPercent`). */
  readonly idleCpuPerChangeMs: number;
  /** From the commit to the first answer with the change. */
  readonly servedP50Ms: number;
  readonly servedMaxMs: number;
  /** The round trips of one change's transaction on PostgreSQL, counted on the wire; absent on SQLite. */
  readonly roundTrips?: number | undefined;
}

export interface ChangesResult {
  readonly database: string;
  readonly films: number;
  readonly sessions: number;
  /** The customers of the database, the cinema among them (`--changes-customers`). */
  readonly customers: number;
  /** Changes of each kind made before the measures (`--changes-warm-up`); absent from results before it, which made `changes`. */
  readonly warmUp?: number;
  readonly answersPublished: number;
  /** The server's CPU with nothing asked of it and nothing changing, every answer published, in percent of a core. */
  readonly idleCpuPercent: number;
  readonly costs: readonly ChangeCost[];
}

/** One kind of change with its requests, this build against another, measured in alternating rounds (`--changes-against`). */
export interface AlternatedCost {
  readonly kind: 'session' | 'film';
  /** Changes in each round. */
  readonly changes: number;
  readonly rounds: number;
  /** The other build's directory. */
  readonly baseline: string;
  /** The medians of the rounds. */
  readonly cpuPerChangeMs: number;
  readonly baselineCpuPerChangeMs: number;
}

/** This build's server and another's left with nothing to do over the same seconds (`--changes-against`), in percent of a core. */
export interface AlternatedIdle {
  readonly baseline: string;
  readonly idleCpuPercent: number;
  readonly baselineIdleCpuPercent: number;
}

export interface ChangesRunResults extends RunHeader {
  readonly changes: readonly ChangesResult[];
  readonly against?: readonly AlternatedCost[] | undefined;
  readonly idleAgainst?: AlternatedIdle | undefined;
}
