import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, waitForRun, type TestContext } from '../harness.js';
import { startFakeOpenAi, type FakeOpenAiServer } from '../fakes/openai-agent.js';
import { LoopLagMonitor } from '../../src/lib/loop-lag.js';

describe('health, readiness and metrics', () => {
  let t: TestContext;
  let agent: FakeOpenAiServer;
  let draining = false;
  beforeAll(async () => {
    agent = await startFakeOpenAi({ reply: () => 'You are booked.' });
    t = await createTestContext({ engine: { pollIntervalMs: 50 }, lag, ops: { isDraining: () => draining } });
  });
  const lag = new LoopLagMonitor({ intervalMs: 5 }).start();
  afterAll(async () => { lag.stop(); await t.close(); await agent.close(); });

  it('answers /healthz and /readyz without a key', async () => {
    expect((await t.app.inject({ url: '/healthz' })).json()).toEqual({ status: 'ok' });
    expect((await t.app.inject({ url: '/readyz' })).json()).toEqual({ status: 'ready' });
    draining = true;
    expect((await t.app.inject({ url: '/readyz' })).statusCode).toBe(503);
    draining = false;
  });

  it('exposes runs by status, queue depth, in-flight conversations and provider latency', async () => {
    const a = await t.call('POST', '/api/v1/agents', { body: { provider: 'provider_4', name: 'm', config: { base_url: agent.baseUrl, model: 'x', api_key: 'sk-test' } } });
    const run = await t.call('POST', '/api/v1/runs', { body: { agent_id: a.body.id, max_scenarios: 2, max_turns: 1 } });
    await waitForRun(t, run.body.id);
    const res = await t.app.inject({ url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain');
    expect(res.body).toMatch(/rehearsal_runs\{status="completed"\} 1/);
    expect(res.body).toContain('rehearsal_queue_depth');
    expect(res.body).toContain('rehearsal_conversations_in_flight 0');
    expect(res.body).toMatch(/rehearsal_provider_reply_seconds_count\{provider="provider_4"\} [1-9]/);
    expect(res.body).toMatch(/rehearsal_scenario_runs_total\{status="(passed|failed|error)"\} /);
    // the lag of the main thread and of the thread agent replies are timed on
    expect(res.body).toMatch(/rehearsal_event_loop_lag_seconds\{thread="main"\} \d/);
    expect(res.body).toMatch(/rehearsal_event_loop_lag_seconds\{thread="timing"\} \d/);
    expect(res.body).toMatch(/rehearsal_event_loop_lag_max_seconds\{thread="timing"\} \d/);
  });

  it('a blocked main thread shows in the lag gauges', async () => {
    const end = performance.now() + 120;
    while (performance.now() < end);
    await new Promise((r) => setTimeout(r, 20));
    const body = (await t.app.inject({ url: '/metrics' })).body;
    const gauge = (name: string) => Number(new RegExp(`${name}\\{thread="main"\\} ([0-9.e-]+)`).exec(body)![1]);
    expect(gauge('rehearsal_event_loop_lag_seconds')).toBeGreaterThanOrEqual(0.1);
    expect(gauge('rehearsal_event_loop_lag_max_seconds')).toBeGreaterThanOrEqual(0.1);
  });
});
