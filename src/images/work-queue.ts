/**
 * Work that runs a few at a time, the rest waiting their turn in order: resizing pictures takes
 * a core each, and a server's other answers need one too. Beyond `maxWaiting` waiting, more work
 * is refused at once rather than held for longer than any client would wait.
 */

/** The queue is full: the caller answers 503 and the client tries again. */
export class QueueFullError extends Error {
  constructor() {
    super('too much work is waiting');
    this.name = 'QueueFullError';
  }
}

export class WorkQueue {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly parallel: number,
    private readonly maxWaiting: number,
  ) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running < this.parallel) this.running++;
    else if (this.waiting.length >= this.maxWaiting) throw new QueueFullError();
    // A turn handed on by work that ended keeps the count as it is.
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next === undefined) this.running--;
      else next();
    }
  }
}
