import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Vapi, VapiClient, VapiError } from '@vapi-ai/server-sdk';
import { systemClock } from '../../src/lib/clock.js';
import { runScenario } from '../../src/engine/scenario-runner.js';
import type { ScenarioSpec } from '../../src/engine/types.js';
import { createVapiAdapter } from '../../src/providers/vapi.js';
import { startFakeVapi, VAPI_ASSISTANT, VAPI_KEY, VAPI_PHONE_NUMBER_ID, type FakeVapi } from '../fakes/vapi.js';

// provider_1 checked against @vapi-ai/server-sdk (generated from Vapi's OpenAPI): the official client performs
// every operation the adapter relies on against our fake, and the adapter's requests are the official types.

const scenario: ScenarioSpec = {
  id: 's', name: 'Where is my order', persona: 'Ada', goal: 'Learn when A-17 arrives', instructions: null, opening_message: null,
  script: ['Hi, where is my order?'], criteria: [{ criterion: 'Agent answered', max_points: 1, required: false, check: { type: 'responded_every_turn' } }], pass_threshold: 0.75, max_turns: null,
};
const never = () => new AbortController().signal;

let fake: FakeVapi;
let client: VapiClient;
beforeEach(async () => {
  fake = await startFakeVapi();
  client = new VapiClient({ token: VAPI_KEY, baseUrl: fake.baseUrl, maxRetries: 0 });
});
afterEach(() => fake.close());

describe('provider_1 against @vapi-ai/server-sdk', () => {
  it('the adapter\'s POST /call body is a CreateCallDto, with the endCall tool for the caller', async () => {
    const r = await runScenario({
      scenario, maxTurns: 1, adapter: createVapiAdapter({ callPollMs: 20 }), llm: {}, clock: systemClock, signal: never(), ids: { runId: 'run-1', scenarioRunId: 'sr-1' },
      config: { api_key: VAPI_KEY, assistant_id: VAPI_ASSISTANT, base_url: fake.baseUrl, phone_number: '+14155550123', phone_number_id: VAPI_PHONE_NUMBER_ID, timeout_ms: 60_000 },
    });
    expect(r.error_message).toBeNull();
    const sent = fake.requests().find((q) => q.method === 'POST' && q.path === '/call')!.body;
    // The literal is checked by the compiler against the official type (an unknown property fails the build);
    // the adapter's body must equal it.
    const expected: Vapi.CreateCallDto = {
      name: 'rehearsal sr-1',
      phoneNumberId: VAPI_PHONE_NUMBER_ID,
      customer: { number: '+14155550123' },
      assistant: {
        name: 'Rehearsal tester',
        firstMessageMode: 'assistant-waits-for-user',
        model: { provider: 'openai', model: 'gpt-4o-mini', messages: [{ role: 'system', content: sent.assistant.model.messages[0].content }], tools: [{ type: 'endCall' }] },
        maxDurationSeconds: 60,
        monitorPlan: { controlEnabled: true, controlAuthenticationEnabled: false },
      },
      assistantOverrides: { metadata: { rehearsal_run_id: 'run-1', rehearsal_scenario_run_id: 'sr-1' } },
    };
    expect(sent).toEqual(expected);
  });

  it('the fake refuses an assistant property Vapi does not have (endCallFunctionEnabled) with 400', async () => {
    const res = await fetch(`${fake.baseUrl}/call`, {
      method: 'POST', headers: { authorization: `Bearer ${VAPI_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ phoneNumberId: VAPI_PHONE_NUMBER_ID, customer: { number: '+14155550123' }, assistant: { firstMessageMode: 'assistant-waits-for-user', endCallFunctionEnabled: true } }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ statusCode: 400, error: 'Bad Request', message: ['assistant.property endCallFunctionEnabled should not exist'] });
  });

  it('the official client performs the adapter\'s operations against the fake: assistant, session, chat, calls', async () => {
    const assistant = await client.assistants.get({ id: VAPI_ASSISTANT });
    expect(assistant.id).toBe(VAPI_ASSISTANT);
    const session = await client.sessions.create({ assistantId: VAPI_ASSISTANT, name: 'rehearsal' });
    const chat = await client.chats.create({ sessionId: session.id, input: 'Hello' });
    expect('output' in chat ? chat.output : null).toEqual(expect.arrayContaining([expect.objectContaining({ role: 'assistant' })]));
    const cost: number | undefined = 'cost' in chat ? chat.cost : undefined;
    expect(cost).toBeGreaterThan(0);
    const ended = await client.sessions.update({ id: session.id, status: 'completed' });
    expect(ended.status).toBe('completed');
    expect((await client.sessions.get({ id: session.id })).id).toBe(session.id);

    const created = await client.calls.create({ phoneNumberId: VAPI_PHONE_NUMBER_ID, customer: { number: '+14155550123' }, assistant: { firstMessageMode: 'assistant-waits-for-user', model: { provider: 'openai', model: 'gpt-4o-mini', tools: [{ type: 'endCall' }] } } });
    const id = 'id' in created ? created.id : '';
    let call: Vapi.Call = await client.calls.get({ id });
    for (let i = 0; i < 10 && call.status !== 'ended'; i++) call = await client.calls.get({ id });
    expect(call.status).toBe('ended');
    expect(typeof call.endedReason).toBe('string');
    const listed = await client.calls.list({ limit: 10 });
    expect(listed.map((c) => c.id)).toContain(id);
  });

  it('errors the adapter maps: 401 credentials, 404 unknown assistant', async () => {
    const bad = new VapiClient({ token: 'wrong', baseUrl: fake.baseUrl, maxRetries: 0 });
    await expect(bad.assistants.get({ id: VAPI_ASSISTANT })).rejects.toMatchObject({ statusCode: 401 });
    const err = await client.assistants.get({ id: '00000000-0000-4000-8000-000000000000' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VapiError);
    expect(err).toMatchObject({ statusCode: 404 });
  });
});
