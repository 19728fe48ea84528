import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import OpenAI, { AuthenticationError, InternalServerError, RateLimitError } from 'openai';
import type { ChatCompletionCreateParamsNonStreaming, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { ScenarioSpec } from '../../src/engine/types.js';
import { createOpenAiCompatibleAdapter } from '../../src/providers/openai-compatible.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { startFakeAgent, type FakeOpenAiServer } from '../fakes/openai-agent.js';

// provider_4 checked against the official `openai` client: it performs the adapter's operations against our fake
// and parses the answers; the adapter's request bodies equal what the official client sends for the same
// parameters, whose types the compiler checks.

const scenario: ScenarioSpec = { id: 's', name: 'S', persona: null, goal: null, instructions: null, opening_message: null, script: ['hi'], criteria: [], pass_threshold: 0.75, max_turns: null };
const never = () => new AbortController().signal;
const TOOL = { type: 'function' as const, function: { name: 'lookup_order', description: 'Find an order', parameters: { type: 'object', properties: { order_id: { type: 'string' } } } } };

let agent: FakeOpenAiServer;
let client: OpenAI;
beforeEach(async () => {
  agent = await startFakeAgent();
  client = new OpenAI({ apiKey: 'sk-test', baseURL: agent.baseUrl, maxRetries: 0 });
});
afterEach(() => agent.close());

describe('provider_4 against openai', () => {
  it('the adapter\'s requests equal the official client\'s: tools, tool results and legacy function results', async () => {
    agent.setReply((messages) => {
      const last = messages[messages.length - 1];
      if (last.role === 'tool' || last.role === 'function') return 'It shipped.';
      if (/legacy/.test(last.content ?? '')) return { content: null, function_call: { name: 'lookup_order', arguments: '{"order_id":"A-17"}' } };
      return { content: null, tool_calls: [{ id: 'call_1', name: 'lookup_order', arguments: { order_id: 'A-17' } }] };
    });
    const s = await createOpenAiCompatibleAdapter().openSession({
      config: { base_url: agent.baseUrl, model: 'agent-model', api_key: 'sk-test', system_prompt: 'You track orders.', tools: [TOOL], tool_mocks: { lookup_order: { status: 'shipped' } }, temperature: 0.2, max_completion_tokens: 200 },
      scenario, runId: 'r', scenarioRunId: 'sr', signal: never(), clock: new FakeClock(),
    });
    await s.send('Where is A-17?', never());
    await s.send('And the legacy way?', never());
    const ours = agent.chatRequests().map((r) => r.body);

    const history: ChatCompletionMessageParam[] = [
      { role: 'system', content: 'You track orders.' },
      { role: 'user', content: 'Where is A-17?' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup_order', arguments: '{"order_id":"A-17"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: '{"status":"shipped"}' },
      { role: 'assistant', content: 'It shipped.' },
      { role: 'user', content: 'And the legacy way?' },
      { role: 'assistant', content: null, function_call: { name: 'lookup_order', arguments: '{"order_id":"A-17"}' } },
      { role: 'function', name: 'lookup_order', content: '{"status":"shipped"}' },
    ];
    const base = { model: 'agent-model', tools: [TOOL], temperature: 0.2, max_completion_tokens: 200 };
    const steps = [2, 4, 6, 8];
    const from = agent.chatRequests().length;
    for (const n of steps) {
      const params: ChatCompletionCreateParamsNonStreaming = { ...base, messages: history.slice(0, n) };
      await client.chat.completions.create(params);
    }
    const theirs = agent.chatRequests().slice(from).map((r) => r.body);
    expect(ours).toEqual(theirs);
  });

  it('the official client parses every answer of the fake, legacy function_call and null arguments included', async () => {
    agent.setReply(() => ({ content: null, tool_calls: [{ id: 'call_n', name: 'ping', arguments: null }] }));
    const withTools = await client.chat.completions.create({ model: 'agent-model', messages: [{ role: 'user', content: 'x' }] });
    expect(withTools.choices[0].finish_reason).toBe('tool_calls');
    agent.setReply(() => ({ content: null, function_call: { name: 'ping', arguments: '{}' } }));
    const legacy = await client.chat.completions.create({ model: 'agent-model', messages: [{ role: 'user', content: 'x' }] });
    expect(legacy.choices[0]).toMatchObject({ finish_reason: 'function_call', message: { function_call: { name: 'ping', arguments: '{}' } } });
    expect(legacy.usage?.prompt_tokens).toBeGreaterThan(0);
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toEqual(['fake-agent-1']);
  });

  it('errors the adapter maps: 401 credentials, 429 and 5xx transient; a server without /models answers 404', async () => {
    const bad = new OpenAI({ apiKey: 'sk-wrong', baseURL: agent.baseUrl, maxRetries: 0 });
    await expect(bad.models.list()).rejects.toBeInstanceOf(AuthenticationError);
    agent.inject('rate_limited');
    await expect(client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] })).rejects.toBeInstanceOf(RateLimitError);
    agent.inject('server_error', { status: 503 });
    await expect(client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] })).rejects.toBeInstanceOf(InternalServerError);
    await agent.close();
    agent = await startFakeAgent({ models: null });
    const noList = new OpenAI({ apiKey: 'sk-test', baseURL: agent.baseUrl, maxRetries: 0 });
    await expect(noList.models.list()).rejects.toMatchObject({ status: 404 });
  });
});
