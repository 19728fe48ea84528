import type { JobDef } from './catalog.js';
import type { JobQueue } from './queue.js';
import type { Static, TSchema } from '@sinclair/typebox';

/** About 30 s of retries (0.5, 1, 2, 4, then every 5 s): longer than a PostgreSQL restart takes. */
const FAIL_RETRIES = 8;

export interface DispatcherOptions<S extends TSchema> {
  queue: JobQueue;
  job: JobDef<S>;
  /** Jobs held at once by this process: a number, or a limit read at each fetch (admission control). */
  concurrency: number | (() => number);
  pollIntervalMs: number;
  /** Pacing: of n free slots, how many may be used now; the rest are asked for again once `nextStartInMs()` has passed. */
  pace?: { admit(n: number): number; refund(k: number): void; nextStartInMs(): number };
  handle(data: Static<S>, jobId: string): Promise<void>;
  onError(err: unknown, context: string): void;
}

/**
 * Pulls jobs while it has free slots and runs them concurrently. It polls when idle and can be woken
 * at once (the embedded mode wakes it when a run is created), so a job waits milliseconds, not a poll.
 */
export class Dispatcher<S extends TSchema> {
  private active = 0;
  private running = false;
  private timer: NodeJS.Timeout | null = null;
  private pumping = false;
  private again = false;
  private inflight = new Set<Promise<void>>();
  private completed: string[] = [];
  private completing: Promise<void> = Promise.resolve();
  private flushTimer: NodeJS.Timeout | null = null;
  private refetch: NodeJS.Timeout | null = null;

  constructor(private opts: DispatcherOptions<S>) {}

  start() {
    this.running = true;
    this.wake();
  }

  wake() {
    if (!this.running) return;
    if (this.pumping) { this.again = true; return; }
    void this.pump();
  }

  private paced: NodeJS.Timeout | null = null;

  private wakeIn(ms: number) {
    if (!this.running || this.paced) return;
    this.paced = setTimeout(() => { this.paced = null; this.wake(); }, ms);
  }

  private schedule() {
    if (!this.running || this.timer) return;
    this.timer = setTimeout(() => { this.timer = null; this.wake(); }, this.opts.pollIntervalMs);
  }

  private async pump() {
    this.pumping = true;
    try {
      do {
        this.again = false;
        const c = this.opts.concurrency;
        let free = (typeof c === 'number' ? c : c()) - this.active;
        if (free <= 0 || !this.running) break;
        const pace = this.opts.pace;
        if (pace) {
          const wanted = free;
          free = pace.admit(wanted);
          if (free < wanted) this.wakeIn(Math.max(5, pace.nextStartInMs()));
          if (free <= 0) break;
        }
        let jobs: Awaited<ReturnType<JobQueue['fetch']>> = [];
        try {
          jobs = await this.opts.queue.fetch(this.opts.job, free);
        } catch (err) {
          this.opts.onError(err, 'fetch');
        }
        for (const j of jobs) this.run(j as any);
        this.opts.pace?.refund(free - jobs.length);
        if (jobs.length === free) this.again = true;
      } while (this.again && this.running);
    } finally {
      this.pumping = false;
      this.schedule();
    }
  }

  private run(j: { id: string; data?: Static<S>; invalid?: string }) {
    this.active++;
    const p = (async () => {
      try {
        if (j.invalid !== undefined) {
          // a malformed payload will never succeed: fail it without retrying forever
          await this.opts.queue.fail(this.opts.job, j.id, `invalid payload: ${j.invalid}`);
          return;
        }
        await this.opts.handle(j.data as Static<S>, j.id);
        this.complete(j.id);
      } catch (err) {
        this.opts.onError(err, `job ${j.id}`);
        await this.recordFailure(j.id, (err as Error)?.message ?? String(err));
      }
    })().finally(() => {
      this.active--;
      this.inflight.delete(p);
      // one fetch for a burst of finished jobs, not one per job
      this.refetch ??= setTimeout(() => { this.refetch = null; this.wake(); }, 25);
    });
    this.inflight.add(p);
  }

  /**
   * Hands a failed job back to pg-boss for its retry. The failure may be the database itself being away
   * for a moment (a restart): a failure that is not recorded leaves the job held until pg-boss expires
   * it (30 s for a delivery, 60 s for a conversation), so the write is retried for a while.
   */
  private async recordFailure(id: string, reason: string) {
    for (let attempt = 0; ; attempt++) {
      try {
        await this.opts.queue.fail(this.opts.job, id, reason);
        return;
      } catch (err) {
        if (attempt >= FAIL_RETRIES || !this.running) return this.opts.onError(err, `recording the failure of job ${id}`);
        await new Promise((r) => setTimeout(r, Math.min(500 * 2 ** attempt, 5000)));
      }
    }
  }

  /** Completions are written in batches: one statement for every job that finished in the last 100 ms. */
  private complete(id: string) {
    this.completed.push(id);
    this.flushTimer ??= setTimeout(() => { this.flushTimer = null; void this.flushCompleted(); }, 100);
  }

  private flushCompleted(): Promise<void> {
    if (this.completed.length === 0) return this.completing;
    const ids = this.completed;
    this.completed = [];
    this.completing = this.completing
      .then(() => this.opts.queue.complete(this.opts.job, ids))
      .catch((err) => this.opts.onError(err, 'complete'));
    return this.completing;
  }

  get activeCount() { return this.active; }

  /** Stops taking jobs; waits for those in hand (the caller aborts them first if it wants them short). */
  async stop() {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    if (this.refetch) clearTimeout(this.refetch);
    if (this.paced) clearTimeout(this.paced);
    this.timer = this.refetch = this.paced = null;
    await Promise.allSettled([...this.inflight]);
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    await this.flushCompleted();
  }
}
