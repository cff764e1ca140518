/**
 * Writes the text of many records into shared buffers, each record's bytes a view of one of
 * them. A buffer of its own for each of a catalogue's thousands of records cost, for each, an
 * allocation and a pass measuring its text, about as much as writing the bytes, and left the
 * garbage collector thousands more buffers to track.
 */
import type { HeldBytes } from './held-bytes.js';

/**
 * Slabs grow from the first to the largest size, each twice the last: a small catalogue does
 * not hold a megabyte per collection, and a large one is written in slabs of hundreds of records.
 */
const FIRST_SLAB_BYTES = 16 * 1024;
const LARGEST_SLAB_BYTES = 1024 * 1024;

export class ByteSlabs {
  private slab = Buffer.alloc(0);
  private used = 0;

  /** Counts every slab taken into `held`, the unused end of each included: it is held all the same. */
  constructor(private readonly held?: HeldBytes) {}

  /** The UTF-8 bytes of `text`, in the current slab or, where they may not fit, in a new one. */
  write(text: string): Buffer {
    // A UTF-16 code unit takes at most three bytes in UTF-8: enough room without measuring.
    const most = text.length * 3;
    if (this.used + most > this.slab.length) {
      const size = Math.min(this.slab.length * 2 || FIRST_SLAB_BYTES, LARGEST_SLAB_BYTES);
      this.slab = Buffer.allocUnsafe(Math.max(size, most));
      this.used = 0;
      this.held?.add(this.slab.length);
    }
    const length = this.slab.write(text, this.used);
    const bytes = this.slab.subarray(this.used, this.used + length);
    this.used += length;
    return bytes;
  }
}
