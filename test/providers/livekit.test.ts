import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TokenVerifier } from 'livekit-server-sdk';
import { systemClock, type Clock } from '../../src/lib/clock.js';
import type { ScenarioSpec } from '../../src/engine/types.js';
import type { LiveKitChannelOptions } from '../../src/providers/livekit-channel.js';
import { createLiveKitAdapter } from '../../src/providers/livekit.js';
import { createAdapters } from '../../src/providers/registry.js';
import { ProviderError, type ProviderSession } from '../../src/engine/provider.js';
import { FakeClock, StuckClock } from '../fakes/fake-clock.js';
import { startFakeLiveKit, type FakeLiveKit, type FakeLiveKitAgent } from '../fakes/livekit.js';
import { createTestContext, waitForRun, type TestContext } from '../harness.js';
import { adapterContract } from './adapter-contract.js';
import { AGENT_NAME, contractAdapter, liveKitConfig, makeLiveKitFake, TEST_REPLY_IDLE_MS, TOOL_TOPIC, type LiveKitContractFake } from './livekit-fixtures.js';

// provider_2 (LiveKit Agents). The server API runs against a fake Twirp server that verifies our JWTs with the
// API secret; the room/text layer is the in-memory channel, since no LiveKit server (and no WebRTC peer) runs
// here. The rtc-node implementation of the channel is therefore not exercised by these tests.

adapterContract('provider_2 (LiveKit Agents)', makeLiveKitFake, liveKitConfig, {
  adapter: contractAdapter, greeting: true, sessions: true, validateNotFound: false,
});

const scenario: ScenarioSpec = {
  id: 's1', name: 'S', persona: null, goal: null, instructions: null, opening_message: null,
  script: ['hi'], criteria: [], pass_threshold: 0.75, max_turns: null,
};
const live = () => new AbortController().signal;

describe('provider_2 LiveKit: server API, room and text exchange', () => {
  let fake: FakeLiveKit;
  let agent: FakeLiveKitAgent;
  let joins: LiveKitChannelOptions[];
  const adapter = (o: { retrySchedule?: number[] } = {}) =>
    createLiveKitAdapter({ channelFactory: (opts) => { joins.push(opts); return fake.channelFactory(agent, { agentName: AGENT_NAME })(opts); }, greetingWindowMs: 200, ...o });
  const config = (extra: Record<string, unknown> = {}) => ({
    url: fake.wsUrl, api_key: fake.apiKey, api_secret: fake.apiSecret, agent_name: AGENT_NAME, reply_idle_ms: TEST_REPLY_IDLE_MS, tool_events_topic: TOOL_TOPIC, ...extra,
  });
  const open = (cfg = config(), clock: Clock = systemClock, signal = live(), a = adapter()) =>
    a.openSession({ config: cfg, scenario, runId: 'run-1', scenarioRunId: 'sr-1', signal, clock });

  beforeEach(async () => {
    fake = await startFakeLiveKit();
    agent = { reply: (t) => `You said: ${t}` };
    joins = [];
  });
  afterEach(() => fake.close());

  it('creates the room, dispatches the agent by name, joins with a room token and deletes the room at the end', async () => {
    const s = await open(config({ dispatch_metadata: { suite: 'smoke' }, room_prefix: 'qa-', participant_identity: 'caller-7' }));
    expect(await s.send('Hello', live())).toEqual({ content: 'You said: Hello', tool_calls: [], ended: false });
    await s.close('completed');
    expect(fake.requests.map((r) => `${r.service}/${r.method}`)).toEqual(['RoomService/CreateRoom', 'AgentDispatchService/CreateDispatch', 'RoomService/DeleteRoom']);
    const [create, dispatch, del] = fake.requests;
    const room = String(create.body!.name);
    expect(room).toMatch(/^qa-sr-1-[0-9a-f]{6}$/);
    expect(create.body).toMatchObject({ emptyTimeout: 60, departureTimeout: 10 });
    expect(create.grants).toMatchObject({ roomCreate: true });
    expect(dispatch.body).toEqual({ room, agentName: AGENT_NAME, metadata: '{"suite":"smoke"}' });
    expect(dispatch.grants).toMatchObject({ roomAdmin: true, room });
    expect(del.body).toEqual({ room });
    for (const r of fake.requests) expect(r.authorization).toMatch(/^Bearer eyJ/);
    // The participant token: identity, join grant for exactly this room, data publishing allowed.
    const claims = await new TokenVerifier(fake.apiKey, fake.apiSecret).verify(joins[0].token);
    expect(claims).toMatchObject({ sub: 'caller-7', video: { roomJoin: true, room, canPublishData: true } });
    expect(joins[0]).toMatchObject({ url: fake.wsUrl, inputTopic: 'lk.chat', outputTopic: 'lk.transcription', toolEventsTopic: TOOL_TOPIC });
    expect(fake.registry.channels![0].sent).toEqual([{ topic: 'lk.chat', text: 'Hello' }]);
    expect(fake.rooms.size).toBe(0);
  });

  it('one reply spans several segments and a tool call, as long as the gaps stay under reply_idle_ms', async () => {
    agent = { toolTopic: TOOL_TOPIC, reply: () => ({
      segments: [['Let me ', 'check.'], ['Order A-17 ', 'ships Friday.']], segmentGapMs: 40, toolsAfterFirstSegment: true,
      toolEvents: [{ call_id: 'c1', name: 'lookup_order', arguments: '{"order_id":"A-17"}' }, { call_id: 'c1', output: '{"status":"shipped"}' }],
    }) };
    const s = await open();
    expect(await s.send('Where is A-17?', live())).toEqual({
      content: 'Let me check.\nOrder A-17 ships Friday.',
      tool_calls: [{ id: 'c1', name: 'lookup_order', arguments: { order_id: 'A-17' }, result: { status: 'shipped' } }],
      ended: false,
    });
    await s.close('completed');
  });

  it('an open stream keeps the reply going through pauses longer than reply_idle_ms (text paced by speech)', async () => {
    agent = { reply: () => ({ segments: [['Well, ', 'let me think ', 'about that.']], gapMs: 3 * TEST_REPLY_IDLE_MS }) };
    const s = await open();
    expect((await s.send('Hm?', live())).content).toBe('Well, let me think about that.');
    await s.close('completed');
  });

  it('the agent leaving the room ends the conversation (ended: true)', async () => {
    agent = { reply: () => ({ segments: ['Goodbye!'], hangUp: true }) };
    const s = await open();
    expect(await s.send('Bye', live())).toMatchObject({ content: 'Goodbye!', ended: true });
    await s.close('completed');
  });

  it('a room deleted under the conversation is a provider error, not a hang', async () => {
    agent = { reply: () => ({ segments: ['…'], delayMs: 10_000 }) };
    const s = await open();
    const pending = s.send('Hello', live());
    await new Promise((r) => setTimeout(r, 50));
    fake.registry.onRoomDeleted.forEach((fn) => fn([...fake.rooms.keys()][0]));
    await expect(pending).rejects.toMatchObject({ kind: 'unreachable', message: expect.stringMatching(/^provider: disconnected from the LiveKit room/) });
    await s.close('error');
  });

  it('text on a topic the agent does not read is never answered: bounded by the signal, room still deleted', async () => {
    const s = await open(config({ input_topic: 'custom.topic' }));
    const ac = new AbortController();
    setTimeout(() => ac.abort(new Error('deadline')), 300);
    await expect(s.send('Anyone?', ac.signal)).rejects.toThrow('deadline');
    expect(fake.registry.channels![0].received).toEqual([]);
    await s.close('canceled');
    expect(fake.rooms.size).toBe(0);
  });

  it('an agent that is never dispatched does not join: cancel during the join deletes the room', async () => {
    const ac = new AbortController();
    const opening = open(config({ agent_name: 'not-running' }), systemClock, ac.signal);
    await new Promise((r) => setTimeout(r, 100));
    expect(fake.rooms.size).toBe(1);
    ac.abort(new Error('run canceled'));
    await expect(opening).rejects.toThrow('run canceled');
    expect(fake.rooms.size).toBe(0);
  });

  it('retries the server API on 500 after 2, 4 and 8 s, then gives up with the Twirp message', async () => {
    fake.inject('server_error', { method: 'CreateRoom', times: 3 });
    const clock = new FakeClock();
    const s = await open(config(), clock);
    expect(clock.sleeps.slice(0, 3)).toEqual([2000, 4000, 8000]);
    await s.close('completed');
    fake.inject('server_error', { method: 'CreateRoom', times: 4 });
    const err = await open(config(), new FakeClock()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toMatchObject({ kind: 'provider_error', status: 500, code: 'internal', message: 'provider: 500 internal error' });
  });

  it('a CreateDispatch that fails after it was recorded is not dispatched twice on retry', async () => {
    fake.inject('commit_then_fail', { method: 'CreateDispatch' });
    const clock = new FakeClock();
    const s = await open(config(), clock);
    expect(clock.sleeps).toContain(2000);
    expect(fake.dispatches).toHaveLength(1);
    expect(fake.calls('CreateDispatch')).toHaveLength(1);
    expect(fake.calls('ListDispatch')).toHaveLength(1);
    await s.close('completed');
  });

  it('a 401 from the auth middleware never leaks the token, key or secret; 401/404/malformed/slow answers', async () => {
    const bad = config({ api_secret: 'wrong-secret-wrong-secret-wrong' });
    const err = (await open(bad).catch((e: unknown) => e)) as ProviderError;
    expect(err).toMatchObject({ kind: 'invalid_credentials', status: 401 });
    expect(err.message).toMatch(/^provider: 401 invalid token: \[redacted token\], error: /);
    expect(err.message).not.toMatch(/eyJ|wrong-secret|APIfakekey/);
    fake.inject('not_found', { method: 'CreateDispatch' });
    await expect(open()).rejects.toMatchObject({ kind: 'not_found', message: 'provider: 404 requested room does not exist' });
    fake.inject('unauthenticated', { method: 'CreateRoom' }); // a token without the grant: Twirp JSON, not text
    await expect(open()).rejects.toMatchObject({ kind: 'invalid_credentials', code: 'unauthenticated', message: 'provider: 401 permissions denied' });
    fake.inject('malformed_json', { method: 'CreateRoom' });
    await expect(open()).rejects.toMatchObject({ kind: 'provider_error', message: expect.stringMatching(/^provider: malformed response \(not JSON\)/) });
    expect(fake.rooms.size).toBe(0); // every failed start cleaned up after itself
    fake.inject('slow', { method: 'CreateRoom', delayMs: 150 });
    const s = await open();
    expect((await s.send('Still there?', live())).content).toBe('You said: Still there?');
    await s.close('completed');
  });

  it('close is idempotent and tolerates a room that is already gone', async () => {
    const s = await open();
    fake.rooms.clear();
    await s.close('completed');
    await s.close('completed');
    expect(fake.calls('DeleteRoom')).toHaveLength(1);
  });

  it('cost: cost_per_minute_usd × minutes between start and close, null without a rate', async () => {
    let offset = 0;
    const clock: Clock = { now: () => Date.now() + offset, sleep: systemClock.sleep };
    const s: ProviderSession = await open(config({ cost_per_minute_usd: 0.02 }), clock);
    await s.send('Hi', live());
    offset += 90_000;
    await s.close('completed');
    expect(s.costUsd()).toBeCloseTo(0.03, 3);
    const n = await open();
    await n.close('completed');
    expect(n.costUsd()).toBeNull();
  });

  it('the real rtc-node channel loads and, with no LiveKit signalling server to join, reports unreachable and deletes the room', async () => {
    const real = createLiveKitAdapter(); // default channel: @livekit/rtc-node (native)
    const cfg = config({ url: 'ws://127.0.0.1:1', base_url: fake.baseUrl });
    const err = await real.openSession({ config: cfg, scenario, runId: 'r', scenarioRunId: 'sr', signal: AbortSignal.timeout(15_000), clock: systemClock }).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'unreachable', message: expect.stringMatching(/^provider: could not join the LiveKit room: .*(refused|connect)/i) });
    expect(fake.calls('DeleteRoom')).toHaveLength(1);
    expect(fake.rooms.size).toBe(0);
  });

  describe('validate', () => {
    const validate = (cfg: Record<string, unknown>, clock: Clock = systemClock) => adapter().validate(cfg, { signal: live(), clock });
    it('ListRooms {} with a roomList token; says the agent name is not checked', async () => {
      expect(await validate(config())).toEqual({ valid: true, message: expect.stringMatching(/agent name cannot be checked/), details: { status: 200, agent_name_checked: false } });
      expect(fake.requests[0]).toMatchObject({ method: 'ListRooms', body: {}, grants: { roomList: true } });
    });
    it('429 and 500 are provider_error (no retry while a user waits); no answer → timeout', async () => {
      fake.inject('rate_limited', { method: 'ListRooms' });
      expect(await validate(config())).toMatchObject({ valid: false, details: { error_code: 'provider_error', status: 429 } });
      fake.inject('server_error', { method: 'ListRooms' });
      expect(await validate(config())).toMatchObject({ valid: false, details: { error_code: 'provider_error', status: 500 } });
      fake.inject('hang', { method: 'ListRooms' });
      expect(await validate(config(), new StuckClockThatTimesOut())).toMatchObject({ valid: false, details: { error_code: 'timeout' } });
      expect(fake.calls('ListRooms')).toHaveLength(3);
    });
  });
});

/** The validate time limit (10 s) expires after 100 real ms, once the request is surely out; other sleeps never end. */
class StuckClockThatTimesOut extends StuckClock {
  override sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return ms === 10_000 ? new Promise((r) => setTimeout(r, 100)) : super.sleep(ms, signal);
  }
}

describe('provider_2 end to end: an agent registered through the API runs a suite to completed', () => {
  let t: TestContext;
  let fake: LiveKitContractFake;
  beforeAll(async () => {
    fake = await makeLiveKitFake();
    fake.setAgent({ greeting: 'Hi, this is Acme support.', reply: (text) => ({ content: /tuesday/i.test(text) ? 'Done, you are booked for Tuesday.' : 'Which day suits you?' }) });
    // No LiveKit server runs here: the adapter is the production one with the in-memory room injected.
    t = await createTestContext({ engine: { pollIntervalMs: 50 }, adapters: { ...createAdapters(), provider_2: contractAdapter() } });
  });
  afterAll(async () => { await t.close(); await fake.close(); });

  it('completes, with the greeting, the turns and the room deleted', async () => {
    const agent = await t.call('POST', '/api/v1/agents', { body: { provider: 'provider_2', name: 'LiveKit desk', config: liveKitConfig(fake) } });
    expect(agent.status, JSON.stringify(agent.body)).toBe(201);
    const sc = await t.call('POST', '/api/v1/scenarios', { body: {
      name: 'Book via LiveKit', script: ['I need an appointment.', 'Tuesday, please.'],
      criteria: [{ criterion: 'Confirms the booking', check: { type: 'contains', value: 'booked' } }],
    } });
    const suite = await t.call('POST', '/api/v1/test-suites', { body: { name: 'lk suite', scenario_ids: [sc.body.id] } });
    const created = await t.call('POST', '/api/v1/runs', { body: { agent_id: agent.body.id, test_suite_id: suite.body.id, max_turns: 2 } });
    expect(created.status).toBe(201);
    const run = await waitForRun(t, created.body.id);
    expect(run).toMatchObject({ status: 'completed', passed_count: 1, error_count: 0 });
    const [result] = (await t.call('GET', `/api/v1/runs/${run.id}/results`)).body.results;
    const sr = (await t.call('GET', `/api/v1/scenario-runs/${result.id}`)).body;
    expect(sr.transcript.map((e: any) => e.content)).toEqual(['Hi, this is Acme support.', 'I need an appointment.', 'Which day suits you?', 'Tuesday, please.', 'Done, you are booked for Tuesday.']);
    expect(sr.metrics).toMatchObject({ turn_count: 2, cost_usd: null });
    expect(fake.server.rooms.size).toBe(0);
  });
});
