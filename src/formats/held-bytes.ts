/**
 * The memory one published catalogue holds, counted as it grows: the bytes its records were
 * written into, the lists joined from them, and the compressed bodies made later on request.
 * A server keeps as many catalogues as its memory budget allows by this count.
 */
export class HeldBytes {
  private count = 0;

  get bytes(): number {
    return this.count;
  }

  add(bytes: number): void {
    this.count += bytes;
  }
}
