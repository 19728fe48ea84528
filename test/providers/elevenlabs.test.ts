import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/lib/clock.js';
import { runScenario } from '../../src/engine/scenario-runner.js';
import type { ScenarioSpec } from '../../src/engine/types.js';
import { configWithDefaults } from '../../src/providers/configs.js';
import { createElevenLabsAdapter } from '../../src/providers/elevenlabs.js';
import { ProviderError } from '../../src/engine/provider.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { ELEVEN_AGENT, ELEVEN_KEY, LLM_PRICE_PER_TURN, PLATFORM_PRICE_PER_TURN, startFakeElevenLabs, type FakeElevenLabs } from '../fakes/elevenlabs.js';
import { adapterContract } from './adapter-contract.js';

const config = (fake: FakeElevenLabs, over: Record<string, unknown> = {}) => ({ api_key: ELEVEN_KEY, agent_id: ELEVEN_AGENT, base_url: fake.baseUrl, post_call_poll_ms: 100, ...over });

adapterContract(
  'provider_6 (ElevenLabs Agents)',
  () => startFakeElevenLabs(),
  (fake, o = {}) => config(fake as FakeElevenLabs, {
    ...(o.badKey ? { api_key: 'sk_eleven_wrong_9' } : {}),
    ...(o.unknownAgent ? { agent_id: 'agent_missing' } : {}),
    ...(o.baseUrl ? { base_url: o.baseUrl } : {}),
    ...(o.timeoutMs ? { timeout_ms: o.timeoutMs } : {}),
    ...(o.toolResults ? { client_tool_results: o.toolResults } : {}),
  }),
  { adapter: () => createElevenLabsAdapter(), greeting: true, sessions: true, validateNotFound: true, hangUp: true },
);

const scenario: ScenarioSpec = {
  id: 's', name: 'Trip', persona: null, goal: null, instructions: null, opening_message: null, script: ['Hi', 'Book it'],
  criteria: [{ criterion: 'answered', max_points: 1, required: false, check: { type: 'responded_every_turn' } }], pass_threshold: 0.5, max_turns: null,
};
const never = () => new AbortController().signal;

let fake: FakeElevenLabs;
beforeEach(async () => {
  fake = await startFakeElevenLabs({ pingMs: 20 });
});
afterEach(() => fake.close());

const adapter = createElevenLabsAdapter();
const open = (cfg: Record<string, unknown>, clock: FakeClock | typeof systemClock = new FakeClock()) =>
  adapter.openSession({ config: cfg, scenario, runId: 'r', scenarioRunId: 'sr', signal: never(), clock });
const run = (cfg: Record<string, unknown>) =>
  runScenario({ scenario, maxTurns: 2, adapter, config: cfg, llm: {}, clock: systemClock, signal: never(), ids: { runId: 'r', scenarioRunId: 'sr' } });

describe('ElevenLabs conversation', () => {
  it('signed URL with xi-api-key, then the init data: text-only override, agent overrides, dynamic variables', async () => {
    const s = await open(config(fake, { dynamic_variables: { traveller: 'Ada', tier: 2 }, first_message: 'Hello Ada!', prompt_override: 'Be terse.' }));
    const signed = fake.requests()[0];
    expect(signed).toMatchObject({ method: 'GET', path: '/v1/convai/conversation/get-signed-url' });
    expect(signed.query.get('agent_id')).toBe(ELEVEN_AGENT);
    expect(signed.headers['xi-api-key']).toBe(ELEVEN_KEY);
    expect(signed.headers.authorization).toBeUndefined();
    const conv = [...fake.conversations.values()][0];
    expect(conv.init).toEqual({
      type: 'conversation_initiation_client_data',
      conversation_config_override: { conversation: { text_only: true }, agent: { first_message: 'Hello Ada!', prompt: { prompt: 'Be terse.' } } },
      dynamic_variables: { traveller: 'Ada', tier: 2 },
    });
    expect(await s.greeting(never())).toEqual({ content: 'Hello Ada!', tool_calls: [], ended: false });
    await s.close('completed');
  });

  it('text_only_override false sends no conversation override', async () => {
    const s = await open(config(fake, { text_only_override: false }));
    expect([...fake.conversations.values()][0].init).toEqual({ type: 'conversation_initiation_client_data' });
    await s.close('canceled');
  });

  it('answers every ping with a pong carrying the same event id', async () => {
    fake.setLatency(150);
    const s = await open(config(fake), systemClock);
    await s.send('Hi', never());
    expect(fake.pings.sent.length).toBeGreaterThanOrEqual(3);
    expect(fake.pings.answered).toEqual(fake.pings.sent.slice(0, fake.pings.answered.length));
    expect(fake.pings.sent.length - fake.pings.answered.length).toBeLessThanOrEqual(1);
    await s.close('canceled');
  });

  it('client tools are answered from client_tool_results; an unknown one gets an error result, as the official client does', async () => {
    fake.setClientTools(['lookup_booking', 'unknown_tool']);
    fake.setAgent({ greeting: null, reply: () => ({ content: 'Seat 14C is yours.', tool_calls: [{ name: 'lookup_booking', arguments: { ref: 'XY1' }, result: null }, { name: 'unknown_tool', arguments: {}, result: null }] }) });
    const s = await open(config(fake, { client_tool_results: { lookup_booking: { seat: '14C' } } }));
    const r = await s.send('My booking?', never());
    expect(r.content).toBe('Seat 14C is yours.');
    expect(r.tool_calls).toEqual([
      { id: expect.any(String), name: 'lookup_booking', arguments: { ref: 'XY1' }, result: { seat: '14C' } },
      { id: expect.any(String), name: 'unknown_tool', arguments: {}, result: { error: 'Client tool with name unknown_tool is not defined on client' } },
    ]);
    const transcript = [...fake.conversations.values()][0].transcript;
    const results = transcript.flatMap((e: any) => e.tool_results ?? []);
    expect(results.map((x: any) => [x.result_value, x.is_error])).toEqual([['{"seat":"14C"}', false], ['Client tool with name unknown_tool is not defined on client', true]]);
    await s.close('canceled');
  });

  it('server tools: the socket names them, the finished record fills in arguments and results', async () => {
    fake.setAgent({ greeting: null, reply: (t) => (/Book/.test(t) ? { content: 'Booked.', tool_calls: [{ name: 'book_flight', arguments: { to: 'LIS' }, result: { pnr: 'Q7' } }] } : { content: 'Where to?' }) });
    const r = await run(config(fake));
    expect(r.error_message).toBeNull();
    expect(r.transcript.map((e) => e.content)).toEqual(['Hi', 'Where to?', 'Book it', 'Booked.']);
    expect(r.transcript[3].tool_calls).toEqual([{ id: expect.any(String), name: 'book_flight', arguments: { to: 'LIS' }, result: { pnr: 'Q7' } }]);
    expect(r.metrics.cost_usd).toBeCloseTo(2 * (LLM_PRICE_PER_TURN + PLATFORM_PRICE_PER_TURN), 8);
  });

  it('unpaired tool events: a request without a response, and a response without a request, each end the turn within the settle time', async () => {
    const settled = createElevenLabsAdapter({ toolSettleMs: 150 });
    fake.setAgent({ greeting: null, reply: () => ({ content: 'Booked.', tool_calls: [{ name: 'book_flight', arguments: { to: 'LIS' }, result: { pnr: 'Q7' } }] }) });
    for (const mode of ['request_only', 'response_only'] as const) {
      fake.setToolEvents(mode);
      const s = await settled.openSession({ config: config(fake), scenario, runId: 'r', scenarioRunId: 'sr', signal: never(), clock: systemClock });
      const t0 = Date.now();
      const r = await s.send('Book it', never());
      expect(Date.now() - t0).toBeLessThan(1500);
      expect(r.content).toBe('Booked.');
      expect(r.tool_calls.map((c) => c.name)).toEqual(['book_flight']);
      // The next turn is not disturbed by the unanswered request.
      const t1 = Date.now();
      expect((await s.send('Thanks', never())).content).toBe('Booked.');
      expect(Date.now() - t1).toBeLessThan(1500);
      await s.close('canceled');
    }
  });

  it('a tool answered after a request still gets the agent\'s answer to its result in the same turn', async () => {
    const settled = createElevenLabsAdapter({ toolSettleMs: 150 });
    fake.setAgent({ greeting: null, reply: () => ({ content: 'Booked.', tool_calls: [{ name: 'book_flight', arguments: { to: 'LIS' }, result: { pnr: 'Q7' } }] }) });
    const s = await settled.openSession({ config: config(fake), scenario, runId: 'r', scenarioRunId: 'sr', signal: never(), clock: systemClock });
    expect(await s.send('Book it', never())).toMatchObject({ content: 'Booked.', tool_calls: [{ name: 'book_flight' }] });
    await s.close('canceled');
  });

  it('a client tool announced by client_tool_call and agent_tool_request is recorded once, merged with the post-call record', async () => {
    fake.setClientTools(['lookup_booking']);
    fake.setAgent({ greeting: null, reply: (t) => (/Book/.test(t) ? { content: 'Seat 14C.', tool_calls: [{ name: 'lookup_booking', arguments: { ref: 'XY1' }, result: null }] } : { content: 'Hello.' }) });
    const r = await run(config(fake, { client_tool_results: { lookup_booking: { seat: '14C' } } }));
    expect(r.error_message).toBeNull();
    expect(r.transcript[3].tool_calls).toEqual([{ id: expect.any(String), name: 'lookup_booking', arguments: { ref: 'XY1' }, result: { seat: '14C' } }]);
  });

  it('polls the record through processing until done; the cost stays null when it is not done in time', async () => {
    fake.setProcessingPolls(3);
    const clock = new FakeClock();
    const s = await open(config(fake, { post_call_poll_ms: 500 }), clock);
    await s.send('Hi', never());
    await s.close('completed');
    const gets = fake.requests().filter((q) => q.path.startsWith('/v1/convai/conversations/'));
    expect(gets.length).toBeGreaterThanOrEqual(4);
    expect(clock.sleeps.filter((x) => x === 500).length).toBe(gets.length - 1);
    expect(s.costUsd()).toBeCloseTo(LLM_PRICE_PER_TURN + PLATFORM_PRICE_PER_TURN, 8);

    fake.setProcessingPolls(1000);
    const s2 = await open(config(fake, { post_call_poll_ms: 500, post_call_timeout_ms: 2000 }), new FakeClock());
    await s2.send('Hi', never());
    await s2.close('completed');
    expect(s2.costUsd()).toBeNull();
    expect(s2.closeTimeoutMs).toBe(7000);
  });

  it('an agent that hangs up ends the conversation after its answer', async () => {
    fake.hangUpAfterNextReply();
    const r = await run(config(fake));
    expect(r.end_reason).toBe('agent_ended');
    expect(r.transcript.map((e) => e.content)).toEqual(['Hi', 'Agent heard: Hi']);
  });

  it('401 on the signed URL is invalid_credentials; a rejected socket token is a provider error', async () => {
    const err = await open(config(fake, { api_key: 'nope-key' })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).kind).toBe('invalid_credentials');
    expect((err as ProviderError).message).toBe('provider: 401 Invalid API key');
  });

  it('429 without Retry-After waits 2 s, 4 s; with it, as long as asked', async () => {
    const clock = new FakeClock();
    fake.inject('rate_limited', { times: 2 });
    const s = await open(config(fake), clock);
    expect(clock.sleeps).toEqual([2000, 4000]);
    await s.close('canceled');
    const clock2 = new FakeClock();
    fake.inject('rate_limited', { retryAfter: '12' });
    await (await open(config(fake), clock2)).close('canceled');
    expect(clock2.sleeps).toEqual([12_000]);
  });

  it('region picks the API host when no base_url is given', () => {
    expect(configWithDefaults('elevenlabs', { api_key: 'k', agent_id: 'a', region: 'eu' }).base_url).toBe('https://api.eu.residency.elevenlabs.io');
    expect(configWithDefaults('elevenlabs', { api_key: 'k', agent_id: 'a', region: 'us' }).base_url).toBe('https://api.us.elevenlabs.io');
    expect(configWithDefaults('elevenlabs', { api_key: 'k', agent_id: 'a' }).base_url).toBe('https://api.elevenlabs.io');
  });
});

describe('ElevenLabs validate', () => {
  it('GET /v1/convai/agents/{id}: 404 → not_found, 500 → provider_error', async () => {
    const check = (cfg: Record<string, unknown>) => adapter.validate(cfg, { signal: never(), clock: systemClock });
    expect(await check(config(fake))).toMatchObject({ valid: true });
    expect(fake.requests()[0]).toMatchObject({ path: `/v1/convai/agents/${ELEVEN_AGENT}` });
    const nf = await check(config(fake, { agent_id: 'x' }));
    expect(nf).toMatchObject({ valid: false, details: { error_code: 'not_found', status: 404, provider_code: 'not_found' } });
    const bad = await check(config(fake, { api_key: 'wrong-key-1' }));
    expect(bad).toMatchObject({ valid: false, details: { error_code: 'invalid_credentials', provider_code: 'invalid_api_key' } });
    fake.inject('server_error', { on: 'agent' });
    expect(await check(config(fake))).toMatchObject({ valid: false, details: { error_code: 'provider_error' } });
  });
});
