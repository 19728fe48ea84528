import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RTVI_PROTOCOL_VERSION, RTVIMessageType } from '@pipecat-ai/client-js';
import { systemClock, type Clock } from '../../src/lib/clock.js';
import type { ScenarioSpec } from '../../src/engine/types.js';
import { runScenario } from '../../src/engine/scenario-runner.js';
import { createPipecatAdapter } from '../../src/providers/pipecat.js';
import { ProviderError } from '../../src/engine/provider.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { startFakePipecat, type FakeBotReply, type FakePipecat } from '../fakes/pipecat.js';
import { createTestContext, waitForRun, type TestContext } from '../harness.js';
import { adapterContract } from './adapter-contract.js';
import { contractAdapter, makePipecatFake, pipecatConfig, TEST_GREETING_WINDOW_MS, TEST_SETTLE_MS } from './pipecat-fixtures.js';

// provider_3 (Pipecat Cloud): the public/private REST API and a fake bot that speaks RTVI inside Pipecat's
// protobuf frames over a real websocket on 127.0.0.1.

adapterContract('provider_3 (Pipecat Cloud)', () => makePipecatFake(), pipecatConfig, {
  adapter: contractAdapter, greeting: true, sessions: true, validateNotFound: true,
});

const scenario: ScenarioSpec = {
  id: 's1', name: 'S', persona: null, goal: null, instructions: null, opening_message: null,
  script: ['hi'], criteria: [], pass_threshold: 0.75, max_turns: null,
};
const live = () => new AbortController().signal;
const until = async (cond: () => boolean) => { for (let i = 0; i < 100 && !cond(); i++) await new Promise((r) => setTimeout(r, 20)); return cond(); };

describe('provider_3 Pipecat Cloud: session API and RTVI', () => {
  let fake: FakePipecat;
  const adapter = createPipecatAdapter({ greetingWindowMs: TEST_GREETING_WINDOW_MS, settleMs: TEST_SETTLE_MS });
  const config = (extra: Record<string, unknown> = {}) => ({
    public_api_key: fake.publicKey, private_api_key: fake.privateKey, agent_name: fake.agentName, base_url: fake.baseUrl, ...extra,
  });
  const open = (cfg = config(), clock: Clock = systemClock, signal = live()) =>
    adapter.openSession({ config: cfg, scenario, runId: 'r', scenarioRunId: 'sr', signal, clock });
  const reply = (r: FakeBotReply) => fake.setBot({ reply: () => r });

  beforeEach(async () => { fake = await startFakePipecat(); });
  afterEach(() => fake.close());

  it('starts a websocket session, shakes hands, sends send-text without audio and stops the session at the end', async () => {
    const s = await open(config({ body: { language: 'en' } }));
    expect(await s.send('Hello', live())).toEqual({ content: 'You said: Hello', tool_calls: [], ended: false });
    await s.close('completed');
    const [start, stop] = fake.requests;
    expect(start).toMatchObject({ method: 'POST', path: '/v1/public/order-bot/start', authorization: `Bearer ${fake.publicKey}`, body: { createDailyRoom: false, transport: 'websocket', body: { language: 'en' } } });
    expect(stop).toMatchObject({ method: 'DELETE', authorization: `Bearer ${fake.privateKey}` });
    const [session] = [...fake.sessions.values()];
    expect(session.stopped).toBe(true);
    const conn = fake.connections[0];
    expect(conn.body).toEqual({ language: 'en' }); // the base64 body from /start, on the websocket URL
    expect(conn.received.map((m) => m.type)).toEqual(['client-ready', 'send-text', 'disconnect-bot']);
    expect(conn.received[0].data).toMatchObject({ version: RTVI_PROTOCOL_VERSION, about: { library: 'rehearsal' } });
    // Every message type we send is one the official client sends.
    const outbound: string[] = [RTVIMessageType.CLIENT_READY, RTVIMessageType.SEND_TEXT, RTVIMessageType.DISCONNECT_BOT, RTVIMessageType.LLM_FUNCTION_CALL_RESULT];
    expect(conn.received.every((m) => outbound.includes(m.type))).toBe(true);
    expect(conn.received[1].data).toEqual({ content: 'Hello', options: { run_immediately: true, audio_response: false } });
    expect(await until(() => fake.openSockets() === 0)).toBe(true);
  });

  it('websocket_auth "none": /start rejects a body, so it starts without and passes the body on the URL', async () => {
    await fake.close();
    fake = await startFakePipecat({ websocketAuth: 'none' });
    const s = await open(config({ body: { caller: 'abc' } }));
    expect((await s.send('Hi', live())).content).toBe('You said: Hi');
    await s.close('completed');
    expect(fake.requests.filter((r) => r.path.endsWith('/start')).map((r) => r.body.body)).toEqual([{ caller: 'abc' }, undefined]);
    expect(fake.connections[0].body).toEqual({ caller: 'abc' });
  });

  it('without a private key the session ends by closing the socket (no stop request)', async () => {
    const s = await open(config({ private_api_key: undefined }));
    await s.send('Hi', live());
    await s.close('completed');
    expect(fake.requests.map((r) => r.method)).toEqual(['POST']);
    expect(await until(() => fake.openSockets() === 0)).toBe(true);
  });

  it('reads the reply from bot-output, else bot-transcription, else the LLM tokens', async () => {
    const s = await open();
    for (const output of ['bot-output', 'bot-transcription', 'llm-text'] as const) {
      reply({ text: 'One. Two three.', output });
      expect((await s.send('x', live())).content).toBe('One. Two three.');
    }
    await s.close('completed');
  });

  it('a bot that speaks anyway: audio frames are skipped and the reply waits for bot-stopped-speaking', async () => {
    reply({ text: 'Spoken answer.', speak: true, gapMs: 40 });
    const s = await open();
    expect((await s.send('x', live())).content).toBe('Spoken answer.');
    await s.close('completed');
  });

  it('tool calls: stopped LLM before the function events, and the deprecated client-side call answered', async () => {
    const tool = { name: 'lookup_order', arguments: { order_id: 'A-17' }, result: { status: 'shipped' }, runMs: 80 };
    reply({ preamble: 'Let me check.', text: 'It shipped.', tools: [tool], stopBeforeCalls: true });
    const s = await open();
    expect(await s.send('Where?', live())).toEqual({
      content: 'Let me check. It shipped.', ended: false,
      tool_calls: [{ id: 'call_1', name: 'lookup_order', arguments: { order_id: 'A-17' }, result: { status: 'shipped' } }],
    });
    reply({ text: 'I could not look that up.', tools: [tool], legacyFunctionCall: true });
    const r = await s.send('Again?', live());
    expect(r.content).toBe('I could not look that up.');
    expect(r.tool_calls).toEqual([{ id: 'call_2', name: 'lookup_order', arguments: { order_id: 'A-17' }, result: { error: expect.stringMatching(/no client-side/) } }]);
    expect(fake.connections[0].received.find((m) => m.type === 'llm-function-call-result')?.data).toMatchObject({ tool_call_id: 'call_2', function_name: 'lookup_order' });
    await s.close('completed');
  });

  it('reads bot-output in the format of the version the bot announced (1.x, and 2.x segments repeated while spoken)', async () => {
    for (const version of ['1.0.0', '2.1.0']) {
      fake.setBot({ version, reply: () => ({ text: 'First. Second one.', speak: true }) });
      const s = await open();
      expect((await s.send('x', live())).content).toBe('First. Second one.');
      await s.close('completed');
    }
  });

  it('error-response: a version warning to client-ready still opens the session; one to disconnect-bot changes nothing', async () => {
    fake.setBot({ versionWarning: 'client version 2.1.0 is newer than the bot (1.0.0)', version: '1.0.0', rejectDisconnect: true });
    const s = await open();
    expect(await s.send('Hello', live())).toEqual({ content: 'You said: Hello', tool_calls: [], ended: false });
    await s.close('completed');
    expect((s as unknown as { warnings: string[] }).warnings).toEqual(['client-ready: client version 2.1.0 is newer than the bot (1.0.0)']);
    // The bot refuses disconnect-bot; the close goes on (socket closed, Pipecat session stopped).
    expect(fake.connections[0].received.map((m) => m.type)).toContain('disconnect-bot');
    expect(await until(() => fake.openSockets() === 0 && [...fake.sessions.values()].every((x) => x.stopped))).toBe(true);
  });

  it('a non-fatal error changes nothing; an error-response to send-text fails that turn with the bot\'s text', async () => {
    reply({ text: 'Still here.', warning: 'TTS quota low' });
    const s = await open();
    expect(await s.send('x', live())).toEqual({ content: 'Still here.', tool_calls: [], ended: false });
    reply({ reject: 'send-text is not enabled for this bot' });
    await expect(s.send('y', live())).rejects.toMatchObject({ kind: 'provider_error', message: 'provider: bot rejected the message: send-text is not enabled for this bot' });
    const sent = fake.connections[0].received.filter((m) => m.type === 'send-text');
    expect(sent.every((m) => typeof m.id === 'string' && m.id.length > 0)).toBe(true);
    await s.close('error');
  });

  it('the bot hanging up ends the conversation; a fatal RTVI error is a provider error', async () => {
    reply({ text: 'Goodbye.', hangUp: true });
    const s = await open();
    expect(await s.send('Bye', live())).toEqual({ content: 'Goodbye.', tool_calls: [], ended: true });
    await s.close('completed');
    reply({ fatalError: 'LLM service unavailable' });
    const t = await open();
    await expect(t.send('Hi', live())).rejects.toMatchObject({ kind: 'provider_error', message: 'provider: bot error: LLM service unavailable' });
    await t.close('error');
  });

  it("a fatal error's text reaches the scenario run's message", async () => {
    reply({ fatalError: 'LLM service unavailable' });
    const r = await runScenario({
      scenario, maxTurns: 1, adapter, config: config(), llm: {}, clock: systemClock, signal: live(), ids: { runId: 'r', scenarioRunId: 'sr' },
    });
    expect(r).toMatchObject({ status: 'error', error_message: 'provider: bot error: LLM service unavailable' });
  });

  it('a refused websocket token is a provider error (not bad credentials), and the session is stopped', async () => {
    fake.inject('bad_token', { on: 'start' });
    const err = await open().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toMatchObject({ kind: 'provider_error', status: 403, message: "provider: 403 the bot's websocket refused the connection (Forbidden)" });
    expect(fake.requests.map((r) => r.method)).toEqual(['POST', 'DELETE']);
  });

  it('a bot without RTVI never gets ready: bounded by the signal, socket closed and session stopped', async () => {
    fake.setBot({ silent: true });
    const ac = new AbortController();
    setTimeout(() => ac.abort(new Error('timeout: opening')), 200);
    await expect(open(config(), systemClock, ac.signal)).rejects.toThrow('timeout: opening');
    expect(await until(() => fake.openSockets() === 0 && [...fake.sessions.values()].every((x) => x.stopped))).toBe(true);
  });

  it('retries /start after 2, 4 and 8 s on 500, then reports the Pipecat message', async () => {
    fake.inject('server_error', { on: 'start', times: 3 });
    const clock = new FakeClock();
    const s = await open(config(), clock);
    expect(clock.sleeps.slice(0, 3)).toEqual([2000, 4000, 8000]);
    await s.close('completed');
    fake.inject('server_error', { on: 'start', times: 4 });
    await expect(open(config(), new FakeClock())).rejects.toMatchObject({ status: 500, code: 'PCC-500', message: 'provider: 500 Internal server error' });
  });

  it('malformed, slow and incomplete /start answers', async () => {
    fake.inject('malformed_json', { on: 'start' });
    await expect(open()).rejects.toMatchObject({ kind: 'provider_error', message: expect.stringMatching(/^provider: malformed response/) });
    fake.inject('no_ws_url', { on: 'start' });
    await expect(open()).rejects.toMatchObject({ message: expect.stringMatching(/no websocket URL/) });
    fake.inject('slow', { on: 'start', delayMs: 150 });
    const s = await open();
    expect((await s.send('Hi', live())).content).toBe('You said: Hi');
    await s.close('completed');
  });

  it('cost: cost_per_minute_usd × session minutes, null without a rate', async () => {
    let offset = 0;
    const clock: Clock = { now: () => Date.now() + offset, sleep: systemClock.sleep };
    const s = await open(config({ cost_per_minute_usd: 0.05 }), clock);
    offset += 120_000;
    await s.close('completed');
    expect(s.costUsd()).toBeCloseTo(0.1, 3);
    const n = await open();
    await n.close('completed');
    expect(n.costUsd()).toBeNull();
  });

  describe('validate', () => {
    const validate = (cfg: Record<string, unknown>) => adapter.validate(cfg, { signal: live(), clock: systemClock });
    it('GET /v1/agents/{name} with the private key; reports readiness', async () => {
      expect(await validate(config())).toEqual({ valid: true, message: 'credentials accepted and the agent exists', details: { status: 200, verified: true, ready: true, available: true, not_checked: ['public_api_key'] } });
      expect(fake.requests[0]).toMatchObject({ method: 'GET', path: '/v1/agents/order-bot', authorization: `Bearer ${fake.privateKey}` });
    });
    it('without a private key: says what it could and could not check', async () => {
      const r = await validate(config({ private_api_key: undefined }));
      expect(r).toMatchObject({ valid: true, details: { verified: false, checked: ['base_url reachable'], not_checked: ['public_api_key', 'agent_name'] } });
      expect(r.message).toMatch(/^not verified: without private_api_key/);
      expect(fake.requests[0].authorization).toBeUndefined(); // the public key is never sent to a private endpoint
      const dead = await validate(config({ private_api_key: undefined, base_url: 'http://127.0.0.1:1' }));
      expect(dead).toMatchObject({ valid: false, details: { error_code: 'unreachable' } });
    });
    it('500 → provider_error', async () => {
      fake.inject('server_error', { on: 'agent' });
      expect(await validate(config())).toMatchObject({ valid: false, details: { error_code: 'provider_error', status: 500 } });
    });
  });
});

describe('provider_3 end to end: an agent registered through the API runs a suite to completed', () => {
  let t: TestContext;
  let fake: FakePipecat;
  beforeAll(async () => {
    fake = await startFakePipecat({ bot: {
      greeting: { text: 'Order desk, how can I help?' },
      reply: (text) => (/a-17/i.test(text)
        ? { text: 'Order A-17 has shipped.', tools: [{ name: 'lookup_order', arguments: { order_id: 'A-17' }, result: { status: 'shipped' } }] }
        : 'Which order is it?'),
    } });
    t = await createTestContext({ engine: { pollIntervalMs: 50 } }); // the registry's production adapter
  });
  afterAll(async () => { await t.close(); await fake.close(); });

  it('completes, with the greeting, the tool call and the session stopped', async () => {
    const agent = await t.call('POST', '/api/v1/agents', { body: { provider: 'provider_3', name: 'Pipecat desk', config: {
      public_api_key: fake.publicKey, private_api_key: fake.privateKey, agent_name: fake.agentName, base_url: fake.baseUrl, body: { lang: 'en' },
    } } });
    expect(agent.status, JSON.stringify(agent.body)).toBe(201);
    const sc = await t.call('POST', '/api/v1/scenarios', { body: {
      name: 'Track via Pipecat', script: ['Where is my order?', 'It is A-17.'],
      criteria: [{ criterion: 'Looks the order up', check: { type: 'tool_called', name: 'lookup_order' } }],
    } });
    const suite = await t.call('POST', '/api/v1/test-suites', { body: { name: 'pc suite', scenario_ids: [sc.body.id] } });
    const created = await t.call('POST', '/api/v1/runs', { body: { agent_id: agent.body.id, test_suite_id: suite.body.id, max_turns: 2 } });
    const run = await waitForRun(t, created.body.id);
    expect(run).toMatchObject({ status: 'completed', passed_count: 1, error_count: 0 });
    const [result] = (await t.call('GET', `/api/v1/runs/${run.id}/results`)).body.results;
    const sr = (await t.call('GET', `/api/v1/scenario-runs/${result.id}`)).body;
    expect(sr.transcript.map((e: any) => e.content)).toEqual(['Order desk, how can I help?', 'Where is my order?', 'Which order is it?', 'It is A-17.', 'Order A-17 has shipped.']);
    expect(sr.transcript[4].tool_calls).toEqual([{ id: expect.any(String), name: 'lookup_order', arguments: { order_id: 'A-17' }, result: { status: 'shipped' } }]);
    expect([...fake.sessions.values()].every((s) => s.stopped)).toBe(true);
  });
});
