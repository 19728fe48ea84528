import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../lib/clock.js';
import { createOpenAiCompatibleAdapter } from '../providers/openai-compatible.js';
import type { ProviderSession } from './provider.js';
import { startFakeAgent, type FakeOpenAiServer } from '../../test/fakes/openai-agent.js';
import { runConversation } from './conversation.js';
import { createScriptedTester } from './tester/scripted.js';
import { TesterError, type Tester } from './tester/types.js';
import type { ScenarioSpec, TranscriptEntry } from './types.js';

const scenario: ScenarioSpec = {
  id: 's', name: 'S', persona: null, goal: null, instructions: null, opening_message: null,
  script: [], criteria: [], pass_threshold: 0.75, max_turns: null,
};
const adapter = createOpenAiCompatibleAdapter();
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let agent: FakeOpenAiServer;
beforeEach(async () => {
  agent = await startFakeAgent();
});
afterEach(() => agent.close());

/** The real provider_4 session against the fake agent, recording close() calls. */
async function session(config: Record<string, unknown> = {}) {
  const s = await adapter.openSession({
    config: { base_url: agent.baseUrl, model: 'agent', api_key: 'sk-test', ...config },
    scenario, runId: 'r', scenarioRunId: 'sr', signal: new AbortController().signal, clock: systemClock,
  });
  const closes: string[] = [];
  const close = s.close.bind(s);
  s.close = async (reason) => {
    closes.push(reason);
    await close(reason);
  };
  return { s, closes };
}

const run = (s: ProviderSession, tester: Tester, over: Partial<Parameters<typeof runConversation>[0]> = {}) =>
  runConversation({ session: s, tester, maxTurns: 10, timeoutMs: 20_000, clock: systemClock, signal: new AbortController().signal, ...over });

describe('runConversation', () => {
  it('alternates tester and agent, timestamps entries, records latency, persists each entry in order', async () => {
    agent.setLatency(60);
    const { s, closes } = await session({ price_per_1k_input: 1, price_per_1k_output: 1 });
    const seen: [number, string][] = [];
    const res = await run(s, createScriptedTester(['Hello', 'Bye']), { onEntry: async (e, i) => void seen.push([i, e.role]) });
    expect(res.error).toBeNull();
    expect(res.end_reason).toBe('tester_ended');
    expect(res.transcript.map((e) => [e.role, e.content])).toEqual([
      ['user', 'Hello'], ['assistant', 'You said: Hello'], ['user', 'Bye'], ['assistant', 'You said: Bye'],
    ]);
    expect(seen).toEqual([[0, 'user'], [1, 'assistant'], [2, 'user'], [3, 'assistant']]);
    for (const e of res.transcript) expect(e.timestamp).toMatch(ISO_MS);
    const latencies = res.transcript.filter((e) => e.role === 'assistant').map((e) => e.latency_ms!);
    for (const l of latencies) expect(l).toBeGreaterThanOrEqual(55);
    expect(res.turn_durations_ms).toEqual(latencies);
    expect(res.transcript[0]).not.toHaveProperty('latency_ms');
    expect(res.turn_count).toBe(2);
    expect(res.cost_usd).toBeGreaterThan(0);
    expect(closes).toEqual(['completed']);
  });

  it('records a greeting that is not a turn', async () => {
    const { s } = await session();
    s.greeting = async () => ({ content: 'Acme Dental, how can I help?', tool_calls: [], ended: false });
    const res = await run(s, createScriptedTester(['Hi', 'More', 'Again']), { maxTurns: 2 });
    expect(res.transcript.map((e) => e.role)).toEqual(['assistant', 'user', 'assistant', 'user', 'assistant']);
    expect(res.transcript[0]).toMatchObject({ content: 'Acme Dental, how can I help?', latency_ms: null });
    expect(res.turn_count).toBe(2);
    expect(res.turn_durations_ms).toHaveLength(2);
  });

  it('stops at max_turns', async () => {
    const { s } = await session();
    const res = await run(s, createScriptedTester(['1', '2', '3', '4', '5']), { maxTurns: 3 });
    expect(res.end_reason).toBe('max_turns');
    expect(res.turn_count).toBe(3);
    expect(agent.chatRequests()).toHaveLength(3);
  });

  it('stops when the agent hangs up', async () => {
    const { s } = await session();
    const send = s.send.bind(s);
    s.send = async (text, signal) => ({ ...(await send(text, signal)), ended: text === 'bye' });
    const res = await run(s, createScriptedTester(['hi', 'bye', 'never sent']));
    expect(res.end_reason).toBe('agent_ended');
    expect(res.transcript.at(-1)).toMatchObject({ role: 'assistant', content: 'You said: bye' });
    expect(res.turn_count).toBe(2);
  });

  it('answers tool calls from the mocks and records them on the agent entry', async () => {
    agent.setReply((messages) =>
      messages.at(-1)!.role === 'tool' ? 'Your order has shipped.' : { tool_calls: [{ id: 'c9', name: 'order_status', arguments: { order: '42' } }] });
    const { s } = await session({ tool_mocks: { order_status: { status: 'shipped' } } });
    const res = await run(s, createScriptedTester(['Where is order 42?']));
    expect(res.transcript[1]).toMatchObject({
      role: 'assistant',
      content: 'Your order has shipped.',
      tool_calls: [{ id: 'c9', name: 'order_status', arguments: { order: '42' }, result: { status: 'shipped' } }],
    });
  });

  it('times out against a hanging agent, keeping the partial transcript', async () => {
    const { s, closes } = await session();
    agent.inject('hang', { times: Infinity });
    const t0 = Date.now();
    const res = await run(s, createScriptedTester(['hello?']), { timeoutMs: 300 });
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(res.end_reason).toBe('timeout');
    expect(res.error).toMatchObject({ side: 'timeout', message: 'timeout: conversation exceeded 300 ms' });
    expect(res.transcript.map((e) => e.role)).toEqual(['user']);
    expect(closes).toEqual(['error']);
  });

  it('cancel mid-turn aborts the in-flight provider call promptly', async () => {
    agent.setLatency(30_000);
    const { s, closes } = await session();
    const ac = new AbortController();
    const p = run(s, createScriptedTester(['hello', 'again']), { signal: ac.signal });
    await agent.nextRequest();
    const t0 = Date.now();
    ac.abort();
    const res = await p;
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(res.end_reason).toBe('canceled');
    expect(res.error?.message).toBe('run canceled');
    expect(closes).toEqual(['canceled']);
    expect(agent.chatRequests()).toHaveLength(1);
  });

  it('cancel wins even when the session ignores its signal', async () => {
    const { s } = await session();
    s.send = () => new Promise(() => undefined);
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    const res = await run(s, createScriptedTester(['x']), { signal: ac.signal });
    expect(res.error?.message).toBe('run canceled');
  });

  it('reports provider, tester and persistence failures with their side', async () => {
    const bad = await session({ api_key: 'wrong' });
    const p = await run(bad.s, createScriptedTester(['x']));
    expect(p.error).toMatchObject({ side: 'provider' });
    expect(p.error?.message).toMatch(/^provider: 401 /);
    expect(bad.closes).toEqual(['error']);

    const failingTester: Tester = { model: 'm', next: async () => { throw new TesterError('role flip'); } };
    expect((await run((await session()).s, failingTester)).error).toMatchObject({ side: 'tester', message: 'tester: role flip' });

    const onEntry = async (_e: TranscriptEntry, i: number) => {
      if (i === 1) throw new Error('disk full');
    };
    const w = await run((await session()).s, createScriptedTester(['a', 'b']), { onEntry });
    expect(w.error).toMatchObject({ side: 'internal', message: 'internal: disk full' });
  });
});
