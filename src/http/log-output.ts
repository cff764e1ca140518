/**
 * Where the server's log lines go, in batches: every line of the process goes through one buffer,
 * so lines keep their order, and they leave together at most `FLUSH_INTERVAL_MS` after the first
 * of them was logged, or at once when the buffer is full. Under load a turn of the event loop
 * answers only a few requests, and a write per turn cost a sixth of the throughput of small
 * answers; a write every few milliseconds costs next to nothing.
 *
 * pino's lines arrive as strings. The request log, one line per answer, writes its lines here
 * byte by byte instead: joined as strings, each line was a dozen string pieces that had to be
 * joined again and encoded when written, which cost about as much as routing, negotiating and
 * counting the request together.
 */
import { writeSync } from 'node:fs';

/** Bytes gathered before they are written at once. */
const CAPACITY = 64 * 1024;
/** The longest a logged line waits before it is written. */
const FLUSH_INTERVAL_MS = 20;

const DOT = 0x2e;
const DIGIT_ZERO = 0x30;
const QUESTION_MARK = 0x3f;
const BILLION = 1_000_000_000;

/** Something to wait on for a millisecond, synchronously. */
const PAUSE = new Int32Array(new SharedArrayBuffer(4));

/** Writes all of `bytes` before returning, so that nothing is lost if the process exits next. */
function writeAllSync(fd: number, bytes: Uint8Array): void {
  let offset = 0;
  while (offset < bytes.length) {
    try {
      offset += writeSync(fd, bytes, offset);
    } catch (error) {
      // Standard output may be a non-blocking pipe whose reader is behind: wait for it.
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      Atomics.wait(PAUSE, 0, 0, 1);
    }
  }
}

export class LogOutput {
  private readonly buffer = Buffer.allocUnsafe(CAPACITY);
  private used = 0;
  private timer: NodeJS.Timeout | undefined;

  /** `sink` gets the gathered lines; it may keep the bytes only until it returns. */
  constructor(private readonly sink: (bytes: Buffer) => void) {}

  /**
   * Standard output, written synchronously, so that nothing pending is lost when the process
   * exits: whatever is pending then, also on an uncaught exception, is written.
   */
  static standardOutput(): LogOutput {
    const output = new LogOutput((bytes) => writeAllSync(1, bytes));
    process.once('exit', () => output.flush());
    return output;
  }

  /** A whole line (pino's), newline included. */
  write(line: string): void {
    // A UTF-16 code unit takes at most three bytes of UTF-8.
    const maxBytes = line.length * 3;
    this.reserve(maxBytes);
    if (maxBytes > CAPACITY) this.sink(Buffer.from(line));
    else this.used += this.buffer.write(line, this.used);
    this.scheduleFlush();
  }

  /** Makes room for a line of at most `bytes` bytes, written next with the methods below. */
  reserve(bytes: number): void {
    if (bytes > CAPACITY - this.used) this.flush();
  }

  bytes(fragment: Uint8Array): void {
    this.buffer.set(fragment, this.used);
    this.used += fragment.length;
  }

  /** Text known to be ASCII, such as a method name; any other character is written as `?`. */
  ascii(text: string): void {
    for (let index = 0; index < text.length; index++) {
      const code = text.charCodeAt(index);
      this.buffer[this.used++] = code < 0x80 ? code : QUESTION_MARK;
    }
  }

  /** A non-negative integer, in decimal; anything else is written as 0. */
  integer(value: number): void {
    if (!(value >= 0 && value <= Number.MAX_SAFE_INTEGER)) value = 0;
    // Integer arithmetic is much faster than floating point, and a time in milliseconds is
    // beyond 32 bits: such a number is written as its leading digits, then nine more.
    if (value < BILLION) {
      this.smallInteger(value);
    } else {
      this.smallInteger(Math.floor(value / BILLION));
      this.fixedDigits(value % BILLION, 9);
    }
  }

  /** `thousandths` / 1000 with its three decimals, such as 0.042 for 42. */
  thousandths(thousandths: number): void {
    this.integer(Math.floor(thousandths / 1000));
    this.buffer[this.used++] = DOT;
    this.fixedDigits(thousandths % 1000, 3);
  }

  /** Ends a line written with `reserve` and the methods after it. */
  lineWritten(): void {
    this.scheduleFlush();
  }

  /** Hands every pending line to the sink now. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.used === 0) return;
    const pending = this.buffer.subarray(0, this.used);
    this.used = 0;
    this.sink(pending);
  }

  /** An integer below a billion, which fits the 32 bits of fast integer arithmetic. */
  private smallInteger(value: number): void {
    let digits = 1;
    for (let rest = value; rest >= 10; rest = (rest / 10) | 0) digits++;
    this.fixedDigits(value, digits);
  }

  /** The last `count` digits of an integer below a billion, with leading zeros. */
  private fixedDigits(value: number, count: number): void {
    let rest = value | 0;
    for (let index = this.used + count - 1; index >= this.used; index--) {
      this.buffer[index] = DIGIT_ZERO + (rest % 10);
      rest = (rest / 10) | 0;
    }
    this.used += count;
  }

  private scheduleFlush(): void {
    // Unreferenced: pending lines never keep the process alive.
    this.timer ??= setTimeout(() => this.flush(), FLUSH_INTERVAL_MS).unref();
  }
}
