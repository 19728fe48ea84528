import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { LoopLagMonitor } from './loop-lag.js';

const busy = (ms: number) => { const end = performance.now() + ms; while (performance.now() < end); };
const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('event-loop lag sampler', () => {
  let m: LoopLagMonitor | null = null;
  afterEach(() => m?.stop());

  it('measures a blocked loop as lag over the window that contains it, and not outside it', async () => {
    m = new LoopLagMonitor({ intervalMs: 5, bucketMs: 50 }).start();
    await tick(30);
    const before = performance.now();
    await tick(30);
    expect(m.maxBetween(before, performance.now())).toBeLessThan(40); // an idle loop: a few ms at most
    const t0 = performance.now();
    busy(150);
    // the block is still in progress as far as the sampler knows: it counts already
    expect(m.maxBetween(t0, performance.now())).toBeGreaterThanOrEqual(140);
    await tick(20);
    const t1 = performance.now();
    expect(m.maxBetween(t0, t1)).toBeGreaterThanOrEqual(140);
    expect(m.recent(1000)).toBeGreaterThanOrEqual(140);
    expect(m.max()).toBeGreaterThanOrEqual(140);
    // a window that ended well before the block does not see it
    expect(m.maxBetween(before - 200, before - 100)).toBeLessThan(40);
  });

  it('keeps the max per bucket, forgets buckets of an earlier lap, and answers the worst ever past its history', () => {
    m = new LoopLagMonitor({ bucketMs: 100, historyMs: 1000 }); // 10 buckets, not started: only recorded lags
    m.record(1050, 30);
    m.record(1090, 70);
    m.record(1500, 20);
    expect(m.maxBetween(1000, 1099)).toBe(70);
    expect(m.maxBetween(1400, 1450)).toBe(20); // bucket 1500 is the slack bucket after 1450
    expect(m.maxBetween(1200, 1300)).toBe(0);
    m.record(2050, 5); // same slot as 1050, next lap
    expect(m.maxBetween(2000, 2099)).toBe(5);
    expect(m.maxBetween(0, 5000)).toBe(70);
    m.record(3000, -4); // an early tick is not negative lag
    expect(m.maxBetween(2950, 3050)).toBe(0);
  });
});
