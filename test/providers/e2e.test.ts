import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, waitForRun, type TestContext } from '../harness.js';
import type { ContractAgent, ContractFake } from './adapter-contract.js';
import { CHAT_COST, SESSION_EXTRA_COST, startFakeVapi, VAPI_ASSISTANT, VAPI_KEY, type FakeVapi } from '../fakes/vapi.js';
import { CENTS_PER_MESSAGE, RETELL_AGENT, RETELL_KEY, startFakeRetell, type FakeRetell } from '../fakes/retell.js';
import { ELEVEN_AGENT, ELEVEN_KEY, LLM_PRICE_PER_TURN, PLATFORM_PRICE_PER_TURN, startFakeElevenLabs, type FakeElevenLabs } from '../fakes/elevenlabs.js';

// End to end through the API, per provider: register the agent, validate it, run a one-scenario suite with the
// shipped adapters (the registry's) against the provider's fake, and read back a completed run with the
// transcript, the tool call and the provider's cost.

const agentBehaviour: ContractAgent = {
  greeting: null,
  reply: (t) => (/A-17/.test(t)
    ? { content: 'Order A-17 has shipped and arrives Friday.', tool_calls: [{ name: 'lookup_order', arguments: { order_id: 'A-17' }, result: { status: 'shipped' } }] }
    : { content: 'Happy to help. What is the order number?' }),
};

const scenario = {
  name: 'Track an order',
  script: ['Hi, I want to know where my order is.', 'It is order A-17.'],
  criteria: [
    { criterion: 'Looks the order up', check: { type: 'tool_called', name: 'lookup_order', arguments: { order_id: 'A-17' } } },
    { criterion: 'Gives the delivery day', check: { type: 'contains', value: 'Friday' } },
  ],
};

const cases: { provider: string; start: () => Promise<ContractFake & { baseUrl: string }>; config: (url: string) => Record<string, unknown>; cost: number }[] = [
  { provider: 'provider_1', start: startFakeVapi, config: (url) => ({ api_key: VAPI_KEY, assistant_id: VAPI_ASSISTANT, base_url: url }), cost: 2 * CHAT_COST + SESSION_EXTRA_COST },
  { provider: 'provider_5', start: startFakeRetell, config: (url) => ({ api_key: RETELL_KEY, agent_id: RETELL_AGENT, base_url: url }), cost: (2 * CENTS_PER_MESSAGE) / 100 },
  { provider: 'provider_6', start: startFakeElevenLabs, config: (url) => ({ api_key: ELEVEN_KEY, agent_id: ELEVEN_AGENT, base_url: url, post_call_poll_ms: 100 }), cost: 2 * (LLM_PRICE_PER_TURN + PLATFORM_PRICE_PER_TURN) },
];

describe('providers end to end through the API', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestContext({ engine: { pollIntervalMs: 50 } });
  });
  afterAll(() => t.close());

  for (const c of cases) {
    it(`${c.provider}: register, validate, run a suite to completed with transcript, tool call and cost`, async () => {
      const fake = (await c.start()) as (FakeVapi | FakeRetell | FakeElevenLabs);
      try {
        fake.setAgent(agentBehaviour);
        const agent = await t.call('POST', '/api/v1/agents', { body: { provider: c.provider, name: `${c.provider}-${Math.random()}`, config: c.config(fake.baseUrl) } });
        expect(agent.status, JSON.stringify(agent.body)).toBe(201);
        const valid = await t.call('POST', `/api/v1/agents/${agent.body.id}/validate`);
        expect(valid.body).toMatchObject({ valid: true });
        const sc = await t.call('POST', '/api/v1/scenarios', { body: { ...scenario, name: `${scenario.name} ${Math.random()}` } });
        expect(sc.status, JSON.stringify(sc.body)).toBe(201);
        const suite = await t.call('POST', '/api/v1/test-suites', { body: { name: `suite-${Math.random()}`, scenario_ids: [sc.body.id] } });
        const created = await t.call('POST', '/api/v1/runs', { body: { agent_id: agent.body.id, test_suite_id: suite.body.id, max_turns: 2 } });
        expect(created.status, JSON.stringify(created.body)).toBe(201);

        const run = await waitForRun(t, created.body.id);
        expect(run).toMatchObject({ status: 'completed', passed_count: 1, error_count: 0, total_scenarios: 1 });
        expect(run.metrics.total_cost_usd).toBeCloseTo(c.cost, 8);
        const [result] = (await t.call('GET', `/api/v1/runs/${run.id}/results`)).body.results;
        const sr = (await t.call('GET', `/api/v1/scenario-runs/${result.id}`)).body;
        expect(sr).toMatchObject({ status: 'passed', passed: true, error_message: null });
        expect(sr.transcript.map((e: any) => [e.role, e.content])).toEqual([
          ['user', scenario.script[0]], ['assistant', 'Happy to help. What is the order number?'],
          ['user', scenario.script[1]], ['assistant', 'Order A-17 has shipped and arrives Friday.'],
        ]);
        expect(sr.transcript[3].tool_calls).toEqual([{ id: expect.any(String), name: 'lookup_order', arguments: { order_id: 'A-17' }, result: { status: 'shipped' } }]);
        expect(sr.metrics).toMatchObject({ turn_count: 2 });
        expect(sr.metrics.cost_usd).toBeCloseTo(c.cost, 8);
        expect(sr.criteria_results.map((x: any) => x.decision)).toEqual(['MET', 'MET']);
        expect(fake.openSessions()).toBe(0);
      } finally {
        await fake.close();
      }
    });
  }
});
