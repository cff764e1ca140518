/**
 * The memory one published catalogue holds, counted as it grows: the bytes its records were
 * written into, the lists joined from them, and the compressed bodies made later on request.
 * A server keeps as many catalogues as its memory budget allows by this count.
 */
export class HeldBytes {
  private count = 0;
  private released = false;

  /**
   * `onGrowth` is told each time the count grows, and by how much: a collection published, a
   * body compressed. A part of another count (`part()`) adds to it too.
   */
  constructor(
    private readonly onGrowth?: (bytes: number) => void,
    private whole?: HeldBytes,
  ) {}

  get bytes(): number {
    return this.count;
  }

  /** Counts `bytes` more held, or fewer when negative: what is let go. */
  add(bytes: number): void {
    if (this.released) return;
    this.count += bytes;
    this.whole?.add(bytes);
    if (bytes > 0) this.onGrowth?.(bytes);
  }

  /** A count within this one for what may be let go before the rest, such as an answer kept for a while. */
  part(): HeldBytes {
    return new HeldBytes(undefined, this);
  }

  /**
   * Counts this part in `whole` from now on, rather than in the one it was a part of: an answer
   * a change left as it was goes on to the catalogue that replaces its own.
   */
  moveInto(whole: HeldBytes): void {
    whole.add(this.count);
    this.whole = whole;
  }

  /** Lets go of what a part counts: it no longer counts in the whole, and what it is told later is not counted. */
  release(): void {
    this.whole?.add(-this.count);
    this.count = 0;
    this.released = true;
  }
}
