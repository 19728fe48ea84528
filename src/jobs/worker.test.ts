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
