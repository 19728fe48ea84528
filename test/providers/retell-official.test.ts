import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import Retell, { AuthenticationError, BadRequestError, UnprocessableEntityError } from 'retell-sdk';
import type { ChatCreateChatCompletionParams, ChatCreateParams, ChatResponse } from 'retell-sdk/resources/chat';
import type { ScenarioSpec } from '../../src/engine/types.js';
import { createRetellAdapter } from '../../src/providers/retell.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { RETELL_AGENT, RETELL_KEY, startFakeRetell, type FakeRetell } from '../fakes/retell.js';

// provider_5 checked against retell-sdk (the official client, generated from Retell's API definition): the
// official client performs every operation the adapter relies on against our fake and reads its answers, and
// the adapter's requests are the ones the official client sends for the same operation.

const scenario: ScenarioSpec = { id: 's', name: 'S', persona: null, goal: null, instructions: null, opening_message: null, script: ['hi'], criteria: [], pass_threshold: 0.75, max_turns: null };
const never = () => new AbortController().signal;

let fake: FakeRetell;
let client: Retell;
beforeEach(async () => {
  fake = await startFakeRetell();
  client = new Retell({ apiKey: RETELL_KEY, baseURL: fake.baseUrl, maxRetries: 0 });
});
afterEach(() => fake.close());

/** Method, path (ids masked), body and bearer of each request the fake saw, from `from` on. */
const mask = (v: unknown) => JSON.parse(JSON.stringify(v ?? null).replace(/chat_[a-z0-9]+/g, ':chat'));
const seen = (from: number) => fake.requests().slice(from).map((r) => ({
  call: mask(`${r.method} ${r.path}`), body: mask(r.body), auth: r.headers.authorization, type: r.headers['content-type'] ?? null,
}));

describe('provider_5 against retell-sdk', () => {
  it('the adapter sends what the official client sends: create, completion, end, get', async () => {
    const params: ChatCreateParams = { agent_id: RETELL_AGENT, agent_version: 2, metadata: { team: 'qa', rehearsal_run_id: 'run-1', rehearsal_scenario_run_id: 'sr-1' }, retell_llm_dynamic_variables: { clinic: 'Northside' } };
    const s = await createRetellAdapter().openSession({
      config: { api_key: RETELL_KEY, agent_id: RETELL_AGENT, base_url: fake.baseUrl, agent_version: 2, metadata: { team: 'qa' }, dynamic_variables: { clinic: 'Northside' } },
      scenario, runId: 'run-1', scenarioRunId: 'sr-1', signal: never(), clock: new FakeClock(),
    });
    await s.send('Hello', never());
    await s.close('completed');
    const ours = seen(0);

    const from = fake.requests().length;
    const chat = await client.chat.create(params);
    const completion: ChatCreateChatCompletionParams = { chat_id: chat.chat_id, content: 'Hello' };
    await client.chat.createChatCompletion(completion);
    await client.chat.end(chat.chat_id);
    await client.chat.retrieve(chat.chat_id);
    expect(ours).toEqual(seen(from));
  });

  it('the official client reads every answer the adapter reads, in the fields the adapter uses', async () => {
    fake.setAgent({ greeting: 'Northside clinic, hello.', reply: () => ({ content: 'Booked.', tool_calls: [{ name: 'book', arguments: { day: 'tue' }, result: { slot: '09:00' } }] }) });
    const chat: ChatResponse = await client.chat.create({ agent_id: RETELL_AGENT });
    expect(chat.chat_status).toBe('ongoing');
    expect(chat.message_with_tool_calls?.[0]).toMatchObject({ role: 'agent', content: 'Northside clinic, hello.' });
    const { messages } = await client.chat.createChatCompletion({ chat_id: chat.chat_id, content: 'Book me' });
    const invocation = messages.find((m) => m.role === 'tool_call_invocation');
    const result = messages.find((m) => m.role === 'tool_call_result');
    expect(invocation && 'arguments' in invocation ? JSON.parse(invocation.arguments) : null).toEqual({ day: 'tue' });
    expect(result && 'content' in result ? JSON.parse(result.content) : null).toEqual({ slot: '09:00' });
    await client.chat.end(chat.chat_id);
    const ended = await client.chat.retrieve(chat.chat_id);
    expect(ended.chat_status).toBe('ended');
    const cents: number | undefined = ended.chat_cost?.combined_cost;
    expect(cents).toBeGreaterThan(0);
    expect((await client.chatAgent.retrieve(RETELL_AGENT)).agent_id).toBe(RETELL_AGENT);
  });

  it('the agent ending the chat: end_call invocation, status ended, and a completion on the ended chat refused', async () => {
    fake.setAgent({ greeting: null, reply: () => ({ content: 'Goodbye.', hangUp: true }) });
    const chat = await client.chat.create({ agent_id: RETELL_AGENT });
    const { messages } = await client.chat.createChatCompletion({ chat_id: chat.chat_id, content: 'Bye' });
    expect(messages.map((m) => m.role)).toEqual(['agent', 'tool_call_invocation']);
    expect(messages[1]).toMatchObject({ name: 'end_call' });
    expect((await client.chat.retrieve(chat.chat_id)).chat_status).toBe('ended');
    await expect(client.chat.createChatCompletion({ chat_id: chat.chat_id, content: 'Hello?' })).rejects.toBeInstanceOf(BadRequestError);
  });

  it('errors the adapter maps: 401 credentials, 422 unknown agent', async () => {
    const bad = new Retell({ apiKey: 'key_wrong', baseURL: fake.baseUrl, maxRetries: 0 });
    await expect(bad.chat.create({ agent_id: RETELL_AGENT })).rejects.toBeInstanceOf(AuthenticationError);
    await expect(client.chat.create({ agent_id: 'agent_nope' })).rejects.toBeInstanceOf(UnprocessableEntityError);
    await expect(client.chatAgent.retrieve('agent_nope')).rejects.toBeInstanceOf(UnprocessableEntityError);
  });
});
