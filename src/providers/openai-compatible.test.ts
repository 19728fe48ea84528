import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../lib/clock.js';
import { FakeClock } from '../../test/fakes/fake-clock.js';
import { startFakeAgent, type FakeOpenAiServer, type WireMessage } from '../../test/fakes/openai-agent.js';
import type { ScenarioSpec } from '../engine/types.js';
import { createOpenAiCompatibleAdapter, MAX_TOOL_ROUNDS } from './openai-compatible.js';
import { ProviderError, conversationTimeoutMs } from '../engine/provider.js';

const scenario: ScenarioSpec = {
  id: 's1', name: 'S', persona: null, goal: null, instructions: null, opening_message: null,
  script: ['hi'], criteria: [], pass_threshold: 0.75, max_turns: null,
};
const signal = new AbortController().signal;
const adapter = createOpenAiCompatibleAdapter();

let agent: FakeOpenAiServer;
beforeEach(async () => {
  agent = await startFakeAgent();
});
afterEach(() => agent.close());

const baseConfig = () => ({ base_url: agent.baseUrl, model: 'agent-model', api_key: 'sk-test' });
const open = (config: Record<string, unknown>, clock = new FakeClock()) =>
  adapter.openSession({ config, scenario, runId: 'r', scenarioRunId: 'sr', signal, clock });

describe('openai-compatible session', () => {
  it('keeps the history, sends the system prompt, and has no greeting', async () => {
    const s = await open({ ...baseConfig(), system_prompt: 'You are a receptionist.', temperature: 0.1, extra_headers: { 'x-team': 'qa' } });
    expect(await s.greeting(signal)).toBeNull();
    const first = await s.send('first', signal);
    expect(first).toEqual({ content: 'You said: first', tool_calls: [], ended: false, timing: { overhead_ms: expect.any(Number), lag_ms: expect.any(Number) } });
    // timed on the timing thread: the engine subtracts what was ours from the turn's latency
    expect(first.timing!.overhead_ms).toBeGreaterThanOrEqual(0);
    await s.send('second', signal);
    const last = agent.chatRequests()[1];
    expect(last.headers['x-team']).toBe('qa');
    expect(last.body?.temperature).toBe(0.1);
    expect(last.body?.messages.map((m: WireMessage) => [m.role, m.content])).toEqual([
      ['system', 'You are a receptionist.'],
      ['user', 'first'],
      ['assistant', 'You said: first'],
      ['user', 'second'],
    ]);
  });

  it('answers tool calls from the mocks and records them with their results', async () => {
    agent.setReply((messages) => {
      const last = messages[messages.length - 1];
      if (last.role === 'user') {
        return { content: 'Let me check.', tool_calls: [
          { id: 'c1', name: 'find_slot', arguments: { day: 'tuesday' } },
          { id: 'c2', name: 'unmocked', arguments: '{not json' },
        ] };
      }
      const results = messages.filter((m) => m.role === 'tool').map((m) => m.content);
      return `Booked. (${results.join(' | ')})`;
    });
    const s = await open({
      ...baseConfig(),
      tools: [{ name: 'find_slot', description: 'find', parameters: { type: 'object' } }],
      tool_mocks: { find_slot: { slot: '10:00' } },
    });
    const reply = await s.send('book me', signal);
    expect(reply.content).toBe('Let me check.\nBooked. ({"slot":"10:00"} | {"error":"no mock configured for tool unmocked"})');
    expect(reply.tool_calls).toEqual([
      { id: 'c1', name: 'find_slot', arguments: { day: 'tuesday' }, result: { slot: '10:00' } },
      { id: 'c2', name: 'unmocked', arguments: '{not json', result: { error: 'no mock configured for tool unmocked' } },
    ]);
    const second = agent.chatRequests()[1].body!;
    expect(second.tools).toEqual([{ type: 'function', function: { name: 'find_slot', description: 'find', parameters: { type: 'object' } } }]);
    expect(second.messages.slice(-3).map((m: WireMessage) => [m.role, m.tool_call_id ?? null])).toEqual([
      ['assistant', null], ['tool', 'c1'], ['tool', 'c2'],
    ]);
  });

  it('gives up after a bounded number of tool rounds', async () => {
    agent.setReply(() => ({ tool_calls: [{ name: 'loop', arguments: {} }] }));
    const s = await open(baseConfig());
    await expect(s.send('go', signal)).rejects.toThrow(`provider: agent kept calling tools for ${MAX_TOOL_ROUNDS} rounds`);
    expect(agent.chatRequests()).toHaveLength(MAX_TOOL_ROUNDS);
  });

  it('prices usage with the configured prices, null without them', async () => {
    agent.setReply(() => ({ content: 'ok', usage: { prompt_tokens: 1000, completion_tokens: 500 } }));
    const priced = await open({ ...baseConfig(), price_per_1k_input: 0.5, price_per_1k_output: 2 });
    await priced.send('a', signal);
    await priced.send('b', signal);
    expect(priced.costUsd()).toBeCloseTo(2 * (0.5 + 1), 10);
    const unpriced = await open(baseConfig());
    await unpriced.send('a', signal);
    expect(unpriced.costUsd()).toBeNull();
  });

  it('turns a 401 into ProviderError invalid_credentials, not retried', async () => {
    const s = await open({ ...baseConfig(), api_key: 'sk-wrong' });
    const err = await s.send('x', signal).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toMatchObject({ kind: 'invalid_credentials', status: 401 });
    expect((err as Error).message).toMatch(/^provider: 401 Incorrect API key provided/);
    expect(agent.chatRequests()).toHaveLength(1);
  });

  it('close is idempotent and ends the session', async () => {
    const s = await open(baseConfig());
    await s.close('completed');
    await s.close('error');
    await expect(s.send('x', signal)).rejects.toThrow(/session already closed/);
  });
});

describe('openai-compatible legacy function_call and arguments as sent', () => {
  it('a legacy function_call is one tool call answered from tool_mocks with a function message, then the text', async () => {
    agent.setReply((messages) => {
      const last = messages[messages.length - 1];
      if (last.role === 'function') return `Order ${JSON.parse(last.content ?? '{}').status}.`;
      return { content: null, function_call: { name: 'lookup_order', arguments: '{"order_id":"A-17"}' } };
    });
    const s = await open({ ...baseConfig(), tool_mocks: { lookup_order: { status: 'shipped' } } });
    expect(await s.send('Where is A-17?', signal)).toEqual({
      content: 'Order shipped.', ended: false, timing: expect.any(Object),
      tool_calls: [{ id: 'function_call_1', name: 'lookup_order', arguments: { order_id: 'A-17' }, result: { status: 'shipped' } }],
    });
    const second = agent.chatRequests()[1].body!.messages.slice(-2);
    expect(second).toEqual([
      { role: 'assistant', content: null, function_call: { name: 'lookup_order', arguments: '{"order_id":"A-17"}' } },
      { role: 'function', name: 'lookup_order', content: '{"status":"shipped"}' },
    ]);
  });

  it('tool arguments null are recorded as null, not {}', async () => {
    agent.setReply((messages) => (messages[messages.length - 1].role === 'tool' ? 'Done.' : { content: null, tool_calls: [{ id: 'call_n', name: 'ping', arguments: null }] }));
    const s = await open({ ...baseConfig(), tool_mocks: { ping: 'pong' } });
    expect((await s.send('Ping it', signal)).tool_calls).toEqual([{ id: 'call_n', name: 'ping', arguments: null, result: 'pong' }]);
    agent.setReply((messages) => (messages[messages.length - 1].role === 'function' ? 'Done.' : { content: null, function_call: { name: 'ping', arguments: null } }));
    expect((await s.send('Again', signal)).tool_calls).toEqual([{ id: 'function_call_1', name: 'ping', arguments: null, result: 'pong' }]);
  });
});

describe('openai-compatible validate', () => {
  const v = (config: Record<string, unknown>) => adapter.validate(config, { signal, clock: systemClock });

  it('is valid on 200 from /models', async () => {
    expect(await v(baseConfig())).toMatchObject({ valid: true });
    expect(agent.requests[0]).toMatchObject({ method: 'GET', path: '/v1/models' });
  });

  it('maps 401 to invalid_credentials', async () => {
    const r = await v({ ...baseConfig(), api_key: 'nope' });
    expect(r).toMatchObject({ valid: false, details: { error_code: 'invalid_credentials', status: 401 } });
    expect(r.message).toMatch(/^provider: 401 Incorrect API key/);
  });

  it('a server without GET /models: valid but not verified, and no completion is sent', async () => {
    await agent.close();
    agent = await startFakeAgent({ models: null });
    const r = await v(baseConfig());
    expect(r).toEqual({
      valid: true,
      message: 'not verified: the endpoint has no model list (GET /models answered 404); the API key and model are proven by the first run',
      details: { status: 404, verified: false, not_checked: ['api_key', 'model'] },
    });
    expect(agent.requests.map((q) => `${q.method} ${q.path}`)).toEqual(['GET /v1/models']);
  });

  it('maps other statuses to provider_error', async () => {
    agent.inject('server_error', { on: 'models', status: 503 });
    expect((await v(baseConfig())).details).toEqual({ error_code: 'provider_error', status: 503 });
  });

  it('maps a closed port to unreachable and a hang to timeout', async () => {
    agent.inject('hang', { on: 'models' });
    const t0 = Date.now();
    expect((await v({ ...baseConfig(), timeout_ms: 200 })).details.error_code).toBe('timeout');
    expect(Date.now() - t0).toBeLessThan(5000);
    const url = agent.baseUrl;
    await agent.close();
    expect((await v({ ...baseConfig(), base_url: url })).details.error_code).toBe('unreachable');
    agent = await startFakeAgent();
  });
});

describe('conversationTimeoutMs', () => {
  it('reads timeout_ms, defaulting to 120 s', () => {
    expect(conversationTimeoutMs({ timeout_ms: 5000 })).toBe(5000);
    expect(conversationTimeoutMs({})).toBe(120_000);
    expect(conversationTimeoutMs(null)).toBe(120_000);
    expect(conversationTimeoutMs({ timeout_ms: -1 })).toBe(120_000);
  });
});
