/**
 * When a customer's lists are next read. Each customer keeps its own moment within an interval,
 * told by its key, so that a thousand customers' syncs are spread evenly over the interval
 * rather than all made at its turn, and every sync process on a database places them alike.
 */
import { createHash } from 'node:crypto';

/** Where in an interval of `intervalMs` the customer's syncs fall, from 0 to just under the interval. */
export function phaseOf(customer: string, intervalMs: number): number {
  const hash = createHash('sha1').update(customer).digest().readUInt32BE(0);
  return Math.floor((hash / 2 ** 32) * intervalMs);
}

/**
 * The customer's first moment half an interval or more after a read made at `after`: one interval
 * after a read made at one of its moments, and never seconds after a read made just before one
 * (its first, at start), which would read it all again at once.
 */
export function nextSlot(customer: string, after: number, intervalMs: number): number {
  const from = after + intervalMs / 2;
  const sinceSlot = (((from - phaseOf(customer, intervalMs)) % intervalMs) + intervalMs) % intervalMs;
  return from - sinceSlot + intervalMs;
}

/**
 * How long to wait before trying again after the `failures`-th failure in a row: `firstMs`,
 * doubled with each failure, at a random point of its second half, so that customers that failed
 * together do not all try again at one moment.
 */
export function retryDelay(failures: number, firstMs: number, random: () => number = Math.random): number {
  const full = firstMs * 2 ** Math.max(0, failures - 1);
  return full / 2 + (random() * full) / 2;
}
