import type { Clock } from '../lib/clock.js';

/**
 * Events pushed by a connection (websocket, room) and drained by the reply logic, which must wait for "the next
 * event or a quiet period, whichever comes first" on the injected clock while honouring the abort signal.
 */
export class Inbox<T> {
  private items: T[] = [];
  private wake: (() => void) | null = null;

  constructor(private readonly clock: Clock) {}

  push(item: T): void {
    this.items.push(item);
    this.wake?.();
  }

  drain(): T[] {
    const out = this.items;
    this.items = [];
    return out;
  }

  /** Resolves on the next push (at once if one is pending) or after `ms` (never, when null); rejects on abort. */
  wait(signal: AbortSignal, ms: number | null): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      if (this.items.length > 0) return resolve();
      const timer = new AbortController();
      let done = false;
      const settle = (fn: () => void) => {
        if (done) return;
        done = true;
        timer.abort();
        signal.removeEventListener('abort', onAbort);
        this.wake = null;
        fn();
      };
      const onAbort = () => settle(() => reject(signal.reason));
      signal.addEventListener('abort', onAbort, { once: true });
      this.wake = () => settle(resolve);
      if (ms !== null) this.clock.sleep(Math.max(0, ms), timer.signal).then(() => settle(resolve), () => undefined);
    });
  }
}
