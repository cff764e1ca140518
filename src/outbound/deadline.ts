/**
 * What stops one outbound request and the reading of its answer: its deadline passing, or the
 * process stopping. Ended once the answer is read, so that nothing is left behind:
 * AbortSignal.timeout's timer fires at every deadline, long after the request, each time making
 * an error that nobody reads: a sync of a thousand cinemas reads two lists a minute of each.
 */
export class Deadline {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private readonly stop = (): void => this.controller.abort();
  private timedOut = false;

  constructor(
    timeoutMs: number,
    private readonly stopping?: AbortSignal,
  ) {
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.stop();
    }, timeoutMs);
    if (stopping?.aborted === true) this.stop();
    else stopping?.addEventListener('abort', this.stop, { once: true });
  }

  /** Aborts as the deadline passes or the process stops. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Whether the request was stopped by its deadline, rather than by the process stopping. */
  get passed(): boolean {
    return this.timedOut;
  }

  end(): void {
    clearTimeout(this.timer);
    this.stopping?.removeEventListener('abort', this.stop);
  }
}
