import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/lib/clock.js';
import { runScenario } from '../../src/engine/scenario-runner.js';
import type { ScenarioSpec } from '../../src/engine/types.js';
import { createVapiAdapter } from '../../src/providers/vapi.js';
import { ProviderError } from '../../src/engine/provider.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { AGENT_CALL_COST, CALL_COST, CHAT_COST, SESSION_EXTRA_COST, startFakeVapi, VAPI_ASSISTANT, VAPI_KEY, VAPI_PHONE_NUMBER_ID, type FakeVapi } from '../fakes/vapi.js';
import { adapterContract } from './adapter-contract.js';

const config = (fake: FakeVapi, over: Record<string, unknown> = {}) => ({ api_key: VAPI_KEY, assistant_id: VAPI_ASSISTANT, base_url: fake.baseUrl, ...over });

adapterContract(
  'provider_1 (Vapi, chat)',
  () => startFakeVapi(),
  (fake, o = {}) => config(fake as FakeVapi, {
    ...(o.badKey ? { api_key: 'vapi-wrong-key-77' } : {}),
    ...(o.unknownAgent ? { assistant_id: 'asst-missing' } : {}),
    ...(o.baseUrl ? { base_url: o.baseUrl } : {}),
    ...(o.timeoutMs ? { timeout_ms: o.timeoutMs } : {}),
  }),
  { adapter: () => createVapiAdapter(), greeting: false, sessions: true, validateNotFound: true },
);

const scenario: ScenarioSpec = {
  id: 'scn-1', name: 'Track a parcel', persona: 'Ada, a busy customer', goal: 'Learn when order A-17 arrives', instructions: 'Be brief.',
  opening_message: null, script: ['Hi, where is my order?', 'It is A-17.'], criteria: [{ criterion: 'answered', max_points: 1, required: false, check: { type: 'responded_every_turn' } }],
  pass_threshold: 0.5, max_turns: null,
};
const never = () => new AbortController().signal;

let fake: FakeVapi;
beforeEach(async () => {
  fake = await startFakeVapi();
});
afterEach(() => fake.close());

const open = (cfg: Record<string, unknown>, clock = new FakeClock(), adapter = createVapiAdapter({ callPollMs: 500 })) =>
  adapter.openSession({ config: cfg, scenario, runId: 'run-1', scenarioRunId: 'sr-1', signal: never(), clock });

describe('Vapi chat path', () => {
  it('creates a session, sends one POST /chat per line with the session, ends and reads it back for the cost', async () => {
    const s = await open(config(fake, { variable_values: { customer: 'Ada' } }));
    expect(await s.greeting(never())).toBeNull();
    // a chat turn is timed on the timing thread: the engine subtracts what was ours
    expect(await s.send('Hello', never())).toEqual({ content: 'Agent heard: Hello', tool_calls: [], ended: false, timing: { overhead_ms: expect.any(Number), lag_ms: expect.any(Number) } });
    await s.send('Again', never());
    await s.close('completed');
    const reqs = fake.requests();
    expect(reqs.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /session', 'POST /chat', 'POST /chat', 'PATCH /session/' + [...fake.sessions.keys()][0], 'GET /session/' + [...fake.sessions.keys()][0]]);
    expect(reqs[0].body).toEqual({ assistantId: VAPI_ASSISTANT, name: 'rehearsal sr-1', assistantOverrides: { variableValues: { customer: 'Ada' } } });
    expect(reqs[1].body).toEqual({ sessionId: [...fake.sessions.keys()][0], input: 'Hello' });
    expect(reqs.every((r) => r.headers.authorization === `Bearer ${VAPI_KEY}`)).toBe(true);
    expect(reqs[3].body).toEqual({ status: 'completed' });
    expect(s.costUsd()).toBeCloseTo(2 * CHAT_COST + SESSION_EXTRA_COST, 8);
    await s.close('completed'); // safe twice
    expect(fake.requests()).toHaveLength(5);
  });

  it('reads tool calls from output[] before the final text, with parsed arguments and results', async () => {
    fake.setAgent({ greeting: null, reply: () => ({ content: 'It ships Friday.', tool_calls: [{ name: 'lookup_order', arguments: { id: 'A-17' }, result: { eta: 'Friday' } }, { name: 'notify', arguments: {}, result: 'ok' }] }) });
    const s = await open(config(fake));
    const r = await s.send('Where is A-17?', never());
    expect(r.content).toBe('It ships Friday.');
    expect(r.tool_calls).toEqual([
      { id: expect.stringMatching(/^call_/), name: 'lookup_order', arguments: { id: 'A-17' }, result: { eta: 'Friday' } },
      { id: expect.stringMatching(/^call_/), name: 'notify', arguments: {}, result: 'ok' },
    ]);
  });

  it('falls back to the sum of the chat costs when the session read-back fails', async () => {
    const s = await open(config(fake));
    await s.send('Hello', never());
    fake.inject('server_error', { on: 'session_get' });
    await s.close('completed');
    expect(s.costUsd()).toBeCloseTo(CHAT_COST, 8);
  });

  it('cancel only ends the session (no read-back)', async () => {
    const s = await open(config(fake));
    await s.send('Hello', never());
    await s.close('canceled');
    expect(fake.openSessions()).toBe(0);
    expect(fake.requests().map((r) => r.method).slice(-1)).toEqual(['PATCH']);
  });
});

describe('Vapi retries (decisions §9) on an injected clock', () => {
  it('429 three times: waits 2 s, 4 s, 8 s, then succeeds', async () => {
    const clock = new FakeClock();
    const s = await open(config(fake), clock);
    fake.inject('rate_limited', { times: 3 });
    expect((await s.send('Hello', never())).content).toBe('Agent heard: Hello');
    expect(clock.sleeps).toEqual([2000, 4000, 8000]);
  });

  it('a fourth 429 is the end: the error says provider: 429 and what Vapi said', async () => {
    const clock = new FakeClock();
    const s = await open(config(fake), clock);
    fake.inject('rate_limited', { times: 4 });
    const err = await s.send('Hello', never()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).message).toBe('provider: 429 Rate limit exceeded');
    expect((err as ProviderError).kind).toBe('rate_limited');
    expect(clock.sleeps).toEqual([2000, 4000, 8000]);
  });

  it('Retry-After takes precedence when longer than the schedule, never shorter', async () => {
    const clock = new FakeClock();
    const s = await open(config(fake), clock);
    fake.inject('rate_limited', { retryAfter: '10' });
    await s.send('a', never());
    fake.inject('rate_limited', { retryAfter: '1' });
    await s.send('b', never());
    fake.inject('rate_limited', { retryAfter: new Date(clock.now() + 30_000).toUTCString() });
    await s.send('c', never());
    expect(clock.sleeps[0]).toBe(10_000);
    expect(clock.sleeps[1]).toBe(2000);
    expect(clock.sleeps[2]).toBeGreaterThan(25_000);
  });

  it('500, 502, 503 and 504 are retried on the same schedule', async () => {
    const clock = new FakeClock();
    const s = await open(config(fake), clock);
    for (const status of [500, 502, 503]) fake.inject('server_error', { status });
    await s.send('Hello', never());
    fake.inject('server_error', { status: 504 });
    await s.send('Again', never());
    expect(clock.sleeps).toEqual([2000, 4000, 8000, 2000]);
  });

  it('402 (no payment method) and 401 are never retried; 401 is invalid_credentials', async () => {
    const clock = new FakeClock();
    const s = await open(config(fake), clock);
    fake.inject('payment_required');
    await expect(s.send('Hello', never())).rejects.toThrow('provider: 402 Please add a payment method to use chat.');
    fake.inject('unauthorized');
    const err = (await s.send('Hello', never()).catch((e: unknown) => e)) as ProviderError;
    expect(err.kind).toBe('invalid_credentials');
    expect(err.message).toMatch(/^provider: 401 Invalid Key/);
    expect(clock.sleeps).toEqual([]);
  });

  it('a malformed body is a provider error, not retried', async () => {
    const clock = new FakeClock();
    const s = await open(config(fake), clock);
    fake.inject('malformed_json');
    await expect(s.send('Hello', never())).rejects.toThrow(/^provider: malformed response from POST \/chat \(not JSON\)/);
    expect(clock.sleeps).toEqual([]);
  });

  it('a slow answer gives way to the abort signal at once', async () => {
    fake.inject('hang');
    const s = await open(config(fake));
    const ac = new AbortController();
    const p = s.send('Hello', ac.signal);
    await new Promise((r) => setTimeout(r, 50));
    ac.abort(new Error('timeout: conversation exceeded 50 ms'));
    await expect(p).rejects.toThrow('timeout: conversation exceeded 50 ms');
  });
});

describe('Vapi voice path (mode "call")', () => {
  const callConfig = (over: Record<string, unknown> = {}) => config(fake, { phone_number: '+14155550123', phone_number_id: VAPI_PHONE_NUMBER_ID, metadata: { team: 'qa' }, ...over });
  const run = (cfg: Record<string, unknown>, signal = never()) =>
    runScenario({ scenario, maxTurns: 5, adapter: createVapiAdapter({ callPollMs: 20 }), config: cfg, llm: {}, clock: systemClock, signal, ids: { runId: 'run-1', scenarioRunId: 'sr-1' } });

  it('places the call with a transient tester, polls it to the end and takes the agent-side transcript, tool calls, latencies and cost', async () => {
    fake.setAgent({ greeting: 'Acme deliveries, how can I help?', reply: (t) => (/A-17/.test(t) ? { content: 'A-17 arrives Friday.', tool_calls: [{ name: 'lookup_order', arguments: { id: 'A-17' }, result: { eta: 'Friday' } }] } : { content: 'Which order?' }) });
    const r = await run(callConfig());
    expect(r.error_message).toBeNull();
    const create = fake.requests().find((q) => q.method === 'POST' && q.path === '/call')!;
    expect(create.body).toMatchObject({ phoneNumberId: VAPI_PHONE_NUMBER_ID, customer: { number: '+14155550123' }, assistant: { firstMessageMode: 'assistant-waits-for-user', model: { tools: [{ type: 'endCall' }] } } });
    expect(create.body.assistant).not.toHaveProperty('endCallFunctionEnabled');
    expect(create.body.assistantOverrides.metadata).toEqual({ team: 'qa', rehearsal_run_id: 'run-1', rehearsal_scenario_run_id: 'sr-1' });
    expect(create.body).not.toHaveProperty('metadata');
    const prompt = create.body.assistant.model.messages[0].content as string;
    for (const part of ['Ada, a busy customer', 'Learn when order A-17 arrives', 'Be brief.', '1. Hi, where is my order?', '2. It is A-17.']) expect(prompt).toContain(part);
    expect(fake.requests().filter((q) => q.method === 'GET' && q.path.startsWith('/call/')).length).toBeGreaterThanOrEqual(3);

    expect(r.transcript.map((e) => [e.role, e.content])).toEqual([
      ['assistant', 'Acme deliveries, how can I help?'], ['user', 'Hi, where is my order?'], ['assistant', 'Which order?'], ['user', 'It is A-17.'], ['assistant', 'A-17 arrives Friday.'],
    ]);
    expect(r.transcript[4].tool_calls).toEqual([{ id: expect.any(String), name: 'lookup_order', arguments: { id: 'A-17' }, result: { eta: 'Friday' } }]);
    expect(r.transcript[0].latency_ms).toBeNull();
    expect([r.transcript[2].latency_ms, r.transcript[4].latency_ms]).toEqual([700, 710]); // artifact.performanceMetrics.turnLatencies
    expect(r.metrics).toMatchObject({ turn_count: 2, time_to_first_response_ms: 700, average_turn_duration_ms: 705 });
    expect(r.metrics.cost_usd).toBeCloseTo(CALL_COST + AGENT_CALL_COST, 8);
    // our caller hung up (assistant-ended-call), played by the configured voice tester model, told the run's max_turns
    expect(r).toMatchObject({ end_reason: 'tester_ended', agent_turns: 3, tester_model: 'vapi:openai/gpt-4o-mini' });
    expect(create.body.assistant.model).toMatchObject({ provider: 'openai', model: 'gpt-4o-mini' });
    expect(prompt).toContain('Keep the call to at most 5 of your turns.');
  });

  it('end_reason comes from the call\'s endedReason; a call nobody answered is not graded; the voice tester model is configurable', async () => {
    fake.setAgent({ greeting: null, reply: (t) => ({ content: `Agent heard: ${t}` }) });
    const runWith = (reason: string, voiceTesterModel?: string) => {
      fake.setEndedReason(reason);
      return runScenario({
        scenario, maxTurns: 3, adapter: createVapiAdapter({ callPollMs: 20 }), config: callConfig(), llm: { voiceTesterModel }, clock: systemClock, signal: never(),
        ids: { runId: 'run-1', scenarioRunId: 'sr-1' },
      });
    };
    try {
      const hungUp = await runWith('customer-ended-call', 'anthropic/claude-3-5-haiku');
      expect(hungUp).toMatchObject({ end_reason: 'agent_ended', tester_model: 'vapi:anthropic/claude-3-5-haiku' });
      const create = fake.requests().filter((q) => q.method === 'POST' && q.path === '/call').pop()!;
      expect(create.body.assistant.model).toMatchObject({ provider: 'anthropic', model: 'claude-3-5-haiku' });
      expect(create.body.assistant.model.messages[0].content).toContain('Keep the call to at most 3 of your turns.');
      for (const reason of ['customer-did-not-answer', 'customer-busy']) {
        expect(await runWith(reason)).toMatchObject({
          status: 'error', end_reason: 'agent_ended', agent_turns: 0, error_message: 'agent: did not answer the call', outcome: { fault: 'agent' }, criteria_results: [],
        });
      }
      for (const reason of ['exceeded-max-duration', 'silence-timed-out']) {
        expect(await runWith(reason)).toMatchObject({ status: 'error', end_reason: 'timeout', outcome: { fault: 'agent', kind: 'conversation_timeout' } });
      }
      expect(await runWith('pipeline-error-openai-llm-failed')).toMatchObject({
        status: 'error', end_reason: 'error', error_message: 'provider: call ended: pipeline-error-openai-llm-failed', outcome: { fault: 'provider' },
      });
    } finally {
      fake.setEndedReason('assistant-ended-call');
    }
  });

  it('without the agent-side record, reads our own call with the roles swapped and latencies from message timing', async () => {
    fake.setAgentSideCalls(false);
    const r = await run(callConfig({ mode: 'call' }));
    expect(r.error_message).toBeNull();
    expect(r.transcript.map((e) => [e.role, e.content])).toEqual([['user', 'Hi, where is my order?'], ['assistant', 'Agent heard: Hi, where is my order?'], ['user', 'It is A-17.'], ['assistant', 'Agent heard: It is A-17.']]);
    expect(r.transcript[1].latency_ms).toBe(700);
    expect(r.metrics.cost_usd).toBeCloseTo(CALL_COST, 8);
  });

  it('cancel hangs up through the live-call control URL', async () => {
    fake.setCallPolls(1_000_000);
    const ac = new AbortController();
    const created = fake.http.nextRequest((q) => q.path === '/call' && q.method === 'POST');
    const p = run(callConfig(), ac.signal);
    await created;
    await fake.http.nextRequest((q) => q.path.startsWith('/call/'));
    ac.abort(new Error('cancel'));
    expect((await p).error_message).toBe('run canceled');
    const control = fake.requests().find((q) => q.path.startsWith('/control/'));
    expect(control?.body).toEqual({ type: 'end-call' });
    expect(control?.headers.authorization).toBeUndefined();
    expect([...fake.calls.values()].every((c) => c.status === 'ended')).toBe(true);
  });

  it('POST /call is retried on 429 and 500 only (a 503 may have created the call)', async () => {
    const clock = new FakeClock();
    fake.inject('rate_limited', { on: 'call_create' });
    fake.inject('server_error', { on: 'call_create' });
    const s = await open(callConfig(), clock);
    const reply = await s.greeting(never());
    expect(reply?.ended).toBe(true);
    expect(clock.sleeps.slice(0, 2)).toEqual([2000, 4000]);
    fake.inject('server_error', { on: 'call_create', status: 503 });
    const s2 = await open(callConfig(), new FakeClock());
    await expect(s2.greeting(never())).rejects.toThrow(/^provider: 503 /);
  });
});

describe('Vapi validate', () => {
  const check = (cfg: Record<string, unknown>, clock = systemClock) => createVapiAdapter().validate(cfg, { signal: never(), clock });
  it('GET /assistant/{id} with the key', async () => {
    expect(await check(config(fake))).toMatchObject({ valid: true });
    expect(fake.requests()[0]).toMatchObject({ method: 'GET', path: `/assistant/${VAPI_ASSISTANT}` });
  });
  it('404 → not_found with Vapi\'s message; 5xx → provider_error; no answer → timeout', async () => {
    const nf = await check(config(fake, { assistant_id: 'nope' }));
    expect(nf).toMatchObject({ valid: false, details: { error_code: 'not_found', status: 404 } });
    expect(nf.message).toMatch(/^provider: 404 Couldn't Get Assistant/);
    fake.inject('server_error', { on: 'assistant' });
    expect(await check(config(fake))).toMatchObject({ valid: false, details: { error_code: 'provider_error', status: 500 } });
    fake.inject('hang', { on: 'assistant' });
    expect(await check(config(fake), new FakeClock())).toMatchObject({ valid: false, details: { error_code: 'timeout' } });
  });
});
