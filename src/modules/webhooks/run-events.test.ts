import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, waitForRun, type TestContext } from '../../../test/harness.js';
import { startFakeOpenAi, type FakeOpenAiServer } from '../../../test/fakes/openai-agent.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../../test/fakes/webhook-receiver.js';
import { DELIVERY_ENV, deliveriesOfEvent, eventsOfRun, newWebhook, sleep, verified, waitForDelivery } from '../../../test/webhook-helpers.js';
import { webhookEvents } from '../../db/schema.js';

// Runs driven by the real engine against a fake agent; the webhook worker starts only in the first
// test, which is the "killed before delivering" case.
let t: TestContext;
let agent: FakeOpenAiServer;
let rx: WebhookReceiver;
let hook: { id: string; secret: string };
beforeAll(async () => {
  agent = await startFakeOpenAi({ reply: () => 'Done, you are booked for Tuesday.' });
  rx = await startWebhookReceiver();
  t = await createTestContext({ env: DELIVERY_ENV, engine: { pollIntervalMs: 50 }, webhooks: { pollIntervalMs: 50, worker: false }, webhookHttp: { timeoutMs: 1000 } });
  hook = await newWebhook(t, { url: `${rx.url}/runs` });
});
afterAll(async () => { await t?.close(); await agent?.close(); await rx?.close(); });

async function startRun(apiKey = 'sk-test'): Promise<string> {
  const a = await t.call('POST', '/api/v1/agents', { body: { provider: 'provider_4', name: `a-${Math.random()}`, config: { base_url: agent.baseUrl, model: 'desk', api_key: apiKey } } });
  const s = await t.call('POST', '/api/v1/scenarios', { body: {
    name: `Book ${Math.random()}`, script: ['I want a cleaning.', 'Tuesday works.'],
    criteria: [{ criterion: 'Confirms the booking', check: { type: 'contains', value: 'booked' } }],
  } });
  const suite = await t.call('POST', '/api/v1/test-suites', { body: { name: `s-${Math.random()}`, scenario_ids: [s.body.id] } });
  const run = await t.call('POST', '/api/v1/runs', { body: { agent_id: a.body.id, test_suite_id: suite.body.id, max_turns: 2 } });
  expect(run.status, JSON.stringify(run.body)).toBe(201);
  return run.body.id;
}

async function soleDelivery(runId: string) {
  const events = await eventsOfRun(t, runId);
  expect(events).toHaveLength(1);
  const deliveries = await deliveriesOfEvent(t, events[0].id);
  expect(deliveries.map((d) => d.webhookId)).toEqual([hook.id]);
  return { event: events[0], delivery: deliveries[0] };
}

describe('run events', () => {
  it('a worker killed between the run\'s completion and the delivery: the next worker delivers it', async () => {
    const runId = await startRun();
    expect((await waitForRun(t, runId)).status).toBe('completed');
    const { event, delivery } = await soleDelivery(runId);
    expect(delivery).toMatchObject({ status: 'pending', attemptCount: 0 });
    await sleep(300);
    expect(rx.count('/runs')).toBe(0);

    t.webhooks!.startWorker();
    const done = await waitForDelivery(t, hook.id, delivery.id, (d) => d.status === 'succeeded');
    expect(done.attempts).toHaveLength(1);
    const [got] = await rx.waitFor(1, 5000, '/runs');
    expect(got.headers['webhook-id']).toBe(event.id);
    const payload = verified(hook.secret, got);
    expect(payload).toMatchObject({ event: 'test_run_completed', id: event.id, test_run: { id: runId, status: 'completed', passed_count: 1, pass_rate: 100 } });
    // what the agent caused, and how much of the run it covers
    expect(payload.test_run).toMatchObject({ agent_error_count: 0, strict_pass_rate: 100, coverage: 100, retried_count: 0 });
    expect(payload.test_run).toEqual((await t.call('GET', `/api/v1/runs/${runId}`)).body);
  });

  it('completed, failed and canceled runs each emit exactly one event of their kind', async () => {
    // counted before the runs start: the first can be delivered while the others are being created
    const before = rx.count('/runs');
    const completed = await startRun();
    const failed = await startRun('sk-wrong');
    const slow = await startFakeOpenAi({ reply: () => 'Let me check...', latencyMs: 10_000 });
    let canceled: string;
    try {
      const a = await t.call('POST', '/api/v1/agents', { body: { provider: 'provider_4', name: `slow-${Math.random()}`, config: { base_url: slow.baseUrl, model: 'm', api_key: 'sk-test' } } });
      canceled = (await t.call('POST', '/api/v1/runs', { body: { agent_id: a.body.id, max_scenarios: 1 } })).body.id;
      await slow.nextRequest();
      expect((await t.call('POST', `/api/v1/runs/${canceled}/cancel`)).body.status).toBe('canceled');
      // canceling again is idempotent and emits nothing more
      expect((await t.call('POST', `/api/v1/runs/${canceled}/cancel`)).status).toBe(200);
    } finally { await slow.close(); }
    expect((await waitForRun(t, completed)).status).toBe('completed');
    expect((await waitForRun(t, failed)).status).toBe('failed');
    expect((await t.call('POST', `/api/v1/runs/${completed}/cancel`)).status).toBe(409);

    const expected: Array<[string, string]> = [[completed, 'test_run_completed'], [failed, 'test_run_failed'], [canceled!, 'test_run_canceled']];
    for (const [runId, name] of expected) {
      const { event, delivery } = await soleDelivery(runId);
      expect(event.event).toBe(name);
      await waitForDelivery(t, hook.id, delivery.id, (d) => d.status === 'succeeded');
    }
    // the hook running again for a final run (a retried transaction) finds the event already there
    await t.deps.db.transaction((tx) => t.deps.hooks.onRunFinalized!(tx, completed));
    expect(await eventsOfRun(t, completed)).toHaveLength(1);

    await sleep(300);
    const got = rx.received.filter((r) => r.path === '/runs').slice(before);
    expect(got).toHaveLength(3);
    const byRun = new Map(got.map((h) => { const p = verified(hook.secret, h); return [p.test_run.id, p]; }));
    for (const [runId, name] of expected) expect(byRun.get(runId)).toMatchObject({ event: name, test_run: { id: runId, status: name.replace('test_run_', '') } });
    expect(byRun.get(failed).test_run.error_message).toMatch(/^provider: 401/);
    const all = await t.deps.db.orm.select({ id: webhookEvents.id }).from(webhookEvents).where(eq(webhookEvents.orgId, t.orgId));
    expect(all).toHaveLength(4);
  });
});
