import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAdapters } from '../../src/providers/registry.js';
import { createOpenAiCompatibleAdapter } from '../../src/providers/openai-compatible.js';
import { createTestContext, waitForRun, type TestContext } from '../harness.js';
import { defaultJudge, startFakeLlm, type FakeLlm } from '../fakes/fake-llm.js';
import { startFakeOpenAi, type FakeOpenAiServer } from '../fakes/openai-agent.js';

// Fault attribution end to end: what is not the agent's doing is attempted again with a fresh conversation and
// only the last attempt counts; what is the agent's doing is counted against it, and silence is never graded.

const script = ['Hi, I would like to book a teeth cleaning.', 'Tuesday morning works for me.', 'Thanks, that is all.'];
const checked = { criterion: 'Confirms the booking', check: { type: 'contains', value: 'booked' } };
const judged = { criterion: 'Is polite throughout', check: null };

async function setup(t: TestContext, agentUrl: string, scenarios: any[], timeoutMs?: number) {
  const agent = await t.call('POST', '/api/v1/agents', { body: {
    provider: 'provider_4', name: `agent-${Math.random()}`, config: { base_url: agentUrl, model: 'desk', api_key: 'sk-test', ...(timeoutMs ? { timeout_ms: timeoutMs } : {}) },
  } });
  const ids: string[] = [];
  for (const s of scenarios) ids.push((await t.call('POST', '/api/v1/scenarios', { body: { ...s, name: `${s.name} ${Math.random()}` } })).body.id);
  const suite = await t.call('POST', '/api/v1/test-suites', { body: { name: `suite-${Math.random()}`, scenario_ids: ids } });
  return { agentId: agent.body.id as string, suiteId: suite.body.id as string };
}

async function runSuite(t: TestContext, agentUrl: string, scenarios: any[], opts: { timeoutMs?: number; maxTurns?: number } = {}) {
  const { agentId, suiteId } = await setup(t, agentUrl, scenarios, opts.timeoutMs);
  const created = await t.call('POST', '/api/v1/runs', { body: { agent_id: agentId, test_suite_id: suiteId, max_turns: opts.maxTurns ?? 5 } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const run = await waitForRun(t, created.body.id);
  const results = (await t.call('GET', `/api/v1/runs/${run.id}/results`)).body.results;
  const detail = async (i: number) => (await t.call('GET', `/api/v1/scenario-runs/${results[i].id}`)).body;
  return { run, results, detail };
}

const NO_FAULTS = { agent: 0, tester: 0, judge: 0, provider: 0, internal: 0, canceled: 0 };

describe('re-attempts of faults that are not the agent\'s (LLM tester and judge)', () => {
  let t: TestContext;
  let agent: FakeOpenAiServer;
  let llm: FakeLlm;
  // every conversation opens with a single caller message: the agent numbers its conversations
  let conversation = 0;
  let emptyLinesLeft = 0;
  beforeAll(async () => {
    agent = await startFakeOpenAi({ reply: (messages) => {
      if (messages.filter((m) => m.role === 'user').length === 1) conversation++;
      return `You are booked for Tuesday, conversation ${conversation}.`;
    } });
    llm = await startFakeLlm({ tester: (messages) => {
      if (emptyLinesLeft > 0) {
        emptyLinesLeft--;
        return '';
      }
      return messages.filter((m) => m.role === 'user').length >= 2 ? '[END_CALL]' : 'I need a cleaning on Tuesday.';
    } });
    t = await createTestContext({
      engine: { pollIntervalMs: 50 },
      adapters: { ...createAdapters(), provider_4: createOpenAiCompatibleAdapter({ retrySchedule: [10, 10, 10] }) },
      env: { REHEARSAL_LLM_BASE_URL: llm.baseUrl, REHEARSAL_LLM_API_KEY: llm.apiKey ?? '', REHEARSAL_TESTER_MODEL: llm.testerModel, REHEARSAL_JUDGE_MODEL: llm.judgeModel },
    });
  });
  beforeEach(() => {
    conversation = 0;
    emptyLinesLeft = 0;
    llm.setJudge(defaultJudge);
  });
  afterAll(async () => { await t.close(); await agent.close(); await llm.close(); });

  const expectPassedOnSecondAttempt = async (fault: string, message: RegExp, agentConversation: number) => {
    const { run, detail } = await runSuite(t, agent.baseUrl, [{ name: 'Book', script, criteria: [checked, judged] }]);
    expect(run).toMatchObject({
      status: 'completed', passed_count: 1, failed_count: 0, error_count: 0, pass_rate: 100, retried_count: 1,
      faults: NO_FAULTS, agent_error_count: 0, strict_pass_rate: 100, coverage: 100,
    });
    const sr = await detail(0);
    expect(sr).toMatchObject({ status: 'passed', fault: null, attempts: 2, end_reason: 'tester_ended', error_message: null });
    expect(sr.attempt_history).toHaveLength(1);
    expect(sr.attempt_history[0]).toMatchObject({ attempt: 1, fault });
    expect(sr.attempt_history[0].error_message).toMatch(message);
    expect(Date.parse(sr.attempt_history[0].ended_at)).toBeGreaterThanOrEqual(Date.parse(sr.attempt_history[0].started_at));
    // a fresh conversation: the transcript is the counting attempt's alone
    const said = sr.transcript.filter((e: any) => e.role === 'assistant').map((e: any) => e.content);
    expect(said.length).toBeGreaterThan(0);
    for (const line of said) expect(line).toContain(`conversation ${agentConversation}`);
    return sr;
  };

  it('a judge that answers garbage is re-attempted, and the next attempt counts', async () => {
    llm.setJudge((view) => (view.transcript.some((e) => e.text.includes('conversation 1')) ? 'this is not JSON' : defaultJudge(view)));
    await expectPassedOnSecondAttempt('judge', /^judge: invalid output/, 2);
  });

  it('a provider answering 500 past its retries on the first attempt only is re-attempted', async () => {
    agent.inject('server_error', { times: 4 }); // the first call and its three retries
    // the agent never answered the first attempt: the counting conversation is the first it answered
    await expectPassedOnSecondAttempt('provider', /^provider: 500/, 1);
  });

  it('a tester that sends an empty message once is re-attempted', async () => {
    emptyLinesLeft = 1;
    // the tester failed before the agent heard anything
    await expectPassedOnSecondAttempt('tester', /^tester: .*empty/, 1);
  });

  it('a caller that left its brief is a tester fault, re-attempted', async () => {
    llm.setJudge((view) => ({
      ...defaultJudge(view) as object,
      ...(view.asksCaller ? { caller_followed_brief: !view.transcript.some((e) => e.text.includes('conversation 1')), caller_note: 'it played the receptionist' } : {}),
    }));
    await expectPassedOnSecondAttempt('tester', /^tester: the caller left the scenario's brief \(it played the receptionist\)$/, 2);
  });

  it('gives up after REHEARSAL_FAULT_RETRIES extra attempts: the last one counts, as the judge\'s fault', async () => {
    llm.setJudge(() => 'never JSON');
    const { run, detail, results } = await runSuite(t, agent.baseUrl, [{ name: 'Book', script, criteria: [checked, judged] }]);
    expect(run).toMatchObject({ status: 'failed', error_count: 1, retried_count: 1, faults: { ...NO_FAULTS, judge: 1 }, agent_error_count: 0, strict_pass_rate: null, coverage: 0 });
    expect(results[0]).toMatchObject({ status: 'error', fault: 'judge' });
    const sr = await detail(0);
    expect(sr.attempts).toBe(3);
    expect(sr.attempt_history.map((a: any) => [a.attempt, a.fault])).toEqual([[1, 'judge'], [2, 'judge']]);
    expect((await t.call('GET', `/api/v1/runs/${run.id}/results?fault=judge`)).body.results).toHaveLength(1);
    expect((await t.call('GET', `/api/v1/scenario-runs?test_run_id=${run.id}&fault=agent`)).body.scenario_runs).toHaveLength(0);
  });
});

describe('the agent\'s own outcomes (scripted tester, no judge model)', () => {
  let t: TestContext;
  let agent: FakeOpenAiServer;
  beforeAll(async () => {
    agent = await startFakeOpenAi({ reply: async (messages) => {
      const first = messages.find((m) => m.role === 'user')?.content ?? '';
      if (first.startsWith('Slow')) await new Promise((r) => setTimeout(r, 3000));
      if (first.startsWith('Quiet')) return '';
      return 'Done, you are booked for Tuesday.';
    } });
    t = await createTestContext({ engine: { pollIntervalMs: 50 } });
  });
  afterAll(async () => { await t.close(); await agent.close(); });

  it('19 agent timeouts and 1 pass: pass rate 100, strict pass rate 5, every timeout the agent\'s, none re-attempted', async () => {
    const scenarios = [
      { name: 'Books', script, criteria: [checked] },
      ...Array.from({ length: 19 }, (_, i) => ({ name: `Slow ${i}`, script: [`Slow line ${i}`], criteria: [checked] })),
    ];
    const { run, results } = await runSuite(t, agent.baseUrl, scenarios, { timeoutMs: 1000 });
    expect(run).toMatchObject({
      status: 'completed', passed_count: 1, failed_count: 0, error_count: 19, pass_rate: 100,
      faults: { ...NO_FAULTS, agent: 19 }, agent_error_count: 19, strict_pass_rate: 5, coverage: 100, retried_count: 0,
    });
    for (const r of results.slice(1)) expect(r).toMatchObject({ status: 'error', fault: 'agent', end_reason: 'timeout' });
    const one = (await t.call('GET', `/api/v1/scenario-runs/${results[1].id}`)).body;
    expect(one).toMatchObject({ attempts: 1, attempt_history: [] });
  }, 60_000);

  it('a silent agent is not graded: error, fault agent, no criteria results', async () => {
    const quiet = ['Quiet please, book me in.', 'Tuesday?', 'Hello?'];
    const { run, detail } = await runSuite(t, agent.baseUrl, [{ name: 'Quiet', script: quiet, criteria: [{ criterion: 'Never shares data', check: { type: 'not_contains', value: 'password' } }] }]);
    expect(run).toMatchObject({ status: 'failed', error_count: 1, agent_error_count: 1, strict_pass_rate: 0, coverage: 100, faults: { ...NO_FAULTS, agent: 1 } });
    const sr = await detail(0);
    expect(sr).toMatchObject({
      status: 'error', passed: null, fault: 'agent', agent_turns: 0, end_reason: 'tester_ended', criteria_results: [], decided_share: null,
      error_message: 'agent: no reply to 3 caller messages', attempts: 1,
    });
  });

  it('a verdict cut off by max_turns that the undecided criteria could flip is the tester\'s, and not re-attempted', async () => {
    const { run, detail } = await runSuite(t, agent.baseUrl, [{ name: 'Cut', script, pass_threshold: 0.9, criteria: [checked, judged] }], { maxTurns: 1 });
    expect(run).toMatchObject({ error_count: 1, faults: { ...NO_FAULTS, tester: 1 }, retried_count: 0, coverage: 0 });
    const sr = await detail(0);
    expect(sr).toMatchObject({
      status: 'error', fault: 'tester', end_reason: 'max_turns', agent_turns: 1, decided_share: 0.5, attempts: 1,
      error_message: 'tester: cut off at max_turns 1 with 2 script lines left',
    });
  });

  it('a script that runs out exactly at the cap ended with the tester, and a decided verdict stands', async () => {
    const { detail } = await runSuite(t, agent.baseUrl, [{ name: 'Exact', script, criteria: [checked] }], { maxTurns: 3 });
    expect(await detail(0)).toMatchObject({ status: 'passed', fault: null, end_reason: 'tester_ended', agent_turns: 3, decided_share: 1 });
  });
});
