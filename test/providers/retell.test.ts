import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/lib/clock.js';
import type { ScenarioSpec } from '../../src/engine/types.js';
import { createRetellAdapter } from '../../src/providers/retell.js';
import { ProviderError } from '../../src/engine/provider.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { CENTS_PER_MESSAGE, RETELL_AGENT, RETELL_KEY, startFakeRetell, type FakeRetell } from '../fakes/retell.js';
import { adapterContract } from './adapter-contract.js';

const config = (fake: FakeRetell, over: Record<string, unknown> = {}) => ({ api_key: RETELL_KEY, agent_id: RETELL_AGENT, base_url: fake.baseUrl, ...over });

adapterContract(
  'provider_5 (Retell AI)',
  () => startFakeRetell(),
  (fake, o = {}) => config(fake as FakeRetell, {
    ...(o.badKey ? { api_key: 'key_wrong_000' } : {}),
    ...(o.unknownAgent ? { agent_id: 'agent_missing' } : {}),
    ...(o.baseUrl ? { base_url: o.baseUrl } : {}),
    ...(o.timeoutMs ? { timeout_ms: o.timeoutMs } : {}),
  }),
  { adapter: () => createRetellAdapter(), greeting: true, sessions: true, validateNotFound: true, hangUp: true },
);

const scenario: ScenarioSpec = { id: 's', name: 'S', persona: null, goal: null, instructions: null, opening_message: null, script: ['hi'], criteria: [], pass_threshold: 0.75, max_turns: null };
const never = () => new AbortController().signal;

let fake: FakeRetell;
beforeEach(async () => {
  fake = await startFakeRetell();
});
afterEach(() => fake.close());

const open = (cfg: Record<string, unknown>, clock = new FakeClock()) =>
  createRetellAdapter().openSession({ config: cfg, scenario, runId: 'run-1', scenarioRunId: 'sr-1', signal: never(), clock });

describe('Retell chat', () => {
  it('create-chat with version, metadata and dynamic variables; one completion per line; end-chat (204) then get-chat for the cost in cents', async () => {
    const s = await open(config(fake, { agent_version: 3, metadata: { team: 'qa' }, dynamic_variables: { clinic: 'Northside' } }));
    await s.send('Hello', never());
    await s.send('Bye', never());
    await s.close('completed');
    const reqs = fake.requests();
    const chatId = [...fake.chats.keys()][0];
    expect(reqs.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /create-chat', 'POST /create-chat-completion', 'POST /create-chat-completion', `PATCH /end-chat/${chatId}`, `GET /get-chat/${chatId}`]);
    expect(reqs[0].body).toEqual({ agent_id: RETELL_AGENT, agent_version: 3, metadata: { team: 'qa', rehearsal_run_id: 'run-1', rehearsal_scenario_run_id: 'sr-1' }, retell_llm_dynamic_variables: { clinic: 'Northside' } });
    expect(reqs[1].body).toEqual({ chat_id: chatId, content: 'Hello' });
    expect(reqs.every((r) => r.headers.authorization === `Bearer ${RETELL_KEY}`)).toBe(true);
    expect(s.costUsd()).toBeCloseTo((2 * CENTS_PER_MESSAGE) / 100, 10);
    expect(fake.chats.get(chatId)?.chat_status).toBe('ended');
  });

  it('tool invocations and results become tool calls on the reply, results parsed from JSON', async () => {
    fake.setAgent({ greeting: null, reply: () => ({ content: 'You are booked.', tool_calls: [{ name: 'book', arguments: { day: 'tue' }, result: { slot: '09:00' } }] }) });
    const s = await open(config(fake));
    expect(await s.send('Book me', never())).toEqual({
      content: 'You are booked.', ended: false, timing: { overhead_ms: expect.any(Number), lag_ms: expect.any(Number) }, // timed on the timing thread
      tool_calls: [{ id: expect.stringMatching(/^tool_call_/), name: 'book', arguments: { day: 'tue' }, result: { slot: '09:00' } }],
    });
  });

  it('422 on an unknown agent at create-chat is a provider error carrying Retell\'s message', async () => {
    const err = await open(config(fake, { agent_id: 'agent_nope' })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).message).toBe('provider: 422 Cannot find requested asset under given api key.');
  });

  it('retries: 429 (2 s, 4 s, 8 s), 500; never 402', async () => {
    const clock = new FakeClock();
    const s = await open(config(fake), clock);
    fake.inject('rate_limited', { times: 3 });
    await s.send('a', never());
    fake.inject('server_error');
    await s.send('b', never());
    expect(clock.sleeps).toEqual([2000, 4000, 8000, 2000]);
    fake.inject('payment_required');
    await expect(s.send('c', never())).rejects.toThrow('provider: 402 Trial has ended, please add payment method.');
    expect(clock.sleeps).toHaveLength(4);
  });

  it('a cost is null when get-chat fails after the end; cancel ends the chat without reading it', async () => {
    const s = await open(config(fake));
    await s.send('a', never());
    fake.inject('server_error', { on: 'get_chat' });
    await s.close('completed');
    expect(s.costUsd()).toBeNull();
    const s2 = await open(config(fake));
    await s2.close('canceled');
    expect(fake.openSessions()).toBe(0);
    expect(fake.requests().at(-1)?.method).toBe('PATCH');
  });

  it('a malformed completion body is a provider error', async () => {
    const s = await open(config(fake));
    fake.inject('malformed_json');
    await expect(s.send('a', never())).rejects.toThrow(/^provider: malformed response from POST \/create-chat-completion/);
  });
});

describe('Retell validate', () => {
  it('GET /get-chat-agent/{id}: 422 → not_found, 500 → provider_error', async () => {
    const check = (cfg: Record<string, unknown>) => createRetellAdapter().validate(cfg, { signal: never(), clock: systemClock });
    expect(await check(config(fake))).toMatchObject({ valid: true });
    expect(fake.requests()[0].path).toBe(`/get-chat-agent/${RETELL_AGENT}`);
    expect(await check(config(fake, { agent_id: 'x' }))).toMatchObject({ valid: false, details: { error_code: 'not_found', status: 422 } });
    fake.inject('server_error', { on: 'get_agent' });
    expect(await check(config(fake))).toMatchObject({ valid: false, details: { error_code: 'provider_error', status: 500 } });
  });
});

describe('Retell end of chat', () => {
  it('an end_call invocation ends the chat: the goodbye comes back with ended, read from get-chat', async () => {
    fake.setAgent({ greeting: null, reply: () => ({ content: 'Goodbye.', hangUp: true }) });
    const s = await open(config(fake));
    const r = await s.send('Bye', never());
    expect(r).toMatchObject({ content: 'Goodbye.', ended: true });
    expect(r.tool_calls.map((c) => c.name)).toEqual(['end_call']);
    expect(fake.requests().map((q) => `${q.method} ${q.path.replace(/chat_[a-z0-9]+/, ':id')}`)).toEqual(['POST /create-chat', 'POST /create-chat-completion', 'GET /get-chat/:id']);
  });

  it('a tool call on an ongoing chat goes on; a chat in error status is a provider error', async () => {
    fake.setAgent({ greeting: null, reply: () => ({ content: 'Booked.', tool_calls: [{ name: 'book', arguments: {}, result: {} }] }) });
    const s = await open(config(fake));
    expect((await s.send('Book', never())).ended).toBe(false);
    [...fake.chats.values()][0].chat_status = 'error';
    await expect(s.send('Again', never())).rejects.toMatchObject({ kind: 'provider_error', message: 'provider: the chat is in error status' });
    const t = await open(config(fake));
    const chat = [...fake.chats.values()][1];
    fake.setAgent({ greeting: null, reply: () => { chat.chat_status = 'error'; return { content: 'x', tool_calls: [{ name: 'book', arguments: {}, result: {} }] }; } });
    await expect(t.send('Book', never())).rejects.toMatchObject({ kind: 'provider_error', message: 'provider: the chat is in error status' });
  });

  it('a completion refused because the chat ended meanwhile (e.g. end_chat_after_silence_ms) ends the conversation', async () => {
    const s = await open(config(fake));
    await s.send('Hello', never());
    [...fake.chats.values()][0].chat_status = 'ended';
    expect(await s.send('Still there?', never())).toEqual({ content: '', tool_calls: [], ended: true, timing: { overhead_ms: expect.any(Number), lag_ms: expect.any(Number) } });
  });
});
