import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../lib/clock.js';
import { createLlmClient } from '../lib/llm-client.js';
import { createOpenAiCompatibleAdapter } from '../providers/openai-compatible.js';
import { startFakeAgent, type FakeOpenAiServer, type WireMessage } from '../../test/fakes/openai-agent.js';
import { defaultJudge, startFakeLlm, type FakeLlm } from '../../test/fakes/fake-llm.js';
import { NO_TESTER_MESSAGE, runScenario, type RunScenarioOptions } from './scenario-runner.js';
import { JUDGE_PROMPT_VERSION } from './judge/llm.js';
import { END_CALL } from './tester/llm.js';
import type { Criterion, ScenarioSpec, TranscriptEntry } from './types.js';

const judged = (criterion: string, over: Partial<Criterion> = {}): Criterion => ({ criterion, max_points: 1, required: false, check: null, ...over });
const CRITERIA: Criterion[] = [
  judged('Confirms the booking date'),
  { criterion: 'Mentions Friday', max_points: 1, required: false, check: { type: 'contains', value: 'friday' } },
  { criterion: 'Answers every message', max_points: 1, required: false, check: { type: 'responded_every_turn' } },
];
const scenario = (over: Partial<ScenarioSpec> = {}): ScenarioSpec => ({
  id: 'sc1', name: 'Reschedule', persona: 'Dana', goal: 'Move the appointment to Friday', instructions: null,
  opening_message: null, script: ['Hi, can I move my appointment?', 'Friday please.', 'Thanks, bye.'],
  criteria: CRITERIA, pass_threshold: 0.75, max_turns: null, ...over,
});

/** The tester plays three lines, then hangs up. */
const threeLines = (messages: WireMessage[]) => {
  const said = messages.filter((m) => m.role === 'assistant').length;
  return ['Hi, I need to move my appointment.', 'Friday would be great.', `Perfect, thanks! ${END_CALL}`][said] ?? END_CALL;
};

let agent: FakeOpenAiServer;
let llm: FakeLlm;
beforeEach(async () => {
  agent = await startFakeAgent({ reply: (m) => `Sure, I noted: ${m.at(-1)!.content}` });
  llm = await startFakeLlm({ tester: threeLines });
});
afterEach(async () => {
  await agent.close();
  await llm.close();
});

const adapter = createOpenAiCompatibleAdapter();
function run(over: Partial<RunScenarioOptions> = {}) {
  return runScenario({
    scenario: scenario(),
    maxTurns: 10,
    adapter,
    config: { base_url: agent.baseUrl, model: 'agent-x', api_key: 'sk-test', price_per_1k_input: 0.01, price_per_1k_output: 0.03 },
    llm: { baseUrl: llm.baseUrl, apiKey: llm.apiKey, testerModel: llm.testerModel, judgeModel: llm.judgeModel },
    clock: systemClock,
    signal: new AbortController().signal,
    ids: { runId: 'run-1', scenarioRunId: 'sr-1' },
    ...over,
  });
}

describe('runScenario end to end', () => {
  it('passes: LLM tester talks to the agent, checks and judge grade, metrics are filled', async () => {
    const entries: TranscriptEntry[] = [];
    let grading = 0;
    const r = await run({ onEntry: (e) => void entries.push(e), onGrading: () => void grading++ });
    expect(r.error_message).toBeNull();
    expect(r).toMatchObject({ status: 'passed', passed: true, fatal: null, end_reason: 'tester_ended', tester_model: 'fake-tester', judge_model: 'fake-judge' });
    expect(r.transcript.map((e) => e.content)).toEqual([
      'Hi, I need to move my appointment.', 'Sure, I noted: Hi, I need to move my appointment.',
      'Friday would be great.', 'Sure, I noted: Friday would be great.',
      'Perfect, thanks!', 'Sure, I noted: Perfect, thanks!',
    ]);
    expect(entries).toEqual(r.transcript);
    expect(grading).toBe(1);
    expect(r.criteria_results.map((c) => [c.criterion, c.decision, c.graded_by])).toEqual([
      ['Confirms the booking date', 'MET', 'judge'], ['Mentions Friday', 'MET', 'check'], ['Answers every message', 'MET', 'check'],
    ]);
    expect(r.criteria_results[0].evidence_quotes).toEqual([{ turn: 1, role: 'assistant', text: 'Sure, I noted: Hi, I need' }]);
    expect(r.grade_summary).toBe('3 of 3 criteria met (score 1.00)');
    expect(r.metrics.turn_count).toBe(3);
    expect(r.metrics.cost_usd).toBeGreaterThan(0);
    expect(r.metrics.time_to_first_response_ms).toBe(r.turn_durations_ms[0]);
    expect(r.turn_durations_ms).toHaveLength(3);
    expect(r.duration_ms).toBeGreaterThanOrEqual(r.metrics.total_duration_ms!);
    // The tester saw the agent's words as its input, and the judge saw only the judge criterion.
    expect(llm.testerCalls()[1].body!.messages.at(-1)).toEqual({ role: 'user', content: 'Sure, I noted: Hi, I need to move my appointment.' });
    expect(llm.judgeCalls()).toHaveLength(1);
    expect(llm.judgeCalls()[0].body!.messages[1].content).not.toContain('Mentions Friday');
  });

  it('fails when a required criterion is NOT_MET, naming it', async () => {
    llm.setJudge((v) => ({
      results: v.criteria.map((c) => ({ id: c.id, decision: 'NOT_MET', rationale: 'No date was confirmed.', evidence: [] })),
      ...(v.asksCaller ? { caller_note: 'in role', caller_followed_brief: true } : {}),
    }));
    const r = await run({ scenario: scenario({ criteria: [judged('Confirms the booking date', { required: true }), CRITERIA[1], CRITERIA[2]] }) });
    expect(r).toMatchObject({ status: 'failed', passed: false, error_message: null });
    expect(r.grade_summary).toBe('2 of 3 criteria met (score 0.67); not met: "Confirms the booking date" (required)');
  });

  it('grades judge criteria UNSURE without a judge model: a verdict they could flip is inconclusive', async () => {
    const r = await run({ llm: { baseUrl: llm.baseUrl, apiKey: llm.apiKey, testerModel: llm.testerModel } });
    expect(r).toMatchObject({ status: 'error', passed: null, judge_model: null, decided_share: 0.67 });
    expect(r.outcome).toMatchObject({ fault: 'judge', kind: 'inconclusive_without_judge' }); // not attempted again: it would end the same way
    expect(r.error_message).toBe('judge: grading inconclusive: 1 of 3 points undecided ("Confirms the booking date")');
    expect(r.criteria_results[0]).toMatchObject({ decision: 'UNSURE', rationale: 'no judge model configured', points_awarded: 0 });
    expect(r.grade_summary).toBe('2 of 3 criteria met (score 1.00) (grading inconclusive); unsure: "Confirms the booking date"');
    expect(llm.judgeCalls()).toHaveLength(0);
  });

  it('is an error, not a pass, when nothing could be decided', async () => {
    const r = await run({ scenario: scenario({ criteria: [judged('A'), judged('B')] }), llm: {} });
    expect(r).toMatchObject({ status: 'error', passed: null, tester_model: null, end_reason: 'tester_ended', agent_turns: 3, decided_share: 0 });
    expect(r.error_message).toBe('judge: grading inconclusive: 2 of 2 points undecided ("A", "B")');
    expect(r.transcript).toHaveLength(6); // scripted tester: three lines, three replies
  });

  it('a decision resting only on a fabricated quote is re-asked once, then UNSURE', async () => {
    const quote = { turn: 3, role: 'assistant', text: 'Your appointment is confirmed for Friday at 10.' };
    llm.setJudge((v) => ({
      results: v.criteria.map((c) => ({ id: c.id, decision: 'MET', rationale: 'The agent confirmed Friday.', evidence: [quote] })),
      ...(v.asksCaller ? { caller_note: 'in role', caller_followed_brief: true } : {}),
    }));
    const r = await run();
    expect(r.criteria_results[0]).toMatchObject({
      decision: 'UNSURE', evidence_quotes: [], votes: ['MET', 'MET'], rationale: "the judge's evidence is not in the transcript",
      rejected_quotes: [{ ...quote, reason: 'not found in turn 3' }],
    });
    expect(llm.judgeCalls()).toHaveLength(2);
  });

  it('a 401 from the agent is fatal invalid_credentials', async () => {
    const r = await run({ config: { base_url: agent.baseUrl, model: 'agent-x', api_key: 'sk-revoked' } });
    expect(r).toMatchObject({ status: 'error', passed: null, fatal: 'invalid_credentials' });
    expect(r.error_message).toMatch(/^provider: 401 Incorrect API key provided/);
    expect(r.transcript.map((e) => e.role)).toEqual(['user']);
    expect(llm.judgeCalls()).toHaveLength(0);
  });

  it('other provider errors are not fatal', async () => {
    agent.inject('insufficient_quota');
    const r = await run();
    expect(r).toMatchObject({ status: 'error', fatal: null });
    expect(r.error_message).toBe('provider: 429 You exceeded your current quota, please check your plan and billing details.');
  });

  it('says what to configure when there is neither a script nor a tester model', async () => {
    const r = await run({ scenario: scenario({ script: [] }), llm: { judgeModel: 'j' } });
    expect(r).toMatchObject({ status: 'error', error_message: NO_TESTER_MESSAGE });
    expect(r.error_message).toContain('REHEARSAL_LLM_BASE_URL');
    expect(r.error_message).toContain('REHEARSAL_TESTER_MODEL');
    expect(agent.requests).toHaveLength(0);
  });

  it('tells the judge how the conversation ended and records the judge prompt version', async () => {
    const r = await run({ scenario: scenario({ max_turns: 1 }), llm: { baseUrl: llm.baseUrl, apiKey: llm.apiKey, judgeModel: llm.judgeModel } });
    expect(r).toMatchObject({ end_reason: 'max_turns', judge_prompt_version: JUDGE_PROMPT_VERSION });
    const [call] = llm.judgeCalls();
    expect(call.body!.messages[1].content).toContain('persona: Dana\ngoal: Move the appointment to Friday');
    expect(call.body!.messages[1].content).toContain('end_reason: max_turns: cut off after 1 turn; the caller had 2 lines left\nagent_turns: 1');
    expect(call.body!.messages[1].content).not.toContain('Friday please.'); // the script is not shown
    expect((await run({ llm: {} })).judge_prompt_version).toBeNull();
  });

  it("caps the run's max_turns with the scenario's", async () => {
    const r = await run({ scenario: scenario({ max_turns: 2 }), llm: {}, maxTurns: 10 });
    expect(r.metrics.turn_count).toBe(2);
    expect(r.end_reason).toBe('max_turns');
  });

  it('stops with a tester error when the simulated caller flips roles', async () => {
    llm.setTester(() => 'Hello! How can I help you today?');
    const r = await run();
    expect(r.status).toBe('error');
    expect(r.error_message).toMatch(/^tester: role flip/);
  });

  it('reports judge: invalid output, keeping the deterministic results', async () => {
    llm.setJudge(() => 'not json at all');
    const r = await run();
    expect(r).toMatchObject({ status: 'error', passed: null, grade_summary: null });
    expect(r.error_message).toMatch(/^judge: invalid output/);
    expect(r.criteria_results.map((c) => c.decision)).toEqual(['UNSURE', 'MET', 'MET']);
    expect(llm.judgeCalls()).toHaveLength(2);
  });

  it('cancel during grading ends promptly as run canceled', async () => {
    const ac = new AbortController();
    const t0 = { at: 0 };
    const r = await run({
      signal: ac.signal,
      onGrading: () => {
        llm.server.setLatency(30_000);
        setTimeout(() => {
          t0.at = Date.now();
          ac.abort();
        }, 50);
      },
    });
    expect(Date.now() - t0.at).toBeLessThan(2000);
    expect(r).toMatchObject({ status: 'error', error_message: 'run canceled' });
    expect(r.transcript).toHaveLength(6);
  });

  it('accepts a shared LLM client instead of a base URL', async () => {
    const client = createLlmClient({ baseUrl: llm.baseUrl, apiKey: llm.apiKey, clock: systemClock });
    const r = await run({ llm: { client, testerModel: llm.testerModel, judgeModel: llm.judgeModel } });
    expect(r).toMatchObject({ status: 'passed', tester_model: 'fake-tester', judge_model: 'fake-judge' });
    expect(llm.judgeCalls()).toHaveLength(1);
  });

  it('uses the default judge only for the criteria it was sent', async () => {
    llm.setJudge((v) => {
      expect(v.criteria.map((c) => c.text)).toEqual(['Confirms the booking date']);
      return defaultJudge(v);
    });
    expect((await run()).status).toBe('passed');
  });
});
