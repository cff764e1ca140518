/**
 * When each customer of a sync process is next due. A process of a thousand customers is woken as
 * each sync ends and as each customer falls due, dozens of times a second, and each time asks which
 * customers are due and when the next one falls due: looking at every customer for that was a
 * fourteenth of its CPU. The moments yet to come are kept in a binary heap, earliest first; those
 * passed are taken off it, in order, into a list of the customers that have fallen due. A burst of
 * changes leaves hundreds due at once, waiting for a slot: walking past them in the heap at every
 * waking, to find the next moment after them, took a third of a millisecond, a fifteenth of the
 * process's CPU again.
 *
 * A moment set again, or deleted, leaves its old entry where it was, told stale by the map, which
 * holds each customer's live entry; both are rebuilt once the stale entries outnumber the live ones.
 */
interface Entry {
  readonly customer: string;
  readonly at: number;
  /** Which set this was, first 0: customers due at the same moment are due in the order they were set. */
  readonly order: number;
}

/** Whether `a` falls due before `b`. */
function before(a: Entry, b: Entry): boolean {
  return a.at < b.at || (a.at === b.at && a.order < b.order);
}

export class DueMoments {
  /** Each customer's live entry. */
  private readonly moments = new Map<string, Entry>();
  /** Entries not yet passed when last looked at. */
  private heap: Entry[] = [];
  /** Entries passed when looked at, taken off the heap, in the order they fall due. */
  private fallen: Entry[] = [];
  private sets = 0;

  set(customer: string, at: number): void {
    if (this.moments.get(customer)?.at === at) return;
    const entry = { customer, at, order: this.sets++ };
    this.moments.set(customer, entry);
    this.push(entry);
    if (this.heap.length + this.fallen.length > 2 * this.moments.size + 64) this.rebuild();
  }

  delete(customer: string): void {
    this.moments.delete(customer);
  }

  keys(): IterableIterator<string> {
    return this.moments.keys();
  }

  /** The customers due by `now`, earliest first. */
  dueBy(now: number): string[] {
    this.fall(now);
    // The stale entries go as the list is read.
    this.fallen = this.fallen.filter((entry) => this.isLive(entry));
    const due: string[] = [];
    for (const entry of this.fallen) {
      // A clock set back leaves entries taken off the heap that are not due yet.
      if (entry.at > now) break;
      due.push(entry.customer);
    }
    return due;
  }

  /** The earliest moment after `now` of a customer that `counts`; undefined when there is none. */
  nextAfter(now: number, counts: (customer: string) => boolean): number | undefined {
    this.fall(now);
    let next: number | undefined;
    // Entries that fell due after `now` lie at the end of the list, as a clock set back leaves them.
    for (let index = this.fallen.length - 1; index >= 0 && (this.fallen[index] as Entry).at > now; index--) {
      const entry = this.fallen[index] as Entry;
      if (this.isLive(entry) && counts(entry.customer)) next = entry.at;
    }
    this.descend((entry) => {
      if (next !== undefined && entry.at >= next) return false;
      if (!this.isLive(entry) || !counts(entry.customer)) return true;
      next = entry.at;
      return false;
    });
    return next;
  }

  private isLive(entry: Entry): boolean {
    return this.moments.get(entry.customer) === entry;
  }

  /** Takes the entries passed by `now` off the heap, into the list of those fallen due. */
  private fall(now: number): void {
    const { heap, fallen } = this;
    const last = fallen.at(-1);
    let ordered = true;
    while (heap.length > 0 && (heap[0] as Entry).at <= now) {
      const entry = this.pop();
      // A moment set into the past, as a lease read back from the database can be, falls due among those fallen before.
      if (ordered && last !== undefined && before(entry, last)) ordered = false;
      fallen.push(entry);
    }
    if (!ordered) fallen.sort((a, b) => a.at - b.at || a.order - b.order);
  }

  /** Walks the heap from its top, stale entries there dropped first, going below each entry `further` says to. */
  private descend(further: (entry: Entry) => boolean): void {
    while (this.heap.length > 0 && !this.isLive(this.heap[0] as Entry)) this.pop();
    const pending = this.heap.length > 0 ? [0] : [];
    for (let index = pending.pop(); index !== undefined; index = pending.pop()) {
      if (!further(this.heap[index] as Entry)) continue;
      for (const child of [2 * index + 1, 2 * index + 2]) if (child < this.heap.length) pending.push(child);
    }
  }

  /** The live entries alone, all on the heap: a sorted array is one. */
  private rebuild(): void {
    this.heap = [...this.moments.values()].sort((a, b) => a.at - b.at || a.order - b.order);
    this.fallen = [];
  }

  private push(entry: Entry): void {
    const { heap } = this;
    let index = heap.push(entry) - 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (!before(entry, heap[parent] as Entry)) break;
      heap[index] = heap[parent] as Entry;
      index = parent;
    }
    heap[index] = entry;
  }

  /** Takes the top entry off the heap. */
  private pop(): Entry {
    const { heap } = this;
    const top = heap[0] as Entry;
    const last = heap.pop() as Entry;
    if (heap.length === 0) return top;
    let index = 0;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child = right < heap.length && before(heap[right] as Entry, heap[left] as Entry) ? right : left;
      if (!before(heap[child] as Entry, last)) break;
      heap[index] = heap[child] as Entry;
      index = child;
    }
    heap[index] = last;
    return top;
  }
}
