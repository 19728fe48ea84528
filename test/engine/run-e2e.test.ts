import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, waitForRun, type TestContext } from '../harness.js';
import { startFakeOpenAi, type FakeOpenAiServer } from '../fakes/openai-agent.js';
import { startFakeLlm, type FakeLlm } from '../fakes/fake-llm.js';

const booking = {
  name: 'Book a cleaning',
  script: ['Hi, I would like to book a teeth cleaning.', 'Tuesday morning works for me.', 'Thanks, that is all.'],
  // the check alone reaches the threshold: the judge criterion left UNSURE (no judge model) cannot flip the verdict
  pass_threshold: 0.5,
  criteria: [
    { criterion: 'Confirms the booking', check: { type: 'contains', value: 'booked' } },
    { criterion: 'Is polite throughout', check: null },
  ],
};

async function setup(t: TestContext, agentUrl: string, opts: { key?: string; timeout_ms?: number; api_key?: string; scenarios?: any[] } = {}) {
  const key = opts.key;
  const agent = await t.call('POST', '/api/v1/agents', { key, body: { provider: 'provider_4', name: `agent-${Math.random()}`, config: { base_url: agentUrl, model: 'desk', api_key: opts.api_key ?? 'sk-test', ...(opts.timeout_ms ? { timeout_ms: opts.timeout_ms } : {}) } } });
  const ids: string[] = [];
  for (const s of opts.scenarios ?? [booking]) {
    const res = await t.call('POST', '/api/v1/scenarios', { key, body: { ...s, name: `${s.name} ${Math.random()}` } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    ids.push(res.body.id);
  }
  const suite = await t.call('POST', '/api/v1/test-suites', { key, body: { name: `suite-${Math.random()}`, scenario_ids: ids } });
  return { agentId: agent.body.id as string, suiteId: suite.body.id as string, scenarioIds: ids };
}

describe('run engine end to end (scripted tester, no LLM)', () => {
  let t: TestContext;
  let agent: FakeOpenAiServer;
  beforeAll(async () => {
    agent = await startFakeOpenAi({ reply: (msgs) => {
      const last = msgs.filter((m) => m.role === 'user').pop()?.content ?? '';
      return /tuesday/i.test(last) ? 'Done, you are booked for Tuesday at 9am.' : 'Happy to help. Which day suits you?';
    } });
    t = await createTestContext({ engine: { pollIntervalMs: 50 } });
  });
  afterAll(async () => { await t.close(); await agent.close(); });

  it('runs a suite to completed with transcripts, graded criteria, counts and metrics', async () => {
    const failing = { ...booking, name: 'Never booked', criteria: [{ criterion: 'Says goodbye', check: { type: 'contains', value: 'goodbye' } }] };
    const { agentId, suiteId, scenarioIds } = await setup(t, agent.baseUrl, { scenarios: [booking, failing] });
    const created = await t.call('POST', '/api/v1/runs', { body: { agent_id: agentId, test_suite_id: suiteId, max_turns: 3 } });
    expect(created.status).toBe(201);
    const run = await waitForRun(t, created.body.id);
    expect(run).toMatchObject({ status: 'completed', passed_count: 1, failed_count: 1, error_count: 0, total_scenarios: 2, pass_rate: 50, error_message: null });
    expect(run.completed_at).not.toBeNull();
    expect(run.duration_seconds).toBeGreaterThanOrEqual(0);
    expect(run.metrics.turn_count).toBe(3);
    expect(run.metrics.p50_turn_duration_ms).toBeGreaterThanOrEqual(0);
    expect(run.metrics.total_cost_usd).toBeNull();

    const results = (await t.call('GET', `/api/v1/runs/${run.id}/results`)).body.results;
    expect(results.map((r: any) => r.scenario_id)).toEqual(scenarioIds);
    const sr = (await t.call('GET', `/api/v1/scenario-runs/${results[0].id}`)).body;
    expect(sr).toMatchObject({ status: 'passed', passed: true, tester_model: null, judge_model: null, attempts: 1, error_message: null });
    expect(sr.transcript.map((e: any) => e.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
    expect(sr.transcript[0].content).toBe(booking.script[0]);
    expect(sr.transcript[3].content).toContain('booked');
    expect(sr.transcript[1].latency_ms).toBeGreaterThanOrEqual(0);
    const [check, judged] = sr.criteria_results;
    expect(check).toMatchObject({ criterion: 'Confirms the booking', decision: 'MET', points_awarded: 1, max_points: 1 });
    expect(check.evidence_quotes[0]).toMatchObject({ turn: 3, role: 'assistant' });
    expect(judged).toMatchObject({ decision: 'UNSURE', points_awarded: 0, rationale: expect.stringContaining('no judge model configured') });
    expect(sr.grade_summary).toMatch(/^1 of 2 criteria met \(score 1\.00\); unsure/);
    expect(sr.metrics).toMatchObject({ turn_count: 3, cost_usd: null });
    const failed = (await t.call('GET', `/api/v1/scenario-runs/${results[1].id}`)).body;
    expect(failed).toMatchObject({ status: 'failed', passed: false });
    expect(failed.grade_summary).toMatch(/not met: "Says goodbye"/);
  });

  it('a scenario with only judge criteria and no judge model is an error ("grading inconclusive"), never a pass', async () => {
    const judgeOnly = { ...booking, name: 'Judge only', criteria: [{ criterion: 'Is friendly', check: null }] };
    const { agentId, suiteId } = await setup(t, agent.baseUrl, { scenarios: [judgeOnly] });
    const created = await t.call('POST', '/api/v1/runs', { body: { agent_id: agentId, test_suite_id: suiteId } });
    const run = await waitForRun(t, created.body.id);
    expect(run).toMatchObject({ status: 'failed', error_count: 1, passed_count: 0, pass_rate: 0, error_message: 'every scenario ended in error' });
    const results = (await t.call('GET', `/api/v1/runs/${run.id}/results`)).body.results;
    expect(results[0]).toMatchObject({ status: 'error', passed: false });
    expect(results[0].error_message).toMatch(/grading inconclusive/);
    // without a judge model every attempt would leave the same criteria undecided: not attempted again
    expect((await t.call('GET', `/api/v1/scenario-runs/${results[0].id}`)).body).toMatchObject({ fault: 'judge', attempts: 1, attempt_history: [] });
  });

  it('credentials rejected by the provider fail the run fast', async () => {
    const { agentId, suiteId } = await setup(t, agent.baseUrl, { api_key: 'sk-wrong', scenarios: [booking, { ...booking, name: 'b2' }, { ...booking, name: 'b3' }] });
    const before = agent.chatRequests().length;
    const run = await waitForRun(t, (await t.call('POST', '/api/v1/runs', { body: { agent_id: agentId, test_suite_id: suiteId } })).body.id);
    expect(run).toMatchObject({ status: 'failed', error_count: 3, passed_count: 0, failed_count: 0 });
    expect(run.error_message).toMatch(/^provider: 401/);
    expect(agent.chatRequests().length - before).toBeLessThanOrEqual(3);
  });

  it('a conversation that outlives timeout_ms ends as a timeout error', async () => {
    const slow = await startFakeOpenAi({ reply: () => 'Thinking...', latencyMs: 5_000 });
    try {
      const { agentId, suiteId } = await setup(t, slow.baseUrl, { timeout_ms: 1000 });
      const run = await waitForRun(t, (await t.call('POST', '/api/v1/runs', { body: { agent_id: agentId, test_suite_id: suiteId } })).body.id);
      const results = (await t.call('GET', `/api/v1/runs/${run.id}/results`)).body.results;
      expect(results[0].status).toBe('error');
      expect(results[0].error_message).toMatch(/^timeout: /);
    } finally { await slow.close(); }
  });

  it('cancel mid-run aborts the conversation in flight promptly', async () => {
    const slow = await startFakeOpenAi({ reply: () => 'Let me check...', latencyMs: 20_000 });
    try {
      const { agentId, suiteId } = await setup(t, slow.baseUrl);
      const created = await t.call('POST', '/api/v1/runs', { body: { agent_id: agentId, test_suite_id: suiteId } });
      await slow.nextRequest();
      const t0 = Date.now();
      const canceled = await t.call('POST', `/api/v1/runs/${created.body.id}/cancel`);
      expect(canceled.body).toMatchObject({ status: 'canceled', error_count: 1 });
      const sr = (await t.call('GET', `/api/v1/runs/${created.body.id}/results`)).body.results[0];
      expect(sr).toMatchObject({ status: 'error', error_message: 'run canceled' });
      // the worker lets go of the conversation well before the agent would have answered
      for (let i = 0; i < 100 && t.engine!.inFlight() > 0; i++) await new Promise((r) => setTimeout(r, 50));
      expect(t.engine!.inFlight()).toBe(0);
      expect(Date.now() - t0).toBeLessThan(10_000);
      const after = (await t.call('GET', `/api/v1/runs/${created.body.id}`)).body;
      expect(after).toMatchObject({ status: 'canceled', error_count: 1, passed_count: 0, failed_count: 0 });
    } finally { await slow.close(); }
  });

  it('deleting the agent mid-run cancels the run', async () => {
    const slow = await startFakeOpenAi({ reply: () => 'One moment...', latencyMs: 20_000 });
    try {
      const { agentId, suiteId } = await setup(t, slow.baseUrl);
      const created = await t.call('POST', '/api/v1/runs', { body: { agent_id: agentId, test_suite_id: suiteId } });
      await slow.nextRequest();
      expect((await t.call('DELETE', `/api/v1/agents/${agentId}`)).status).toBe(204);
      const run = await waitForRun(t, created.body.id);
      expect(run).toMatchObject({ status: 'canceled', error_message: 'agent deleted', error_count: 1 });
    } finally { await slow.close(); }
  });
});

describe('run engine end to end with an LLM tester and judge', () => {
  let t: TestContext;
  let agent: FakeOpenAiServer;
  let llm: FakeLlm;
  beforeAll(async () => {
    agent = await startFakeOpenAi({ reply: () => 'You are booked for Tuesday. Anything else?' });
    llm = await startFakeLlm({ tester: (messages) => (messages.filter((m) => m.role === 'user').length >= 3 ? '[END_CALL]' : 'I need a cleaning on Tuesday.') });
    t = await createTestContext({
      engine: { pollIntervalMs: 50 },
      env: { REHEARSAL_LLM_BASE_URL: llm.baseUrl, REHEARSAL_LLM_API_KEY: llm.apiKey ?? '', REHEARSAL_TESTER_MODEL: llm.testerModel, REHEARSAL_JUDGE_MODEL: llm.judgeModel },
    });
  });
  afterAll(async () => { await t.close(); await agent.close(); await llm.close(); });

  it('the tester model plays the caller and the judge grades with verified evidence', async () => {
    const { agentId, suiteId } = await setup(t, agent.baseUrl);
    const run = await waitForRun(t, (await t.call('POST', '/api/v1/runs', { body: { agent_id: agentId, test_suite_id: suiteId, max_turns: 5 } })).body.id);
    expect(run).toMatchObject({ status: 'completed', passed_count: 1, pass_rate: 100 });
    const id = (await t.call('GET', `/api/v1/runs/${run.id}/results`)).body.results[0].id;
    const sr = (await t.call('GET', `/api/v1/scenario-runs/${id}`)).body;
    expect(sr).toMatchObject({ tester_model: llm.testerModel, judge_model: llm.judgeModel, status: 'passed' });
    expect(sr.transcript[0].content).toBe('I need a cleaning on Tuesday.');
    const judged = sr.criteria_results.find((c: any) => c.criterion === 'Is polite throughout');
    expect(judged.decision).toBe('MET');
    for (const q of judged.evidence_quotes ?? []) expect(sr.transcript[q.turn].content).toContain(q.text);
    expect(llm.judgeCalls().length).toBeGreaterThanOrEqual(1);
  });
});

describe('scenario concurrency per run', () => {
  let t: TestContext;
  let agent: FakeOpenAiServer;
  let inFlight = 0;
  let peak = 0;
  beforeAll(async () => {
    agent = await startFakeOpenAi({ reply: async () => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((r) => setTimeout(r, 60));
      inFlight--;
      return 'You are booked.';
    } });
    t = await createTestContext({ engine: { pollIntervalMs: 50 }, env: { REHEARSAL_SCENARIO_CONCURRENCY: '2' } });
  });
  afterAll(async () => { await t.close(); await agent.close(); });

  it('holds at most REHEARSAL_SCENARIO_CONCURRENCY conversations of one run at once', async () => {
    const scenarios = Array.from({ length: 6 }, (_, i) => ({ ...booking, name: `c${i}` }));
    const { agentId, suiteId } = await setup(t, agent.baseUrl, { scenarios });
    const run = await waitForRun(t, (await t.call('POST', '/api/v1/runs', { body: { agent_id: agentId, test_suite_id: suiteId, max_turns: 2 } })).body.id);
    expect(run).toMatchObject({ status: 'completed', passed_count: 6 });
    expect(peak).toBe(2);
  });
});
