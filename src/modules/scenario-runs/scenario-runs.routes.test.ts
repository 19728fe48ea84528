import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../../test/harness.js';

const LIST_FIELDS = ['agent_turns', 'completed_at', 'created_at', 'decided_share', 'duration_ms', 'end_reason', 'error_message', 'fault', 'grade_summary', 'id', 'passed', 'repetition', 'scenario_id', 'scenario_name', 'status', 'test_run_id'];
const DETAIL_FIELDS = ['agent_turns', 'attempt_history', 'attempts', 'completed_at', 'created_at', 'criteria_results', 'decided_share', 'duration_ms', 'end_reason', 'error_message', 'fault', 'grade_summary', 'id', 'judge_model', 'judge_prompt_version', 'metrics', 'passed', 'repetition', 'scenario_id', 'scenario_name', 'scenario_version', 'started_at', 'status', 'test_run_id', 'tester_model', 'transcript'];

describe('scenario runs', () => {
  let t: TestContext;
  let runId: string;
  let ids: string[];
  beforeAll(async () => {
    t = await createTestContext();
    const agent = (await t.call('POST', '/api/v1/agents', { body: { provider: 'provider_4', name: 'A', config: { base_url: 'http://127.0.0.1:9/v1', model: 'm' } } })).body.id;
    runId = (await t.call('POST', '/api/v1/runs', { body: { agent_id: agent, max_scenarios: 6 } })).body.id;
    ids = (await t.call('GET', `/api/v1/runs/${runId}/results`)).body.results.map((r: any) => r.id);
    const set = (i: number, sql: string) => t.deps.db.executeSql(`update scenario_runs set ${sql} where id = $1`, [ids[i]]);
    await set(0, `status = 'passed', passed = true, grade_summary = '2 of 2 criteria met (score 1.00)', completed_at = now(), duration_ms = 1200`);
    await set(1, `status = 'failed', passed = false, completed_at = now(), fault = 'agent'`);
    await set(2, `status = 'error', error_message = 'provider: 401 invalid key', completed_at = now(), fault = 'agent'`);
    await set(3, `status = 'grading'`);
    await set(4, `status = 'running'`);
  });
  afterAll(async () => { await t.close(); });

  it('lists with the coarse vocabulary: graded = completed + passed boolean', async () => {
    const res = await t.call('GET', `/api/v1/scenario-runs?test_run_id=${runId}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 6, limit: 50, offset: 0 });
    expect(Object.keys(res.body.scenario_runs[0]).sort()).toEqual(LIST_FIELDS);
    expect(res.body.scenario_runs.map((s: any) => [s.status, s.passed])).toEqual([
      ['completed', true], ['completed', false], ['error', null], ['running', null], ['running', null], ['pending', null],
    ]);
  });

  it('filters by status and passed', async () => {
    const q = async (s: string) => (await t.call('GET', `/api/v1/scenario-runs?test_run_id=${runId}&${s}`)).body.scenario_runs.map((r: any) => r.id);
    expect(await q('status=completed')).toEqual([ids[0], ids[1]]);
    expect(await q('status=failed')).toEqual([ids[1]]);
    expect(await q('status=error')).toEqual([ids[2]]);
    expect(await q('status=running')).toEqual([ids[3], ids[4]]);
    expect(await q('fault=agent')).toEqual([ids[1], ids[2]]);
    expect(await q('fault=judge')).toEqual([]);
    expect(await q('status=error&fault=agent')).toEqual([ids[2]]);
    expectError(await t.call('GET', `/api/v1/scenario-runs?test_run_id=${runId}&fault=nobody`), 400, 'INVALID_FIELD_VALUE');
    expect(await q('status=pending')).toEqual([ids[5]]);
    expect(await q('passed=true')).toEqual([ids[0]]);
    expect(await q('passed=false')).toEqual([ids[1]]);
    expect(await q('status=completed&passed=false')).toEqual([ids[1]]);
    expect((await t.call('GET', `/api/v1/scenario-runs?test_run_id=${runId}&limit=500`)).body.limit).toBe(100);
  });

  it('errors: missing test_run_id, bad status, unknown or foreign run', async () => {
    expectError(await t.call('GET', '/api/v1/scenario-runs'), 400, 'MISSING_REQUIRED_FIELD');
    expectError(await t.call('GET', `/api/v1/scenario-runs?test_run_id=${runId}&status=passed`), 400, 'INVALID_FIELD_VALUE');
    for (const s of ['constructor', '__proto__', 'toString']) {
      expectError(await t.call('GET', `/api/v1/scenario-runs?test_run_id=${runId}&status=${s}`), 400, 'INVALID_FIELD_VALUE');
    }
    expectError(await t.call('GET', `/api/v1/scenario-runs?test_run_id=${runId}&passed=maybe`), 400, 'INVALID_FIELD_VALUE');
    expectError(await t.call('GET', '/api/v1/scenario-runs?test_run_id=abc'), 400, 'INVALID_FIELD_VALUE');
    expectError(await t.call('GET', '/api/v1/scenario-runs?test_run_id=00000000-0000-7000-8000-000000000000'), 404, 'NOT_FOUND');
    const other = await t.newOrg();
    expectError(await t.call('GET', `/api/v1/scenario-runs?test_run_id=${runId}`, { key: other.key }), 404, 'NOT_FOUND');
  });

  it('detail shows the full status vocabulary, passed null until graded', async () => {
    const passed = await t.call('GET', `/api/v1/scenario-runs/${ids[0]}`);
    expect(Object.keys(passed.body).sort()).toEqual(DETAIL_FIELDS);
    expect(passed.body).toMatchObject({ status: 'passed', passed: true, test_run_id: runId, duration_ms: 1200, transcript: [], criteria_results: [] });
    expect((await t.call('GET', `/api/v1/scenario-runs/${ids[3]}`)).body).toMatchObject({ status: 'grading', passed: null });
    expect((await t.call('GET', `/api/v1/scenario-runs/${ids[2]}`)).body).toMatchObject({ status: 'error', passed: null, error_message: 'provider: 401 invalid key' });
    const other = await t.newOrg();
    expectError(await t.call('GET', `/api/v1/scenario-runs/${ids[0]}`, { key: other.key }), 404, 'SCENARIO_RUN_NOT_FOUND');
    expectError(await t.call('GET', '/api/v1/scenario-runs/xyz'), 404, 'SCENARIO_RUN_NOT_FOUND');
  });
});
