import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JUDGE_PROMPT_VERSION } from '../../src/engine/judge/llm.js';
import { createTestContext, waitForRun, type TestContext } from '../harness.js';
import { startFakeOpenAi, type FakeOpenAiServer } from '../fakes/openai-agent.js';
import { startFakeLlm, type FakeLlm } from '../fakes/fake-llm.js';

// Confirmed judgments through the whole service: the setting from the environment reaches the judge, and
// votes, rejected quotes and the prompt version come back in the scenario run's detail.

describe('confirmed judgments end to end', () => {
  let t: TestContext;
  let agent: FakeOpenAiServer;
  let llm: FakeLlm;
  let judgeCalls = 0;
  beforeAll(async () => {
    agent = await startFakeOpenAi({ reply: () => 'You are booked for Tuesday. Anything else?' });
    llm = await startFakeLlm({ tester: (messages) => (messages.filter((m) => m.role === 'user').length >= 2 ? '[END_CALL]' : 'I need a cleaning on Tuesday.') });
    llm.setJudge((v) => {
      const k = judgeCalls++;
      const results = v.criteria.map((c) => (c.text === 'Is polite throughout'
        // flips: NOT_MET first, then MET twice
        ? { id: c.id, rationale: k === 0 ? 'curt' : 'polite', evidence: [], decision: k === 0 ? 'NOT_MET' : 'MET' }
        // cites a line the agent never said, every time
        : { id: c.id, rationale: 'offered a discount', evidence: [{ turn: 1, role: 'assistant', text: 'I can give you 20% off.' }], decision: 'MET' }));
      return v.asksCaller ? { results, caller_note: 'stayed in role', caller_followed_brief: true } : { results };
    });
    t = await createTestContext({
      engine: { pollIntervalMs: 50 },
      env: {
        REHEARSAL_LLM_BASE_URL: llm.baseUrl, REHEARSAL_LLM_API_KEY: llm.apiKey ?? '', REHEARSAL_TESTER_MODEL: llm.testerModel,
        REHEARSAL_JUDGE_MODEL: llm.judgeModel, REHEARSAL_JUDGE_CONFIRMATIONS: '2',
      },
    });
  });
  afterAll(async () => { await t.close(); await agent.close(); await llm.close(); });

  it('records votes, rejected quotes and the judge prompt version on the scenario run', async () => {
    const agentRes = await t.call('POST', '/api/v1/agents', { body: { provider: 'provider_4', name: 'desk', config: { base_url: agent.baseUrl, model: 'desk', api_key: 'sk-test' } } });
    const scenario = await t.call('POST', '/api/v1/scenarios', { body: {
      name: 'Book', script: ['Hi'], goal: 'Book a cleaning on Tuesday', persona: 'A patient',
      // two of three points decided MET pass even with the undecided one counted NOT_MET
      pass_threshold: 0.6,
      criteria: [
        { criterion: 'Confirms the booking', check: { type: 'contains', value: 'booked' } },
        { criterion: 'Is polite throughout', check: null },
        { criterion: 'Offers a discount', check: null },
      ],
    } });
    const suite = await t.call('POST', '/api/v1/test-suites', { body: { name: 's', scenario_ids: [scenario.body.id] } });
    const run = await waitForRun(t, (await t.call('POST', '/api/v1/runs', { body: { agent_id: agentRes.body.id, test_suite_id: suite.body.id, max_turns: 3 } })).body.id);
    const id = (await t.call('GET', `/api/v1/runs/${run.id}/results`)).body.results[0].id;
    const sr = (await t.call('GET', `/api/v1/scenario-runs/${id}`)).body;

    expect(sr).toMatchObject({ status: 'passed', fault: null, decided_share: 0.67, attempts: 1, attempt_history: [] });
    expect(sr.judge_prompt_version).toBe(JUDGE_PROMPT_VERSION);
    expect(sr.judge_prompt_version).toMatch(/^[0-9a-f]{16}$/);
    const [check, polite, discount] = sr.criteria_results;
    expect(check).toMatchObject({ decision: 'MET', votes: ['MET'], rejected_quotes: [] });
    expect(polite).toMatchObject({ decision: 'MET', votes: ['NOT_MET', 'MET', 'MET'], rationale: 'polite', rejected_quotes: [] });
    expect(discount).toMatchObject({
      decision: 'UNSURE', votes: ['MET', 'MET'], rationale: "the judge's evidence is not in the transcript",
      rejected_quotes: [{ turn: 1, role: 'assistant', text: 'I can give you 20% off.', reason: 'not found in turn 1' }],
    });
    expect(judgeCalls).toBe(3); // 1 + REHEARSAL_JUDGE_CONFIRMATIONS
    // the judge was told the goal and persona, and asked about the LLM caller only on the first call
    const [first, second] = llm.judgeCalls().map((c) => c.body!.messages[1].content!);
    expect(first).toContain('persona: A patient\ngoal: Book a cleaning on Tuesday');
    expect(first).toContain('end_reason: tester_ended');
    expect(JSON.stringify(llm.judgeCalls()[0].body!.response_format)).toContain('caller_followed_brief');
    expect(JSON.stringify(llm.judgeCalls()[1].body!.response_format)).not.toContain('caller_followed_brief');
    expect(second).toContain('<criterion id="2">Offers a discount</criterion>\n<criterion id="1">Is polite throughout</criterion>');
  });
});
