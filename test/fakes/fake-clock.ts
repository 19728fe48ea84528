import type { Clock } from '../../src/lib/clock.js';

/**
 * A clock whose sleeps return at once and advance its time, so retry schedules are provable without
 * waiting. `now()` follows real time plus everything slept, so latencies measured against real fake
 * servers stay meaningful.
 */
export class FakeClock implements Clock {
  readonly sleeps: number[] = [];
  private offset = 0;

  now(): number {
    return Date.now() + this.offset;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason ?? new Error('aborted'));
    this.sleeps.push(ms);
    this.offset += ms;
    return Promise.resolve();
  }
}

/** A clock whose sleeps never end on their own: only the abort signal ends them. */
export class StuckClock implements Clock {
  readonly sleeps: number[] = [];
  now(): number {
    return Date.now();
  }
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps.push(ms);
    return new Promise((_, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
  }
}
