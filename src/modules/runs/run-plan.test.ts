import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../../test/harness.js';
import { ESTIMATE_TOKENS } from './run-plan.js';

const p4 = { base_url: 'http://127.0.0.1:9/v1', model: 'm' };
const crit = (n: number) => Array.from({ length: n }, (_, i) => ({ criterion: `c${i}` }));

describe('POST /runs?dry_run=true', () => {
  let t: TestContext;
  let agentId: string;
  let suiteId: string;
  beforeAll(async () => {
    t = await createTestContext({ config: { maxConcurrentRuns: 1, llm: { baseUrl: 'http://127.0.0.1:9/v1', apiKey: null, testerModel: 'tester', judgeModel: 'judge' }, llmPrices: { input: 0.5, output: 2 } } });
    agentId = (await t.call('POST', '/api/v1/agents', { body: { provider: 'provider_4', name: 'Desk', config: p4 } })).body.id;
    const a = await t.call('POST', '/api/v1/scenarios', { body: { name: 'A', slug: 'a', criteria: crit(1), max_turns: 3, script: ['1', '2', '3', '4', '5'] } });
    const b = await t.call('POST', '/api/v1/scenarios', { body: { name: 'B', criteria: [{ criterion: 'says hi', check: { type: 'contains', value: 'hi' } }] } });
    suiteId = (await t.call('POST', '/api/v1/test-suites', { body: { name: 'S', scenario_ids: [a.body.id, b.body.id] } })).body.id;
  });
  afterAll(async () => { await t.close(); });

  it('answers the plan: turns capped per scenario, model calls, cost, warnings; no run is created', async () => {
    const res = await t.call('POST', '/api/v1/runs?dry_run=true', { body: { agent_id: agentId, test_suite_id: suiteId, max_turns: 6 } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      dry_run: true, scenario_count: 2, repeats: 1, conversations: 2, max_total_turns: 3 + 6,
      scenarios: [{ slug: 'a', name: 'A', repeats: 1, max_turns: 3 }, { slug: null, name: 'B', repeats: 1, max_turns: 6 }],
      // tester and agent: one call per turn; judge: A only (B is all checks), at most twice (one retry)
      max_model_calls: { tester: 9, agent: 9, judge: 2, confirmations: 2, total: 22 },
      warnings: ['1 scenario will be cut off: their scripts have up to 5 lines; max_turns is 6'],
    });
    const t1 = ESTIMATE_TOKENS.tester, j = ESTIMATE_TOKENS.judge;
    const expected = (9 * (t1.input * 0.5 + t1.output * 2) + (2 + 2) * (j.input * 0.5 + j.output * 2)) / 1000;
    expect(res.body.estimated_cost_usd).toBeCloseTo(expected, 6);
    expect((await t.call('GET', '/api/v1/runs')).body.total).toBe(0);
  });

  it('validates as a real POST /runs does', async () => {
    expectError(await t.call('POST', '/api/v1/runs?dry_run=true', { body: {} }), 400, 'MISSING_REQUIRED_FIELD');
    expectError(await t.call('POST', '/api/v1/runs?dry_run=true', { body: { agent_id: '01900000-0000-7000-8000-000000000000' } }), 400, 'AGENT_NOT_FOUND');
    expectError(await t.call('POST', '/api/v1/runs?dry_run=maybe', { body: { agent_id: agentId } }), 400, 'INVALID_FIELD_VALUE');
    expect((await t.call('POST', '/api/v1/runs', { body: { agent_id: agentId, test_suite_id: suiteId } })).status).toBe(201);
    expectError(await t.call('POST', '/api/v1/runs?dry_run=true', { body: { agent_id: agentId } }), 429, 'RATE_LIMITED');
  });
});

describe('POST /runs?dry_run=true arithmetic with repeats, no tester model and no prices', () => {
  let t: TestContext;
  let agentId: string;
  let suiteId: string;
  beforeAll(async () => {
    t = await createTestContext({ config: { judgeConfirmations: 1, llm: { baseUrl: 'http://127.0.0.1:9/v1', apiKey: null, testerModel: null, judgeModel: 'judge' } } });
    agentId = (await t.call('POST', '/api/v1/agents', { body: { provider: 'provider_4', name: 'Desk', config: p4 } })).body.id;
    const ids: string[] = [];
    // caps 3, none, 1: with max_turns 2 the scenarios run under 2, 2 and 1 turns
    for (const [name, cap, judged] of [['A', 3, true], ['B', null, false], ['C', 1, true]] as const) {
      const criteria = judged ? crit(2) : [{ criterion: 'says hi', check: { type: 'contains', value: 'hi' } }];
      ids.push((await t.call('POST', '/api/v1/scenarios', { body: { name, criteria, ...(cap ? { max_turns: cap } : {}), script: ['hi'] } })).body.id);
    }
    suiteId = (await t.call('POST', '/api/v1/test-suites', { body: { name: 'S3', scenario_ids: ids } })).body.id;
  });
  afterAll(async () => { await t.close(); });

  it('Σ repeats × max_turns, calls per kind and their total; estimated_cost_usd null without prices', async () => {
    const res = await t.call('POST', '/api/v1/runs?dry_run=true', { body: { agent_id: agentId, test_suite_id: suiteId, max_turns: 2, repeats: 3 } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.scenarios.map((s: { name: string; repeats: number; max_turns: number }) => [s.name, s.repeats, s.max_turns])).toEqual([['A', 3, 2], ['B', 3, 2], ['C', 3, 1]]);
    expect(res.body).toMatchObject({ scenario_count: 3, repeats: 3, conversations: 9, max_total_turns: 3 * 2 + 3 * 2 + 3 * 1, estimated_cost_usd: null });
    // no tester model: the scripts speak for the caller; judge: A and C, twice at most each, plus one confirmation
    expect(res.body.max_model_calls).toEqual({ tester: 0, agent: 15, judge: 2 * 3 * 2, confirmations: 2 * 3 * 1, total: 15 + 12 + 6 });
    expect(Object.keys(res.body).sort()).toEqual(['conversations', 'dry_run', 'estimated_cost_usd', 'max_model_calls', 'max_total_turns', 'repeats', 'scenario_count', 'scenarios', 'warnings']);
    expect(Object.keys(res.body.scenarios[0]).sort()).toEqual(['max_turns', 'name', 'repeats', 'scenario_id', 'slug']);
  });

  it('refuses what POST /runs refuses: repeats out of range, an unknown baseline', async () => {
    expectError(await t.call('POST', '/api/v1/runs?dry_run=true', { body: { agent_id: agentId, test_suite_id: suiteId, repeats: 11 } }), 400, 'INVALID_FIELD_VALUE');
    expectError(await t.call('POST', '/api/v1/runs?dry_run=true', { body: { agent_id: agentId, test_suite_id: suiteId, baseline: 'TR-424242' } }), 400, 'RUN_NOT_FOUND');
    expectError(await t.call('POST', '/api/v1/runs?dry_run=true', { body: { agent_id: agentId, test_suite_id: suiteId, max_turns: 0 } }), 400, 'INVALID_FIELD_VALUE');
    expect((await t.call('GET', '/api/v1/runs')).body.total).toBe(0);
  });
});
