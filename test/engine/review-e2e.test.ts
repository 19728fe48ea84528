import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, waitForRun, type TestContext } from '../harness.js';
import { startFakeOpenAi, type FakeOpenAiServer } from '../fakes/openai-agent.js';

// A run graded by the engine, then corrected by a person: the threshold the run was created with holds even
// after the template is edited, and the run's webhook event (already recorded) is not sent again.
describe('reviewing what the engine graded', () => {
  let t: TestContext;
  let agent: FakeOpenAiServer;
  beforeAll(async () => {
    agent = await startFakeOpenAi({ reply: () => 'Hello! You are booked for Tuesday.' });
    t = await createTestContext({ engine: { pollIntervalMs: 50 } });
  });
  afterAll(async () => { await t.close(); await agent.close(); });

  it('re-scores against the run\'s own threshold and moves the completed run\'s counts', async () => {
    const ok = async (method: string, url: string, body?: unknown) => {
      const res = await t.call(method, `/api/v1${url}`, { body });
      expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
      return res.body;
    };
    const agentId = (await ok('POST', '/agents', { provider: 'provider_4', name: 'Desk', config: { base_url: agent.baseUrl, model: 'desk', api_key: 'sk-test' } })).id;
    const scenario = await ok('POST', '/scenarios', {
      name: 'Booking', script: ['Hi, I would like to book.'], pass_threshold: 0.5,
      criteria: [
        { criterion: 'Greets', check: { type: 'contains', value: 'hello' } },
        { criterion: 'Books', check: { type: 'contains', value: 'booked' } },
      ],
    });
    const suite = await ok('POST', '/test-suites', { name: 'S', scenario_ids: [scenario.id] });
    const created = await ok('POST', '/runs', { agent_id: agentId, test_suite_id: suite.id, max_turns: 2 });
    const run = await waitForRun(t, created.id);
    expect(run).toMatchObject({ status: 'completed', passed_count: 1, failed_count: 0, pass_rate: 100, reviewed_count: 0 });
    const [result] = (await ok('GET', `/runs/${run.id}/results`)).results;

    // the template now asks for every point; the run was graded (and is re-scored) at 0.5
    await ok('PUT', `/scenarios/${scenario.id}`, { pass_threshold: 1 });
    const review = await ok('POST', `/scenario-runs/${result.id}/reviews`, { criterion_index: 1, decision: 'NOT_MET', note: 'Nothing was booked' });
    expect(review).toMatchObject({ criterion_index: 1, decision: 'NOT_MET', judge_decision: 'MET', note: 'Nothing was booked' });
    const sr = await ok('GET', `/scenario-runs/${result.id}`);
    expect(sr).toMatchObject({ status: 'passed', passed: true });
    expect(sr.criteria_results[1]).toMatchObject({ decision: 'NOT_MET', judge_decision: 'MET', graded_by: 'check', review });
    expect(await ok('GET', `/runs/${run.id}`)).toMatchObject({ status: 'completed', passed_count: 1, reviewed_count: 1 });

    await ok('POST', `/scenario-runs/${result.id}/reviews`, { criterion_index: 0, decision: 'PARTIAL' });
    expect(await ok('GET', `/scenario-runs/${result.id}`)).toMatchObject({ status: 'failed', passed: false });
    expect(await ok('GET', `/runs/${run.id}`)).toMatchObject({
      status: 'completed', passed_count: 0, failed_count: 1, pass_rate: 0, reviewed_count: 1, completed_at: run.completed_at,
    });
    const events = await t.deps.db.executeSql('select count(*)::int as n from webhook_events where run_id = $1', [run.id]);
    expect(events.rows[0].n).toBe(1);
  });
});
