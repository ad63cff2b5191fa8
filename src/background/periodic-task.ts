/**
 * A job run in the background on a timer, one run at a time: the shape the
 * knowledge sync, the retention sweep and the Langfuse trace-deletion retries share. Once shortly after `start()`, then
 * every `intervalMs`; `runNow()` joins the run in progress instead of starting a
 * second; `stop()` ends the timer, aborts the run in progress and waits for it.
 */
export class PeriodicTask<T> {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<T | null> | null = null;
  private readonly abort = new AbortController();

  /**
   * @param run one run; it hears of `stop()` through the signal. What it throws goes to `onError`, and the run resolves null.
   * @param intervalMs the time from one run's start to the next's.
   */
  constructor(
    private readonly run: (signal: AbortSignal) => Promise<T>,
    private readonly intervalMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Starts the timer (once; never again after `stop()`): the first run after `firstDelayMs` (at most the interval). */
  start(firstDelayMs = 1000): void {
    if (this.timer || this.abort.signal.aborted) return;
    const tick = () => {
      void this.runNow();
      this.timer = setTimeout(tick, this.intervalMs);
      this.timer.unref();
    };
    this.timer = setTimeout(tick, Math.min(firstDelayMs, this.intervalMs));
    this.timer.unref();
  }

  /** Runs now unless a run is going on (then resolves with that one); never throws. After `stop()`, resolves null. */
  runNow(): Promise<T | null> {
    if (this.abort.signal.aborted) return Promise.resolve(null);
    this.running ??= (async () => {
      try {
        return await this.run(this.abort.signal);
      } catch (error) {
        this.onError(error);
        return null;
      } finally {
        this.running = null;
      }
    })();
    return this.running;
  }

  /** Stops for good: no new run, the running one aborted and awaited. */
  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.abort.abort();
    await this.running;
  }
}
