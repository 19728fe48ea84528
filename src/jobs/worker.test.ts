import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import type { JobDef } from './catalog.js';
import type { JobQueue } from './queue.js';
import { Dispatcher } from './worker.js';

const job: JobDef = { name: 'probe', payload: Type.Object({}), retryLimit: 1, retryDelaySeconds: 1, expireInSeconds: 60 };

describe('Dispatcher', () => {
  it('keeps trying to record a failed job while the database is briefly away, so pg-boss retries it soon', async () => {
    let fetched = false;
    const fails: string[] = [];
    let unreachable = 2;
    const queue = {
      fetch: async () => (fetched ? [] : ((fetched = true), [{ id: 'j1', data: {} }])),
      complete: async () => {},
      fail: async (_job: JobDef, id: string) => {
        fails.push(id);
        if (unreachable-- > 0) throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
      },
    } as unknown as JobQueue;
    const errors: string[] = [];
    const d = new Dispatcher({
      queue, job, concurrency: 1, pollIntervalMs: 1000,
      handle: async () => { throw new Error('Connection terminated unexpectedly'); },
      onError: (_err, context) => errors.push(context),
    });
    d.start();
    const deadline = Date.now() + 5000;
    while (fails.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await d.stop();
    expect(fails).toEqual(['j1', 'j1', 'j1']);
    // the handler's error is reported; the retried writes that then succeeded are not
    expect(errors).toEqual(['job j1']);
  });
});

describe('Dispatcher pacing', () => {
  it('fetches only what the pace admits, refunds what was not there, and comes back when the next start is due', async () => {
    const asked: number[] = [];
    let waiting = 7;
    const queue = {
      fetch: async (_job: JobDef, max: number) => {
        asked.push(max);
        const n = Math.min(max, waiting);
        waiting -= n;
        return Array.from({ length: n }, (_, i) => ({ id: `j${waiting + i}`, data: {} }));
      },
      complete: async () => {},
      fail: async () => {},
    } as unknown as JobQueue;
    let budget = 3;
    const refunds: number[] = [];
    const pace = {
      admit: (n: number) => { const k = Math.min(n, budget); budget -= k; return k; },
      refund: (k: number) => { refunds.push(k); budget += k; },
      nextStartInMs: () => 10,
    };
    const held: Array<() => void> = [];
    const d = new Dispatcher({
      queue, job, concurrency: () => 100, pollIntervalMs: 60_000, pace,
      handle: () => new Promise<void>((resolve) => held.push(resolve)),
      onError: () => {},
    });
    d.start();
    await new Promise((r) => setTimeout(r, 30));
    expect(asked[0]).toBe(3);
    expect(d.activeCount).toBe(3);
    budget = 10; // the budget refills: the paced wake-up takes the other 4 and hands back 6
    await new Promise((r) => setTimeout(r, 40));
    expect(d.activeCount).toBe(7);
    expect(refunds).toContain(6);
    for (const r of held) r();
    await d.stop();
  });
});
