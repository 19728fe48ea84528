import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookEvents } from '../../src/db/schema.js';
import { createTestContext, expectError, waitForRun, type TestContext } from '../harness.js';
import { startFakeOpenAi, type FakeOpenAiServer } from '../fakes/openai-agent.js';

/** A seeded uniform generator (mulberry32): the same seed always gives the same answers. */
function seeded(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Each scenario's conversations draw, in order, from its own seeded stream, so how many of a run's
// repetitions are right does not depend on which worker answers first. Seed 7 at p = .5 gives
// ●●○○○ ●●●○○ ●●○○● ●●○●○ for four runs of five.
const SCENARIOS = { A: 1, B: 7, C: 3 } as const;
type Name = keyof typeof SCENARIOS;

describe('repeats, baselines and comparisons end to end (fake agent right with a seeded probability, check grading)', () => {
  let t: TestContext;
  let agent: FakeOpenAiServer;
  const probability: Record<Name, number> = { A: 1, B: 0.5, C: 1 };
  const streams = Object.fromEntries(Object.entries(SCENARIOS).map(([k, seed]) => [k, seeded(seed)])) as Record<Name, () => number>;
  let agentId: string;
  let suiteId: string;
  const ids = {} as Record<Name, string>;
  const names = {} as Record<Name, string>;
  const runs: string[] = [];

  beforeAll(async () => {
    agent = await startFakeOpenAi({ reply: (msgs) => {
      const first = msgs.find((m) => m.role === 'user')?.content ?? '';
      const name = /^Scenario (\w)/.exec(first)?.[1] as Name;
      return streams[name]() < probability[name] ? 'Done, you are booked.' : 'Sorry, I cannot help with that.';
    } });
    t = await createTestContext({ engine: { pollIntervalMs: 50 } });
    agentId = (await t.call('POST', '/api/v1/agents', { body: { provider: 'provider_4', name: 'desk', config: { base_url: agent.baseUrl, model: 'desk', api_key: 'sk-test' } } })).body.id;
    for (const n of Object.keys(SCENARIOS) as Name[]) {
      const res = await t.call('POST', '/api/v1/scenarios', { body: {
        name: `Book ${n}`, script: [`Scenario ${n}: I would like to book a table.`], criteria: [{ criterion: 'Confirms the booking', check: { type: 'contains', value: 'booked' } }],
      } });
      ids[n] = res.body.id;
      names[n] = res.body.name;
    }
    suiteId = (await t.call('POST', '/api/v1/test-suites', { body: { name: 'bookings', scenario_ids: [ids.A, ids.B, ids.C] } })).body.id;
  });
  afterAll(async () => { await t.close(); await agent.close(); });

  async function run(body: Record<string, unknown>) {
    const created = await t.call('POST', '/api/v1/runs', { body: { agent_id: agentId, test_suite_id: suiteId, repeats: 5, ...body } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.total_scenarios).toBe(15);
    const done = await waitForRun(t, created.body.id);
    runs.push(done.id);
    return done;
  }

  it('runs each scenario k times; the baseline run passes A and C every time and B 2 of 5', async () => {
    const r = await run({});
    expect(r).toMatchObject({ status: 'completed', repeats: 5, scenario_count: 3, total_scenarios: 15, baseline_run_id: null, passed_count: 12, failed_count: 3 });
    expect(r.stats).toMatchObject({ flaky_count: 1, pass_all_count: 2 });
    expect(r.stats.pass_rate_ci.low).toBeLessThanOrEqual(r.pass_rate);
    expect(r.stats.pass_rate_ci.high).toBeGreaterThanOrEqual(r.pass_rate);
    const results = (await t.call('GET', `/api/v1/runs/${r.id}/results`)).body.results;
    expect(results.map((x: any) => [x.scenario_id, x.repetition])).toEqual(
      (['A', 'B', 'C'] as Name[]).flatMap((n) => [1, 2, 3, 4, 5].map((k) => [ids[n], k])));
    const list = (await t.call('GET', `/api/v1/scenario-runs?test_run_id=${r.test_run_id}&limit=3`)).body.scenario_runs;
    expect(list.map((x: any) => x.repetition)).toEqual([1, 2, 3]);
    const detail = (await t.call('GET', `/api/v1/scenario-runs/${results[0].id}`)).body;
    expect(detail.repetition).toBe(1);
    expect(detail.scenario_version).toMatch(/^sha256:[0-9a-f]{16}$/);
  });

  it('labels the broken and the flaky scenario, and a degraded agent is a significant regression against "previous"', async () => {
    probability.A = 0;
    const r = await run({ baseline: 'previous' });
    expect(r.baseline_run_id).toBe(runs[0]);
    const agg = (await t.call('GET', `/api/v1/runs/${r.test_run_id}/scenarios`)).body;
    expect(agg).toMatchObject({ total: 3, limit: 100, offset: 0 });
    const [a, b, c] = agg.scenarios;
    expect(a).toMatchObject({ scenario_id: ids.A, attempts: 5, passed: 0, failed: 5, error: 0, pending: 0, pass_rate: 0, pass_all: false, verdict: 'fail',
      criteria: [{ criterion_index: 0, criterion: 'Confirms the booking', met: 0, partial: 0, not_met: 5, unsure: 0 }] });
    // Wilson 0 of 5: [0, 2 · (3.8415 / 10) / 1.76829] = [0, 43.45 %]
    expect(a.pass_rate_ci).toEqual({ low: 0, high: 43.45 });
    // Wilson 3 of 5: centre .55655, half-width 1.10839 · √(.048 + .038415) = .32583
    expect(b).toMatchObject({ passed: 3, failed: 2, pass_rate: 60, pass_all: false, verdict: 'flaky', pass_rate_ci: { low: 23.07, high: 88.24 } });
    expect(c).toMatchObject({ passed: 5, pass_rate: 100, pass_all: true, verdict: 'pass' });
    expect(r.stats).toMatchObject({ flaky_count: 1, pass_all_count: 1 });

    const cmp = (await t.call('GET', `/api/v1/runs/${r.id}/comparison`)).body;
    expect(cmp).toMatchObject({ run_id: r.id, baseline_run_id: runs[0], verdict: 'regressed',
      pass_rate: { baseline: 80, current: 53.33, delta: -26.67 },
      counts: { regressed: 1, improved: 1, unchanged: 1, flaky: 0, changed_template: 0, incomparable: 0, added: 0, removed: 0 },
      comparability: { comparable: true, warnings: [] } });
    const [ca, cb, cc] = cmp.scenarios;
    // 5/5 → 0/5: only the observed table is as extreme, 1 / C(10,5); Holm over two p-values doubles the smallest
    expect(ca).toMatchObject({ scenario_id: ids.A, change: 'regressed', significant: true, baseline: { attempts: 5, passed: 5, failed: 0, error: 0 }, current: { passed: 0, failed: 5 },
      criteria: [{ criterion_index: 0, baseline: 'MET', current: 'NOT_MET', change: 'changed' }] });
    expect(ca.p_value).toBeCloseTo(1 / 252, 10);
    // 2/5 → 3/5: P(X ≥ 3) = (C(5,3)·C(5,2) + C(5,4)·C(5,1) + 1) / 252 = 126 / 252
    expect(cb).toMatchObject({ change: 'improved', significant: false });
    expect(cb.p_value).toBeCloseTo(0.5, 10);
    expect(cc).toMatchObject({ change: 'unchanged', significant: false, p_value: null });

    // the run's webhook event says what the comparison says; a run without a baseline carries none
    const bodyOf = async (runId: string) => JSON.parse((await t.deps.db.orm.select().from(webhookEvents).where(eq(webhookEvents.runId, runId)))[0].body);
    expect((await bodyOf(r.id)).comparison).toEqual({ baseline_run_id: runs[0], verdict: 'regressed', counts: cmp.counts });
    expect((await bodyOf(r.id)).test_run).toMatchObject({ repeats: 5, baseline_run_id: runs[0], stats: r.stats });
    expect(await bodyOf(runs[0])).not.toHaveProperty('comparison');

    // the same repetition side by side: the caller's line agrees, the agent's answer is where they part
    const rep = async (runId: string) => (await t.call('GET', `/api/v1/runs/${runId}/results?limit=1`)).body.results[0].id;
    const diff = await t.call('GET', `/api/v1/scenario-runs/${await rep(r.id)}/diff?against=${await rep(runs[0])}`);
    expect(diff.status).toBe(200);
    expect(diff.body.first_divergence).toBe(1);
    expect(diff.body.entries[0]).toMatchObject({ index: 0, role: 'user', same: true });
    expect(diff.body.entries[1]).toMatchObject({ index: 1, role: 'assistant', current: 'Sorry, I cannot help with that.', against: 'Done, you are booked.', same: false });
    expect(diff.body.criteria).toEqual([{ criterion_index: 0, criterion: 'Confirms the booking', current: 'NOT_MET', against: 'MET', same: false }]);
  });

  it('an unchanged agent is never a regression (TR-n baseline)', async () => {
    probability.A = 1;
    const first = (await t.call('GET', `/api/v1/runs/${runs[0]}`)).body.test_run_id;
    const r = await run({ baseline: first });
    const cmp = (await t.call('GET', `/api/v1/runs/${r.id}/comparison`)).body;
    // B drew 3 of 5 against the baseline's 2 of 5: a change, but nothing significant
    expect(cmp.verdict).toBe('inconclusive');
    expect(cmp.counts).toMatchObject({ regressed: 0, improved: 1, unchanged: 2 });
    const against = (await t.call('GET', `/api/v1/runs/${r.id}/comparison?against=${runs[1]}`)).body;
    expect(against).toMatchObject({ baseline_run_id: runs[1], verdict: 'improved' });
  });

  it('an edited template is reported as changed_template, never compared silently', async () => {
    expect((await t.call('PUT', `/api/v1/scenarios/${ids.C}`, { body: { pass_threshold: 0.99 } })).status).toBe(200);
    const r = await run({ baseline: runs[2], max_turns: 2 });
    const cmp = (await t.call('GET', `/api/v1/runs/${r.id}/comparison`)).body;
    const c = cmp.scenarios.find((s: any) => s.scenario_id === ids.C);
    expect(c).toMatchObject({ change: 'changed_template', p_value: null, significant: false, criteria: [] });
    expect(cmp.counts.changed_template).toBe(1);
    expect(cmp.comparability.warnings).toEqual(['max_turns: 4 → 2', `template changed: ${names.C}`]);
    expect(['unchanged', 'inconclusive']).toContain(cmp.verdict);
  });

  it('refuses what names no run of the organization, in the one envelope', async () => {
    expectError(await t.call('POST', '/api/v1/runs', { body: { agent_id: agentId, test_suite_id: suiteId, baseline: '018f0000-0000-7000-8000-000000000000' } }), 400, 'RUN_NOT_FOUND');
    expectError(await t.call('POST', '/api/v1/runs', { body: { agent_id: agentId, test_suite_id: suiteId, baseline: 'TR-999999999' } }), 400, 'RUN_NOT_FOUND');
    expectError(await t.call('POST', '/api/v1/runs', { body: { agent_id: agentId, test_suite_id: suiteId, repeats: 11 } }), 400, 'INVALID_FIELD_VALUE');
    expectError(await t.call('GET', `/api/v1/runs/${runs[0]}/comparison`), 409, 'INVALID_STATE');
    expectError(await t.call('GET', `/api/v1/runs/${runs[1]}/comparison?against=TR-999999999`), 404, 'RUN_NOT_FOUND');
    const results = (await t.call('GET', `/api/v1/runs/${runs[0]}/results?limit=2`)).body.results;
    expectError(await t.call('GET', `/api/v1/scenario-runs/${results[0].id}/diff`), 400, 'MISSING_REQUIRED_FIELD');
    const other = await t.newOrg('other');
    expectError(await t.call('GET', `/api/v1/runs/${runs[1]}/scenarios`, { key: other.key }), 404, 'RUN_NOT_FOUND');
    expectError(await t.call('GET', `/api/v1/runs/${runs[1]}/comparison`, { key: other.key }), 404, 'RUN_NOT_FOUND');
    expectError(await t.call('GET', `/api/v1/scenario-runs/${results[0].id}/diff?against=${results[1].id}`, { key: other.key }), 404, 'SCENARIO_RUN_NOT_FOUND');
  });
});
