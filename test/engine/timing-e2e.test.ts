import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, waitForRun, type TestContext } from '../harness.js';
import { startFakeOpenAi, type FakeOpenAiServer } from '../fakes/openai-agent.js';
import { createAdapters } from '../../src/providers/registry.js';
import { createOpenAiCompatibleAdapter } from '../../src/providers/openai-compatible.js';
import { nodeHttpFetch } from '../../src/lib/http.js';
import { LoopLagMonitor } from '../../src/lib/loop-lag.js';
import { TIMING_WARNING_MS } from '../../src/modules/runs/runs.view.js';

// A run says how far its own process's lag could have inflated its reply latencies (timing_uncertainty_ms), and
// warns above 50 ms. The agent here lives in the test's own thread, so blocking it in the reply handler is
// exactly "our event loop was busy while a conversation was in flight".

const busy = (ms: number) => { const end = performance.now() + ms; while (performance.now() < end); };
const scenario = {
  script: ['Hi, I would like to book a cleaning.', 'Tuesday works.'],
  criteria: [{ criterion: 'Confirms the booking', check: { type: 'contains', value: 'booked' } }],
};

async function runOnce(t: TestContext, agentUrl: string) {
  const agent = await t.call('POST', '/api/v1/agents', { body: { provider: 'provider_4', name: `a-${Math.random()}`, config: { base_url: agentUrl, model: 'desk' } } });
  const s = await t.call('POST', '/api/v1/scenarios', { body: { ...scenario, name: `s-${Math.random()}` } });
  const suite = await t.call('POST', '/api/v1/test-suites', { body: { name: `suite-${Math.random()}`, scenario_ids: [s.body.id] } });
  const created = await t.call('POST', '/api/v1/runs', { body: { agent_id: agent.body.id, test_suite_id: suite.body.id, max_turns: 2 } });
  expect(created.status).toBe(201);
  return waitForRun(t, created.body.id);
}

describe('timing uncertainty of a run', () => {
  let agent: FakeOpenAiServer;
  let blockMs = 0;
  const lag = new LoopLagMonitor({ intervalMs: 5 }).start();
  beforeAll(async () => {
    agent = await startFakeOpenAi({ apiKey: null, latencyMs: 50, reply: () => { busy(blockMs); return 'You are booked.'; } });
  });
  afterAll(async () => { lag.stop(); await agent.close(); });

  describe('replies timed on the main thread', () => {
    let t: TestContext;
    beforeAll(async () => {
      // a transport on the main thread: the run's uncertainty is this loop's lag
      t = await createTestContext({ engine: { pollIntervalMs: 50 }, lag, adapters: { ...createAdapters(), provider_4: createOpenAiCompatibleAdapter({ fetch: nodeHttpFetch }) } });
    });
    afterAll(() => t.close());

    it('a busy loop while conversations are in flight is measured, stored on the run and said in its warnings', async () => {
      blockMs = 150;
      const run = await runOnce(t, agent.baseUrl);
      expect(run.status).toBe('completed');
      expect(run.timing_uncertainty_ms).toBeGreaterThanOrEqual(140);
      expect(run.warnings).toEqual([expect.stringMatching(new RegExp(`^reply latencies may be overstated by up to ${run.timing_uncertainty_ms} ms`))]);
      // the reply latencies themselves carry the block: that is what the warning is for
      expect(run.metrics.p50_turn_duration_ms).toBeGreaterThanOrEqual(190);
    });

    it('an idle loop gives a small uncertainty and no warning', async () => {
      blockMs = 0;
      // the lag is kept per 100 ms bucket and a window reads its edge buckets whole (conservatively), so the
      // previous test's 150 ms block must be more than a bucket behind this run's conversations
      await new Promise((r) => setTimeout(r, 350));
      const run = await runOnce(t, agent.baseUrl);
      expect(run.timing_uncertainty_ms).toBeLessThanOrEqual(TIMING_WARNING_MS);
      expect(run.warnings).toEqual([]);
    });
  });

  describe('replies timed on the timing thread (the default for OpenAI-compatible agents)', () => {
    let t: TestContext;
    beforeAll(async () => { t = await createTestContext({ engine: { pollIntervalMs: 50 }, lag }); });
    afterAll(() => t.close());

    // (the agent shares this thread, so a block here would be the agent's own time: src/lib/http-thread.test.ts
    // blocks the main thread with the agent elsewhere)
    it('reports the agent\'s delay and the timing thread\'s small uncertainty', async () => {
      blockMs = 0;
      const run = await runOnce(t, agent.baseUrl);
      expect(run.status).toBe('completed');
      expect(run.timing_uncertainty_ms).toBeLessThanOrEqual(TIMING_WARNING_MS);
      expect(run.warnings).toEqual([]);
      expect(run.metrics.p95_turn_duration_ms).toBeGreaterThanOrEqual(50);
      expect(run.metrics.p95_turn_duration_ms).toBeLessThan(120);
    });
  });
});
