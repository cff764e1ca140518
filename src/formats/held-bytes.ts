/**
 * The memory one published catalogue holds, counted as it grows: the bytes its records were
 * written into, the lists joined from them, and the compressed bodies made later on request.
 * A server keeps as many catalogues as its memory budget allows by this count.
 */
export class HeldBytes {
  private count = 0;

  /** `onGrowth` is told each time the count grows: a collection published, a body compressed. */
  constructor(private readonly onGrowth?: () => void) {}

  get bytes(): number {
    return this.count;
  }

  /** Counts `bytes` more held, or fewer when negative: what is let go. */
  add(bytes: number): void {
    this.count += bytes;
    if (bytes > 0) this.onGrowth?.();
  }
}
