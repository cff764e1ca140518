/**
 * Writes the text of many records into shared buffers, each record's bytes a view of one of
 * them. A buffer of its own for each of a catalogue's thousands of records cost, for each, an
 * allocation and a pass measuring its text, about as much as writing the bytes, and left the
 * garbage collector thousands more buffers to track.
 */

/** Big enough for hundreds of records: the few kilobytes left unused at the end of each are noise. */
const SLAB_BYTES = 1024 * 1024;

export class ByteSlabs {
  private slab = Buffer.alloc(0);
  private used = 0;

  /** The UTF-8 bytes of `text`, in the current slab or, where they may not fit, in a new one. */
  write(text: string): Buffer {
    // A UTF-16 code unit takes at most three bytes in UTF-8: enough room without measuring.
    const most = text.length * 3;
    if (this.used + most > this.slab.length) {
      this.slab = Buffer.allocUnsafe(Math.max(SLAB_BYTES, most));
      this.used = 0;
    }
    const length = this.slab.write(text, this.used);
    const bytes = this.slab.subarray(this.used, this.used + length);
    this.used += length;
    return bytes;
  }
}
