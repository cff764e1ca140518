/**
 * When each customer of a sync process is next due. A process of a thousand customers is woken as
 * each sync ends and as each customer falls due, dozens of times a second, and each time asks which
 * customers are due and when the next one falls due: looking at every customer for that was a
 * fourteenth of its CPU. The moments are kept in a binary heap as well, earliest first, so that both
 * answers look only at the customers due by now. A moment set again, or deleted, leaves its old
 * entry in the heap, told stale by the map, which holds each customer's live entry; the heap is
 * rebuilt once the stale entries outnumber the live ones.
 */
interface Entry {
  readonly customer: string;
  readonly at: number;
  /** Which set this was, first 0: customers due at the same moment are due in the order they were set. */
  readonly order: number;
}

export class DueMoments {
  /** Each customer's live entry. */
  private readonly moments = new Map<string, Entry>();
  private heap: Entry[] = [];
  private sets = 0;

  set(customer: string, at: number): void {
    if (this.moments.get(customer)?.at === at) return;
    const entry = { customer, at, order: this.sets++ };
    this.moments.set(customer, entry);
    this.push(entry);
    if (this.heap.length > 2 * this.moments.size + 64) this.rebuild();
  }

  delete(customer: string): void {
    this.moments.delete(customer);
  }

  keys(): IterableIterator<string> {
    return this.moments.keys();
  }

  /** The customers due by `now`, earliest first. */
  dueBy(now: number): string[] {
    const due: Entry[] = [];
    this.descend((entry) => {
      // Every entry below one after `now` is after it too.
      if (entry.at > now) return false;
      if (this.isLive(entry)) due.push(entry);
      return true;
    });
    return due.sort((a, b) => a.at - b.at || a.order - b.order).map((entry) => entry.customer);
  }

  /** The earliest moment after `now` of a customer that `counts`; undefined when there is none. */
  nextAfter(now: number, counts: (customer: string) => boolean): number | undefined {
    let next: number | undefined;
    this.descend((entry) => {
      if (next !== undefined && entry.at >= next) return false;
      if (entry.at <= now || !this.isLive(entry) || !counts(entry.customer)) return true;
      next = entry.at;
      return false;
    });
    return next;
  }

  private isLive(entry: Entry): boolean {
    return this.moments.get(entry.customer) === entry;
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

  private rebuild(): void {
    this.heap = [];
    for (const entry of this.moments.values()) this.push(entry);
  }

  private push(entry: Entry): void {
    const { heap } = this;
    let index = heap.push(entry) - 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if ((heap[parent] as Entry).at <= entry.at) break;
      heap[index] = heap[parent] as Entry;
      index = parent;
    }
    heap[index] = entry;
  }

  private pop(): void {
    const { heap } = this;
    const last = heap.pop() as Entry;
    if (heap.length === 0) return;
    let index = 0;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child = right < heap.length && (heap[right] as Entry).at < (heap[left] as Entry).at ? right : left;
      if ((heap[child] as Entry).at >= last.at) break;
      heap[index] = heap[child] as Entry;
      index = child;
    }
    heap[index] = last;
  }
}
