import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/lib/clock.js';
import { runScenario, type ScenarioRunResult } from '../../src/engine/scenario-runner.js';
import type { ScenarioSpec } from '../../src/engine/types.js';
import { SECRET_FIELDS as SECRET_CONFIG_FIELDS } from '../../src/lib/field-errors.js';
import { ProviderError, type ProviderAdapter } from '../../src/engine/provider.js';
import { FakeClock } from '../fakes/fake-clock.js';

// The behaviour every provider adapter owes the engine, checked the same way for each provider against a
// fake of its real API. A provider's test file calls `adapterContract(...)` once and adds its own edge cases.
// Conversations are driven through `runScenario` with a scripted tester, exactly as the run engine drives them.

/** A tool call as the contract scenarios script it: what the agent asks for and what the tool answers. */
export interface ContractToolCall {
  name: string;
  arguments: Record<string, unknown>;
  result: unknown;
}

/** The agent's answer to one caller line. Tool calls happen before the text. */
export interface ContractReply {
  content: string;
  tool_calls?: ContractToolCall[];
  /** The agent ends the conversation after this answer (its end-call tool, closing the session). */
  hangUp?: boolean;
}

export interface ContractAgent {
  /** What the agent says before the caller speaks; null when it waits for the caller. */
  greeting: string | null;
  /** The answer to the caller's `turn`-th line (0-based). */
  reply: (text: string, turn: number) => ContractReply;
}

export type ContractFault = 'rate_limited' | 'server_error';

/** What the contract needs of a provider fake; the fake keeps its own richer API for provider-specific tests. */
export interface ContractFake {
  setAgent(agent: ContractAgent): void;
  /**
   * The next `times` (default 1) requests of the conversation that the fake chooses (the per-turn request where
   * the protocol is HTTP; an HTTP request of the conversation otherwise) fail with the fault. `retryAfter` is
   * sent as the `Retry-After` header of a 429.
   */
  inject(fault: ContractFault, opts?: { times?: number; retryAfter?: string }): void;
  /** Delay before the agent answers a caller line. */
  setLatency(ms: number): void;
  /** Caller lines the agent received, in order, over the fake's lifetime. */
  heard(): string[];
  /** Resolves when the agent receives its next caller line. */
  nextTurn(): Promise<void>;
  /** Provider-side sessions (chats, calls, sockets) started and not yet ended. */
  openSessions(): number;
  /** The cost in USD the provider reports for the last finished conversation; null when it reports none. */
  lastCostUsd(): number | null;
  close(): Promise<void>;
}

export interface ContractConfigOptions {
  /** Use a key the fake rejects with 401. */
  badKey?: boolean;
  /** Name an agent/assistant the fake does not know. */
  unknownAgent?: boolean;
  /** Point the adapter at this base URL instead of the fake (used with a port nothing listens on). */
  baseUrl?: string;
  /** The config's timeout_ms. */
  timeoutMs?: number;
  /** Results for tools the adapter itself must answer (provider_4 `tool_mocks`, ElevenLabs client tools). */
  toolResults?: Record<string, unknown>;
}

export interface ContractOptions {
  adapter: () => ProviderAdapter;
  /** The agent can speak first (a greeting arrives before the first caller line). */
  greeting: boolean;
  /** The provider holds a session (chat, call, socket) that cancel and completion must end. */
  sessions: boolean;
  /** The validate call can tell an unknown agent from a bad key. */
  validateNotFound: boolean;
  /** The provider signals that the agent hung up (so the fake honours `ContractReply.hangUp`). */
  hangUp?: boolean;
}

const scenario = (script: string[]): ScenarioSpec => ({
  id: 'scn-contract', name: 'contract', persona: 'A customer', goal: 'Track an order', instructions: null,
  opening_message: null, script, criteria: [{ criterion: 'Agent answered', max_points: 1, required: false, check: { type: 'responded_every_turn' } }],
  pass_threshold: 0.5, max_turns: null,
});

const LOOKUP: ContractToolCall = { name: 'lookup_order', arguments: { order_id: 'A-17' }, result: { status: 'shipped', eta: 'Friday' } };
const echo = (text: string): ContractReply => ({ content: `Agent heard: ${text}` });

/** A URL on 127.0.0.1 where nothing listens: a server is bound, its port read, and the server closed. */
async function deadUrl(): Promise<string> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return `http://127.0.0.1:${port}`;
}

async function until(cond: () => boolean, ms = 5000): Promise<boolean> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

export function adapterContract(
  name: string,
  makeFake: () => Promise<ContractFake>,
  makeConfig: (fake: ContractFake, opts?: ContractConfigOptions) => Record<string, unknown>,
  options: ContractOptions,
): void {
  describe(`adapter contract: ${name}`, () => {
    let fake: ContractFake;
    let adapter: ProviderAdapter;
    beforeEach(async () => {
      fake = await makeFake();
      adapter = options.adapter();
    });
    afterEach(() => fake.close());

    // The engine's path: runScenario with a scripted tester on the real clock (its deadlines are clock sleeps).
    const converse = (script: string[], o: { config?: Record<string, unknown>; signal?: AbortSignal; maxTurns?: number } = {}): Promise<ScenarioRunResult> =>
      runScenario({
        scenario: scenario(script), maxTurns: o.maxTurns ?? script.length, adapter,
        config: o.config ?? makeConfig(fake, { toolResults: { [LOOKUP.name]: LOOKUP.result } }),
        llm: {}, clock: systemClock, signal: o.signal ?? new AbortController().signal, ids: { runId: 'run-c', scenarioRunId: 'sr-c' },
      });

    it('exchanges N turns and transcribes them in order, with latencies', async () => {
      fake.setAgent({ greeting: null, reply: echo });
      const script = ['Hi, where is my parcel?', 'It was order A-17.', 'Thanks, bye.'];
      const r = await converse(script);
      expect(r.error_message).toBeNull();
      expect(r.status).toBe('passed');
      expect(r.transcript.map((e) => [e.role, e.content])).toEqual(script.flatMap((s) => [['user', s], ['assistant', `Agent heard: ${s}`]]));
      expect(fake.heard().slice(-3)).toEqual(script);
      for (const e of r.transcript.filter((x) => x.role === 'assistant')) expect(e.latency_ms).toBeGreaterThanOrEqual(0);
      expect(r.metrics.turn_count).toBe(3);
      expect(r.agent_turns).toBe(3);
      // the script ran out exactly at the cap: the caller was done, not cut off
      expect(r.end_reason).toBe('tester_ended');
    });

    if (options.greeting) {
      it('records the greeting the agent speaks first, not as a turn', async () => {
        fake.setAgent({ greeting: 'Thanks for calling Acme, how can I help?', reply: echo });
        const r = await converse(['Hello']);
        expect(r.error_message).toBeNull();
        expect(r.transcript.map((e) => [e.role, e.content])).toEqual([
          ['assistant', 'Thanks for calling Acme, how can I help?'], ['user', 'Hello'], ['assistant', 'Agent heard: Hello'],
        ]);
        expect(r.transcript[0].latency_ms ?? null).toBeNull();
        expect(r.metrics.turn_count).toBe(1);
      });
    }

    if (options.hangUp) {
      it('agent hangs up: the goodbye is recorded and the run ends as agent_ended, with no further caller line', async () => {
        fake.setAgent({ greeting: null, reply: (t, turn) => (turn === 0 ? { content: 'Goodbye, have a nice day.', hangUp: true } : echo(t)) });
        const r = await converse(['Bye for now.', 'Are you still there?', 'Hello?']);
        expect(r.error_message).toBeNull();
        expect(r.end_reason).toBe('agent_ended');
        expect(r.transcript.map((e) => [e.role, e.content])).toEqual([['user', 'Bye for now.'], ['assistant', 'Goodbye, have a nice day.']]);
        expect(fake.heard().slice(-1)).toEqual(['Bye for now.']);
        expect(fake.heard()).not.toContain('Are you still there?');
        if (options.sessions) expect(await until(() => fake.openSessions() === 0)).toBe(true);
      });
    }

    it('starts with the caller when the agent has no greeting', async () => {
      fake.setAgent({ greeting: null, reply: echo });
      const r = await converse(['Hello']);
      expect(r.transcript[0]).toMatchObject({ role: 'user', content: 'Hello' });
    });

    it('records tool calls with their arguments and results on the agent entry', async () => {
      fake.setAgent({ greeting: null, reply: (t) => (/order/.test(t) ? { content: 'Order A-17 has shipped and arrives Friday.', tool_calls: [LOOKUP] } : echo(t)) });
      const r = await converse(['Hi', 'Where is order A-17?']);
      expect(r.error_message).toBeNull();
      const last = r.transcript[r.transcript.length - 1];
      expect(last.content).toBe('Order A-17 has shipped and arrives Friday.');
      expect(last.tool_calls).toEqual([{ id: expect.any(String), name: LOOKUP.name, arguments: LOOKUP.arguments, result: LOOKUP.result }]);
      expect(r.transcript[1].tool_calls).toBeUndefined();
    });

    it('reports the provider cost, or null when the provider reports none', async () => {
      fake.setAgent({ greeting: null, reply: echo });
      const r = await converse(['One', 'Two']);
      expect(r.error_message).toBeNull();
      const expected = fake.lastCostUsd();
      if (expected === null) expect(r.metrics.cost_usd).toBeNull();
      else expect(r.metrics.cost_usd).toBeCloseTo(expected, 6);
    });

    if (options.sessions) {
      it('ends the provider session when the conversation completes', async () => {
        fake.setAgent({ greeting: null, reply: echo });
        const r = await converse(['Hello']);
        expect(r.error_message).toBeNull();
        expect(await until(() => fake.openSessions() === 0)).toBe(true);
      });
    }

    it('rejected credentials: a ProviderError invalid_credentials that fails the run fast, without the key', async () => {
      fake.setAgent({ greeting: null, reply: echo });
      const config = makeConfig(fake, { badKey: true });
      const r = await converse(['Hello'], { config });
      expect(r.status).toBe('error');
      expect(r.fatal).toBe('invalid_credentials');
      expect(r.error_message).toMatch(/^provider: 401 /);
      for (const field of SECRET_CONFIG_FIELDS) {
        const v = config[field];
        if (typeof v === 'string') expect(r.error_message).not.toContain(v);
      }
      // The same failure seen directly: whichever step meets the 401 throws the typed error.
      let thrown: unknown;
      try {
        const s = await adapter.openSession({ config, scenario: scenario(['x']), runId: 'r', scenarioRunId: 's', signal: new AbortController().signal, clock: new FakeClock() });
        try {
          await s.greeting(new AbortController().signal);
          await s.send('x', new AbortController().signal);
        } finally {
          await s.close('error');
        }
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(ProviderError);
      expect((thrown as ProviderError).kind).toBe('invalid_credentials');
    });

    // Retry schedules are proven on a FakeClock, whose sleeps return at once and are recorded. The engine's own
    // deadlines would fire at once on that clock too, so these drive the session directly, as the engine does.
    const direct = async (lines: string[], clock: FakeClock) => {
      const signal = new AbortController().signal;
      const s = await adapter.openSession({
        config: makeConfig(fake, { toolResults: { [LOOKUP.name]: LOOKUP.result } }), scenario: scenario(lines),
        runId: 'run-c', scenarioRunId: 'sr-c', signal, clock,
      });
      try {
        await s.greeting(signal);
        const replies: string[] = [];
        for (const line of lines) replies.push((await s.send(line, signal)).content);
        return replies;
      } finally {
        await s.close('completed');
      }
    };

    it('429 is retried after 2 s and the conversation succeeds', async () => {
      fake.setAgent({ greeting: null, reply: echo });
      fake.inject('rate_limited');
      const clock = new FakeClock();
      expect(await direct(['Hello', 'Again'], clock)).toEqual(['Agent heard: Hello', 'Agent heard: Again']);
      expect(clock.sleeps).toContain(2000);
    });

    it('429 with Retry-After waits as long as asked when that is longer', async () => {
      fake.setAgent({ greeting: null, reply: echo });
      fake.inject('rate_limited', { retryAfter: '7' });
      const clock = new FakeClock();
      expect(await direct(['Hello'], clock)).toEqual(['Agent heard: Hello']);
      expect(clock.sleeps).toContain(7000);
    });

    it('500 is retried and the conversation succeeds', async () => {
      fake.setAgent({ greeting: null, reply: echo });
      fake.inject('server_error', { times: 2 });
      const clock = new FakeClock();
      expect(await direct(['Hello'], clock)).toEqual(['Agent heard: Hello']);
      expect(clock.sleeps.filter((ms) => ms === 2000 || ms === 4000)).toEqual([2000, 4000]);
    });

    it('timeout_ms ends a conversation whose agent does not answer, through the abort signal', async () => {
      fake.setAgent({ greeting: null, reply: echo });
      fake.setLatency(30_000);
      const t0 = Date.now();
      const r = await converse(['Hello'], { config: makeConfig(fake, { timeoutMs: 600 }) });
      expect(r.status).toBe('error');
      expect(r.error_message).toMatch(/^timeout: /);
      expect(Date.now() - t0).toBeLessThan(8000);
      if (options.sessions) expect(await until(() => fake.openSessions() === 0)).toBe(true);
    });

    it('cancel aborts the turn in flight and ends the provider session', async () => {
      fake.setAgent({ greeting: null, reply: echo });
      fake.setLatency(30_000);
      const ac = new AbortController();
      const turn = fake.nextTurn();
      const running = converse(['Hello'], { signal: ac.signal });
      await turn;
      const t0 = Date.now();
      ac.abort(new Error('cancel'));
      const r = await running;
      expect(r.error_message).toBe('run canceled');
      expect(Date.now() - t0).toBeLessThan(6000);
      if (options.sessions) expect(await until(() => fake.openSessions() === 0)).toBe(true);
    });

    describe('validate', () => {
      const check = (config: Record<string, unknown>) => adapter.validate(config, { signal: new AbortController().signal, clock: systemClock });

      it('accepts working credentials', async () => {
        expect(await check(makeConfig(fake))).toMatchObject({ valid: true });
      });
      it('a rejected key → invalid_credentials, the key not echoed', async () => {
        const config = makeConfig(fake, { badKey: true });
        const r = await check(config);
        expect(r).toMatchObject({ valid: false, details: { error_code: 'invalid_credentials' } });
        for (const field of SECRET_CONFIG_FIELDS) if (typeof config[field] === 'string') expect(JSON.stringify(r)).not.toContain(config[field]);
      });
      if (options.validateNotFound) {
        it('an unknown agent → not_found', async () => {
          expect(await check(makeConfig(fake, { unknownAgent: true }))).toMatchObject({ valid: false, details: { error_code: 'not_found' } });
        });
      }
      it('nothing listening → unreachable', async () => {
        expect(await check(makeConfig(fake, { baseUrl: await deadUrl() }))).toMatchObject({ valid: false, details: { error_code: 'unreachable' } });
      });
    });
  });
}
