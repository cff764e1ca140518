/**
 * Token buckets, one per caller: a caller may make `burst` requests at once, then
 * `perSecond` requests a second on average. Idle buckets are dropped once they are full again,
 * so memory follows the callers of the last minute.
 */

export interface RatePolicy {
  readonly perSecond: number;
  readonly burst: number;
}

export interface RateDecision {
  readonly allowed: boolean;
  /** The bucket's size. */
  readonly limit: number;
  /** Requests left in the bucket after this one. */
  readonly remaining: number;
  /** Seconds until the bucket is full again. */
  readonly resetSeconds: number;
  /** Seconds until the next request would be allowed; 0 when this one was. */
  readonly retryAfterSeconds: number;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

const SWEEP_INTERVAL_MS = 60_000;

export class RateLimiter {
  private readonly buckets = new Map<string | number, Bucket>();
  private lastSweep: number;

  constructor(
    readonly policy: RatePolicy,
    /** Milliseconds; injectable so the arithmetic can be tested without waiting. */
    private readonly now: () => number = Date.now,
  ) {
    this.lastSweep = now();
  }

  /** Takes one request from the caller's bucket, if it holds one. */
  take(caller: string | number): RateDecision {
    const now = this.now();
    if (now - this.lastSweep >= SWEEP_INTERVAL_MS) this.sweep(now);
    const { perSecond, burst } = this.policy;
    let bucket = this.buckets.get(caller);
    if (bucket === undefined) {
      bucket = { tokens: burst, updatedAt: now };
      this.buckets.set(caller, bucket);
    } else {
      bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.updatedAt) / 1000) * perSecond);
      bucket.updatedAt = now;
    }
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    return {
      allowed,
      limit: burst,
      remaining: Math.floor(bucket.tokens),
      resetSeconds: Math.ceil((burst - bucket.tokens) / perSecond),
      retryAfterSeconds: allowed ? 0 : Math.ceil((1 - bucket.tokens) / perSecond),
    };
  }

  /** Callers being tracked; a full bucket is the same as none. */
  get tracked(): number {
    return this.buckets.size;
  }

  private sweep(now: number): void {
    this.lastSweep = now;
    const { perSecond, burst } = this.policy;
    for (const [caller, bucket] of this.buckets) {
      if (bucket.tokens + ((now - bucket.updatedAt) / 1000) * perSecond >= burst) this.buckets.delete(caller);
    }
  }
}
