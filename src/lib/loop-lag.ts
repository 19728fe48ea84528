import { performance } from 'node:perf_hooks';

// How late this thread's event loop runs, measured continuously. Every latency we time on a thread is
// inflated by at most that thread's lag while the timed request was in flight, so the largest lag over a
// window is the honest uncertainty of any duration measured on the thread in that window.
//
// A short interval timer measures its own drift (a tick due every `intervalMs` that runs late by d ms means
// the loop was blocked for d ms). Lags are kept as the maximum per `bucketMs` bucket in a ring covering
// `historyMs`, so the max over any window is a scan of (window / bucketMs) buckets: no per-conversation
// registration, nothing that grows with the number of conversations.

/** What a timer of conversations needs to know of a thread's lag. */
export interface LagProbe {
  /** Largest lag (ms) seen between two performance.now() instants, including a block still in progress. */
  maxBetween(from: number, to: number): number;
}

export interface LoopLagOptions {
  intervalMs?: number;
  bucketMs?: number;
  historyMs?: number;
}

export class LoopLagMonitor implements LagProbe {
  private readonly intervalMs: number;
  private readonly bucketMs: number;
  private readonly lags: Float64Array;
  /** The bucket number (time / bucketMs) each slot holds, so a stale slot from a previous lap reads as 0. */
  private readonly epochs: Float64Array;
  private timer: NodeJS.Timeout | null = null;
  private lastTick = 0;
  private maxEver = 0;

  constructor(opts: LoopLagOptions = {}) {
    this.intervalMs = opts.intervalMs ?? 10;
    this.bucketMs = opts.bucketMs ?? 100;
    const slots = Math.ceil((opts.historyMs ?? 15 * 60_000) / this.bucketMs);
    this.lags = new Float64Array(slots);
    this.epochs = new Float64Array(slots).fill(-1);
  }

  start(): this {
    if (this.timer) return this;
    this.lastTick = performance.now();
    this.timer = setInterval(() => this.tick(), this.intervalMs);
    this.timer.unref(); // measuring must never keep a process alive
    return this;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private tick() {
    const now = performance.now();
    this.record(now, now - this.lastTick - this.intervalMs);
    this.lastTick = now;
  }

  /** Records a lag observed at `at` (exposed so tests can feed known lags without blocking). */
  record(at: number, lagMs: number) {
    const lag = Math.max(0, lagMs);
    if (lag > this.maxEver) this.maxEver = lag;
    const b = Math.floor(at / this.bucketMs);
    const i = b % this.lags.length;
    if (this.epochs[i] !== b) {
      this.epochs[i] = b;
      this.lags[i] = lag;
    } else if (lag > this.lags[i]) this.lags[i] = lag;
  }

  /** The lag of a block still running (the tick that will report it has not run yet). */
  private pending(): number {
    return this.timer ? Math.max(0, performance.now() - this.lastTick - this.intervalMs) : 0;
  }

  maxBetween(from: number, to: number): number {
    // A block is recorded by the tick after it, which may run just after the window's end: one bucket of slack.
    const first = Math.floor(from / this.bucketMs);
    const last = Math.floor(to / this.bucketMs) + 1;
    let max = this.pending();
    if (last - first >= this.lags.length) return Math.max(max, this.maxEver); // longer than the history: the worst ever
    for (let b = first; b <= last; b++) {
      const i = b % this.lags.length;
      if (this.epochs[i] === b && this.lags[i] > max) max = this.lags[i];
    }
    return max;
  }

  /** Largest lag in the last `windowMs` (the /metrics gauge). */
  recent(windowMs = 1000): number {
    const now = performance.now();
    return this.maxBetween(now - windowMs, now);
  }

  /** Largest lag since start. */
  max(): number {
    return Math.max(this.maxEver, this.pending());
  }
}
