import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, waitForRun, type TestContext } from '../../../test/harness.js';
import { startFakeOpenAi, type FakeOpenAiServer } from '../../../test/fakes/openai-agent.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../../test/fakes/webhook-receiver.js';
import { DELIVERY_ENV, eventsOfRun, newWebhook, sleep, verified } from '../../../test/webhook-helpers.js';

// test_run_regressed (workflow §4): sent beside test_run_completed when a run with a baseline ends regressed,
// with the same payload; among the default events; a webhook listing its events gets it only when listed.
describe('webhook event test_run_regressed', () => {
  let t: TestContext;
  let agent: FakeOpenAiServer;
  let rx: WebhookReceiver;
  let good = true;
  let agentId: string;
  let suiteId: string;
  let all: { id: string; secret: string };
  let completedOnly: { id: string; secret: string };
  let regressedOnly: { id: string; secret: string };

  beforeAll(async () => {
    agent = await startFakeOpenAi({ reply: () => (good ? 'You are booked.' : 'Sorry, no.') });
    rx = await startWebhookReceiver();
    t = await createTestContext({ env: DELIVERY_ENV, engine: { pollIntervalMs: 50 }, webhooks: { pollIntervalMs: 50 }, webhookHttp: { timeoutMs: 1000 } });
    agentId = (await t.call('POST', '/api/v1/agents', { body: { provider: 'provider_4', name: 'desk', config: { base_url: agent.baseUrl, model: 'desk', api_key: 'sk-test' } } })).body.id;
    const s = await t.call('POST', '/api/v1/scenarios', { body: {
      name: 'Toggled', script: ['Book me a table.'], criteria: [{ criterion: 'Books the table', check: { type: 'contains', value: 'booked' } }],
    } });
    suiteId = (await t.call('POST', '/api/v1/test-suites', { body: { name: 'bookings', scenario_ids: [s.body.id] } })).body.id;
    all = await newWebhook(t, { url: `${rx.url}/all` });
    completedOnly = await newWebhook(t, { url: `${rx.url}/completed`, events: ['test_run_completed'] });
    regressedOnly = await newWebhook(t, { url: `${rx.url}/regressed`, events: ['test_run_regressed'] });
  });
  afterAll(async () => { await t?.close(); await agent?.close(); await rx?.close(); });

  async function run(baseline?: string): Promise<string> {
    const res = await t.call('POST', '/api/v1/runs', { body: { agent_id: agentId, test_suite_id: suiteId, max_turns: 1, repeats: 4, ...(baseline ? { baseline } : {}) } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect((await waitForRun(t, res.body.id)).status).toBe('completed');
    return res.body.id;
  }
  const kinds = async (runId: string) => (await eventsOfRun(t, runId)).map((e) => e.event).sort();
  const payloads = (path: string, secret: string) => rx.received.filter((h) => h.path === path).map((h) => verified(secret, h));

  it('is among the default events of a new webhook', async () => {
    const got = await t.call('GET', `/api/v1/webhooks/${all.id}`);
    expect(got.body.events).toEqual(expect.arrayContaining(['test_run_completed', 'test_run_failed', 'test_run_canceled', 'test_run_regressed']));
    expect(got.body.events).toHaveLength(4);
  });

  it('a regressed run sends it beside test_run_completed with the same payload; a run not regressed does not', async () => {
    const first = await run();
    expect(await kinds(first)).toEqual(['test_run_completed']);

    good = false;
    const second = await run('previous');
    expect((await t.call('GET', `/api/v1/runs/${second}/comparison`)).body.verdict).toBe('regressed');
    expect(await kinds(second)).toEqual(['test_run_completed', 'test_run_regressed']);
    // the finalizing hook running again (a retried transaction) adds nothing
    await t.deps.db.transaction((tx) => t.deps.hooks.onRunFinalized!(tx, second));
    expect(await eventsOfRun(t, second)).toHaveLength(2);

    // the same failing behaviour against a failing baseline is not a regression
    const third = await run('previous');
    expect((await t.call('GET', `/api/v1/runs/${third}/comparison`)).body.verdict).not.toBe('regressed');
    expect(await kinds(third)).toEqual(['test_run_completed']);

    await rx.waitFor(4 + 2 + 1, 10_000);
    await sleep(300);
    const toAll = payloads('/all', all.secret);
    expect(toAll.map((p) => `${p.test_run.id}:${p.event}`).sort()).toEqual(
      [`${first}:test_run_completed`, `${second}:test_run_completed`, `${second}:test_run_regressed`, `${third}:test_run_completed`].sort());
    const completed = toAll.find((p) => p.test_run.id === second && p.event === 'test_run_completed');
    const regressed = toAll.find((p) => p.test_run.id === second && p.event === 'test_run_regressed');
    expect(regressed.comparison).toMatchObject({ verdict: 'regressed', baseline_run_id: first });
    const { id: _a, event: _b, created_at: _c, ...same } = completed;
    const { id: _d, event: _e, created_at: _f, ...sameToo } = regressed;
    expect(sameToo).toEqual(same);
    expect(regressed.id).not.toBe(completed.id);

    expect(payloads('/completed', completedOnly.secret).map((p) => p.event)).toEqual(['test_run_completed', 'test_run_completed', 'test_run_completed']);
    expect(payloads('/regressed', regressedOnly.secret).map((p) => [p.event, p.test_run.id])).toEqual([['test_run_regressed', second]]);

    const listed = await t.call('GET', `/api/v1/webhooks/${regressedOnly.id}/deliveries?event=test_run_regressed`);
    expect(listed.status).toBe(200);
    expect(listed.body.total).toBe(1);
  });
});
