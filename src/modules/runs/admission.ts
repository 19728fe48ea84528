import { performance } from 'node:perf_hooks';

// Admission control: how many conversations this process starts, from how accurately it can still time them.
// Every timed reply reports its uncertainty (the lag of the thread that timed it); while those stay low, the
// limit climbs back one conversation per reply up to the configured maximum, and a reply timed with more than
// `targetMs` of uncertainty cuts it to 70 % (at most once per `cooldownMs`: the replies already in flight
// were started under the old limit and say nothing about the new one). Conversations in flight are never
// stopped: the limit only holds back the next ones, which wait in the queue.
//
// Starts are also paced: a burst of `burst` at once, then `ratePerSecond`. A thousand conversations opened in
// the same millisecond open a thousand connections and send a thousand first messages at once, and the agent
// (and our timing thread) read them one after another: the last first reply is late by the whole queue.
// Spread over a second or two they cost nothing in wall time (each conversation lasts seconds anyway).

export interface AdmissionOptions {
  /** The configured ceiling (REHEARSAL_WORKER_CONCURRENCY). */
  max: number;
  /** The floor: even a slow machine runs this many at once. */
  min?: number;
  /** Largest uncertainty (ms) a reply may be timed with before the limit comes down. */
  targetMs?: number;
  burst?: number;
  ratePerSecond?: number;
  cooldownMs?: number;
  now?: () => number;
}

export class Admission {
  private limitNow: number;
  private lastCut = -Infinity;
  private readonly min: number;
  private readonly targetMs: number;
  private readonly cooldownMs: number;
  private readonly now: () => number;
  private readonly burst: number;
  private readonly rate: number;
  private tokens: number;
  private refilledAt: number;
  /** Called when the limit rises, so a dispatcher holding back can fetch again. */
  onRaise: () => void = () => {};

  constructor(private readonly opts: AdmissionOptions) {
    this.min = Math.min(opts.max, opts.min ?? 10);
    this.targetMs = opts.targetMs ?? 40;
    this.cooldownMs = opts.cooldownMs ?? 1000;
    this.now = opts.now ?? (() => performance.now());
    this.limitNow = opts.max;
    this.burst = opts.burst ?? 100;
    this.rate = opts.ratePerSecond ?? 1000;
    this.tokens = this.burst;
    this.refilledAt = this.now();
  }

  /** Of `n` free slots, how many may start a conversation now (taken from the pacing budget). */
  admit(n: number): number {
    const t = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((t - this.refilledAt) * this.rate) / 1000);
    this.refilledAt = t;
    const k = Math.max(0, Math.min(n, Math.floor(this.tokens)));
    this.tokens -= k;
    return k;
  }

  /** Slots admitted but not used (fewer jobs were waiting) go back to the budget. */
  refund(k: number) {
    this.tokens = Math.min(this.burst, this.tokens + Math.max(0, k));
  }

  /** How long until one more start is admitted (ms). */
  nextStartInMs(): number {
    return this.tokens >= 1 ? 0 : Math.ceil(((1 - this.tokens) * 1000) / this.rate);
  }

  limit(): number {
    return this.limitNow;
  }

  /** One reply was timed with this uncertainty (ms). */
  observe(uncertaintyMs: number) {
    if (uncertaintyMs > this.targetMs) {
      const t = this.now();
      if (t - this.lastCut < this.cooldownMs) return;
      this.lastCut = t;
      this.limitNow = Math.max(this.min, Math.floor(this.limitNow * 0.7));
    } else if (this.limitNow < this.opts.max) {
      this.limitNow++;
      this.onRaise();
    }
  }
}
