/** Values kept by key within a number of bytes, the least recently used let go first. */
export class ByteLru<Value> {
  private readonly entries = new Map<string, { readonly value: Value; readonly bytes: number }>();
  private total = 0;

  constructor(private readonly budgetBytes: number) {}

  get(key: string): Value | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    // The most recently used goes last: out and in again.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: Value, bytes: number): void {
    this.delete(key);
    if (bytes > this.budgetBytes) return;
    this.entries.set(key, { value, bytes });
    this.total += bytes;
    for (const [oldest] of this.entries) {
      if (this.total <= this.budgetBytes) break;
      this.delete(oldest);
    }
  }

  private delete(key: string): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    this.total -= entry.bytes;
  }
}
