import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ElevenLabsClient, ElevenLabsEnvironment, ElevenLabsError } from '@elevenlabs/elevenlabs-js';
import * as serialization from '@elevenlabs/elevenlabs-js/serialization/index.js';
import type { ClientToolResult, ConversationInitiation, Pong, UserMessage } from '@elevenlabs/types';
import { systemClock } from '../../src/lib/clock.js';
import { runScenario } from '../../src/engine/scenario-runner.js';
import type { ScenarioSpec } from '../../src/engine/types.js';
import { configWithDefaults } from '../../src/providers/configs.js';
import { createElevenLabsAdapter } from '../../src/providers/elevenlabs.js';
import { ELEVEN_AGENT, ELEVEN_KEY, startFakeElevenLabs, type FakeElevenLabs } from '../fakes/elevenlabs.js';

// provider_6 checked against @elevenlabs/elevenlabs-js (generated from ElevenLabs' API definition, with its own
// serializers) and @elevenlabs/types (generated from the conversation websocket's asyncapi definition): the
// fake's records parse with the official serializers (unknown keys fail), the official client performs the
// adapter's REST operations against the fake, and the adapter's websocket messages use the official fields.

const scenario: ScenarioSpec = {
  id: 's', name: 'Trip', persona: null, goal: null, instructions: null, opening_message: null, script: ['Hi', 'Book it'],
  criteria: [{ criterion: 'answered', max_points: 1, required: false, check: { type: 'responded_every_turn' } }], pass_threshold: 0.5, max_turns: null,
};
const never = () => new AbortController().signal;
const strict: { unrecognizedObjectKeys: 'fail'; allowUnrecognizedEnumValues: false; breadcrumbsPrefix: string[] } = { unrecognizedObjectKeys: 'fail', allowUnrecognizedEnumValues: false, breadcrumbsPrefix: ['response'] };

let fake: FakeElevenLabs;
let client: ElevenLabsClient;
beforeEach(async () => {
  fake = await startFakeElevenLabs({ pingMs: 20 });
  client = new ElevenLabsClient({ apiKey: ELEVEN_KEY, baseUrl: fake.baseUrl, maxRetries: 0 });
});
afterEach(() => fake.close());

async function conversation(): Promise<string> {
  fake.setClientTools(['lookup_booking']);
  fake.setAgent({ greeting: null, reply: (t) => (/Book/.test(t)
    ? { content: 'Booked.', tool_calls: [{ name: 'book_flight', arguments: { to: 'LIS' }, result: { pnr: 'Q7' } }, { name: 'lookup_booking', arguments: { ref: 'XY1' }, result: null }] }
    : { content: 'Where to?' }) });
  const r = await runScenario({
    scenario, maxTurns: 2, adapter: createElevenLabsAdapter(), llm: {}, clock: systemClock, signal: never(), ids: { runId: 'r', scenarioRunId: 'sr' },
    config: { api_key: ELEVEN_KEY, agent_id: ELEVEN_AGENT, base_url: fake.baseUrl, post_call_poll_ms: 100, client_tool_results: { lookup_booking: { seat: '14C' } } },
  });
  expect(r.error_message).toBeNull();
  return [...fake.conversations.keys()][0];
}

describe('provider_6 against @elevenlabs/elevenlabs-js and @elevenlabs/types', () => {
  it('the fake\'s conversation record and agent parse with the official serializers, with cost_fiat and both prices', async () => {
    const id = await conversation();
    const raw = await (await fetch(`${fake.baseUrl}/v1/convai/conversations/${id}`, { headers: { 'xi-api-key': ELEVEN_KEY } })).json();
    const rec = serialization.GetConversationResponseModel.parseOrThrow(raw, strict);
    expect(rec.status).toBe('done');
    expect(rec.metadata.costFiat).toBeGreaterThan(0);
    expect(rec.metadata.charging?.llmPrice).toBeGreaterThan(0);
    expect(rec.metadata.charging?.platformPrice).toBeGreaterThan(0);
    expect(rec.metadata.costFiat).toBeCloseTo((rec.metadata.charging?.llmPrice ?? 0) + (rec.metadata.charging?.platformPrice ?? 0), 8);
    const calls = rec.transcript.flatMap((e) => e.toolCalls ?? []);
    expect(calls.map((c) => [c.toolName, c.paramsAsJson])).toEqual([['book_flight', '{"to":"LIS"}'], ['lookup_booking', '{"ref":"XY1"}']]);
    const agentRaw = await (await fetch(`${fake.baseUrl}/v1/convai/agents/${ELEVEN_AGENT}`, { headers: { 'xi-api-key': ELEVEN_KEY } })).json();
    const agent = serialization.GetAgentResponseModel.parseOrThrow(agentRaw, strict);
    expect(agent.conversationConfig.agent?.firstMessage).toBe('');
  });

  it('the official client performs the adapter\'s REST operations: signed URL, agent, conversation record', async () => {
    const signed = await client.conversationalAi.conversations.getSignedUrl({ agentId: ELEVEN_AGENT });
    expect(signed.signedUrl).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/v1\/convai\/conversation\?agent_id=/);
    expect((await client.conversationalAi.agents.get(ELEVEN_AGENT)).agentId).toBe(ELEVEN_AGENT);
    const id = await conversation();
    const rec = await client.conversationalAi.conversations.get(id);
    expect(rec.conversationId).toBe(id);
    expect(rec.metadata.costFiat).toBeGreaterThan(0);
  });

  it('the cost the adapter reports is cost_fiat', async () => {
    fake.setAgent({ greeting: null, reply: (t) => ({ content: `Heard ${t}` }) });
    const s = await createElevenLabsAdapter().openSession({ config: { api_key: ELEVEN_KEY, agent_id: ELEVEN_AGENT, base_url: fake.baseUrl, post_call_poll_ms: 100 }, scenario, runId: 'r', scenarioRunId: 'sr', signal: never(), clock: systemClock });
    await s.send('Hi', never());
    await s.close('completed');
    const raw = await (await fetch(`${fake.baseUrl}/v1/convai/conversations/${[...fake.conversations.keys()][0]}`, { headers: { 'xi-api-key': ELEVEN_KEY } })).json();
    expect(s.costUsd()).toBe(serialization.GetConversationResponseModel.parseOrThrow(raw, strict).metadata.costFiat);
  });

  it('errors the adapter maps: 401 credentials, 404 unknown agent', async () => {
    const bad = new ElevenLabsClient({ apiKey: 'sk_wrong', baseUrl: fake.baseUrl, maxRetries: 0 });
    await expect(bad.conversationalAi.agents.get(ELEVEN_AGENT)).rejects.toMatchObject({ statusCode: 401 });
    const err = await client.conversationalAi.agents.get('agent_missing').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ElevenLabsError);
    expect(err).toMatchObject({ statusCode: 404 });
  });

  it('region hosts are the official client\'s environments', () => {
    const host = (region: string) => configWithDefaults('elevenlabs', { api_key: 'k', agent_id: 'a', region }).base_url;
    expect(['global', 'us', 'eu', 'in', 'sg'].map(host)).toEqual([
      ElevenLabsEnvironment.Production, ElevenLabsEnvironment.ProductionUs, ElevenLabsEnvironment.ProductionEu,
      ElevenLabsEnvironment.ProductionIndia, ElevenLabsEnvironment.ProductionSingapore,
    ]);
  });

  it('the adapter\'s websocket messages use only the official fields', async () => {
    await conversation();
    const [conv] = [...fake.conversations.values()];
    // Typed samples: the compiler rejects a field the official type does not have.
    const official: Record<string, readonly string[]> = {
      conversation_initiation_client_data: Object.keys({ type: 'conversation_initiation_client_data', conversation_config_override: {}, dynamic_variables: {} } satisfies ConversationInitiation),
      user_message: Object.keys({ type: 'user_message', text: '' } satisfies UserMessage),
      pong: Object.keys({ type: 'pong', event_id: 0 } satisfies Pong),
      client_tool_result: Object.keys({ type: 'client_tool_result', tool_call_id: '', result: '', is_error: false } satisfies ClientToolResult),
    };
    const sent = conv.received;
    const types = new Set(sent.map((m) => m.type));
    for (const t of ['conversation_initiation_client_data', 'user_message', 'client_tool_result']) expect(types).toContain(t);
    for (const t of types) expect(Object.keys(official)).toContain(t);
    for (const m of sent) for (const k of Object.keys(m)) expect(official[m.type], `${m.type}.${k}`).toContain(k);
    const init = conv.init.conversation_config_override;
    expect(Object.keys(init ?? {}).every((k) => ['agent', 'conversation', 'tts', 'asr'].includes(k))).toBe(true);
  });
});
