import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../../test/harness.js';
import { createRunOf, criteriaResults, finish } from '../../../test/review-fixtures.js';
import { decideOutcome } from '../../engine/outcome.js';
import { scoreCriteria } from '../../engine/scoring.js';

const REVIEW_FIELDS = ['created_at', 'criterion_index', 'decision', 'id', 'judge_decision', 'note', 'reviewer'];

describe('reviews re-score the scenario run and its run', () => {
  let t: TestContext;
  let runId: string;
  let ids: string[];
  let keyId: string;
  const run = async () => (await t.call('GET', `/api/v1/runs/${runId}`)).body;
  const sr = async (id: string) => (await t.call('GET', `/api/v1/scenario-runs/${id}`)).body;
  const review = (id: string, body: unknown, key?: string) => t.call('POST', `/api/v1/scenario-runs/${id}/reviews`, { body, key });

  beforeAll(async () => {
    t = await createTestContext();
    keyId = (await t.call('GET', '/api/v1/api-keys')).body.api_keys[0].id;
    ({ runId, ids } = await createRunOf(t, 5));
    await finish(t, runId, [
      [ids[0], { status: 'passed', crits: [{ decision: 'MET', required: true }, { decision: 'MET' }, { decision: 'MET' }], summary: '3 of 3 criteria met (score 1.00)' }],
      [ids[1], { status: 'failed', crits: [{ decision: 'MET', required: true }, { decision: 'NOT_MET' }, { decision: 'NOT_MET' }] }],
      // a judge that failed: its criteria were kept UNSURE, and its error is no grade to re-score
      [ids[2], { status: 'error', crits: [{ decision: 'UNSURE', required: true }, { decision: 'UNSURE' }, { decision: 'UNSURE' }], summary: null as unknown as string, error: 'judge: upstream answered 500' }],
    ]);
    // grading that could not decide: the stored error is exactly what scoring these decisions gives
    const undecided = criteriaResults([{ decision: 'UNSURE', required: true }, { decision: 'UNSURE' }, { decision: 'UNSURE' }]);
    const score = scoreCriteria(undecided, 0.7);
    await t.deps.db.executeSql(
      `update scenario_runs set status = 'error', criteria_results = $2::jsonb, grade_summary = $3, error_message = $4, judge_model = 'judge-a', fault = 'judge', completed_at = now() where id = $1`,
      [ids[3], JSON.stringify(undecided), score.grade_summary, decideOutcome({ event: 'graded', score }).message],
    );
    await t.deps.db.executeSql(`update runs set error_count = error_count + 1, fault_judge = fault_judge + 1, status = 'running' where id = $1`, [runId]);
  });
  afterAll(async () => { await t.close(); });

  it('a reviewed NOT_MET on a required criterion turns a pass into a failure; the run counts follow, its status does not', async () => {
    expect(await run()).toMatchObject({ passed_count: 1, failed_count: 1, error_count: 2, pass_rate: 50, reviewed_count: 0, status: 'running' });
    const res = await review(ids[0], { criterion_index: 0, decision: 'NOT_MET', note: 'It never greeted the caller' });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(REVIEW_FIELDS);
    expect(res.body).toMatchObject({ criterion_index: 0, decision: 'NOT_MET', note: 'It never greeted the caller', judge_decision: 'MET', reviewer: { api_key_id: keyId, name: expect.any(String) } });
    const detail = await sr(ids[0]);
    expect(detail).toMatchObject({ status: 'failed', passed: false, error_message: null });
    expect(detail.grade_summary).toContain('not met: "Criterion 0" (required)');
    expect(detail.criteria_results[0]).toMatchObject({ decision: 'NOT_MET', judge_decision: 'MET', points_awarded: 0, review: res.body, rationale: 'judged MET' });
    expect(detail.criteria_results[1]).toMatchObject({ decision: 'MET', judge_decision: 'MET', review: null });
    expect(await run()).toMatchObject({ passed_count: 0, failed_count: 2, error_count: 2, pass_rate: 0, reviewed_count: 1, status: 'running' });
    const listed = (await t.call('GET', `/api/v1/scenario-runs?test_run_id=${runId}&passed=false`)).body.scenario_runs.map((s: any) => s.id);
    expect(listed).toEqual([ids[0], ids[1]]);
  });

  it('reviews turn a failure into a pass; a later review replaces the effective decision and keeps the history', async () => {
    expect((await review(ids[1], { criterion_index: 1, decision: 'MET' })).status).toBe(201);
    // 2 of 3 points: still below 0.7
    expect(await sr(ids[1])).toMatchObject({ status: 'failed', passed: false });
    expect((await review(ids[1], { criterion_index: 2, decision: 'PARTIAL' })).status).toBe(201);
    expect(await sr(ids[1])).toMatchObject({ status: 'passed', passed: true, grade_summary: expect.stringContaining('score 0.83') });
    expect(await run()).toMatchObject({ passed_count: 1, failed_count: 1, pass_rate: 50, reviewed_count: 2 });

    const second = await review(ids[0], { criterion_index: 0, decision: 'MET', note: 'On a second listen it did' });
    expect(second.body).toMatchObject({ decision: 'MET', judge_decision: 'MET' });
    const detail = await sr(ids[0]);
    expect(detail).toMatchObject({ status: 'passed', passed: true });
    expect(detail.criteria_results[0]).toMatchObject({ decision: 'MET', judge_decision: 'MET', points_awarded: 1, review: second.body });
    // scenario runs reviewed, not reviews: still 2
    expect(await run()).toMatchObject({ passed_count: 2, failed_count: 0, pass_rate: 100, reviewed_count: 2, status: 'running' });

    const history = await t.call('GET', `/api/v1/scenario-runs/${ids[0]}/reviews`);
    expect(history.status).toBe(200);
    expect(history.body).toMatchObject({ total: 2, limit: 50, offset: 0 });
    expect(history.body.reviews.map((r: any) => [r.decision, r.note])).toEqual([['NOT_MET', 'It never greeted the caller'], ['MET', 'On a second listen it did']]);
    expect(history.body.reviews[1]).toEqual(second.body);
    const one = await t.call('GET', `/api/v1/scenario-runs/${ids[1]}/reviews?criterion_index=2`);
    expect(one.body.reviews.map((r: any) => r.decision)).toEqual(['PARTIAL']);
  });

  it('an inconclusive grade is re-scored: decided criteria make it a verdict and move it out of the errors', async () => {
    for (const i of [0, 1, 2]) expect((await review(ids[3], { criterion_index: i, decision: 'MET' })).status).toBe(201);
    expect(await sr(ids[3])).toMatchObject({ status: 'passed', passed: true, error_message: null, fault: null, decided_share: 1 });
    expect(await run()).toMatchObject({ passed_count: 3, failed_count: 0, error_count: 1, reviewed_count: 3, faults: { agent: 0, judge: 1 } });
  });

  it('a failure that is not a grade keeps its status: the review changes the criterion only', async () => {
    const res = await review(ids[2], { criterion_index: 0, decision: 'MET' });
    expect(res.body).toMatchObject({ judge_decision: 'UNSURE', decision: 'MET' });
    const detail = await sr(ids[2]);
    expect(detail).toMatchObject({ status: 'error', passed: null, error_message: 'judge: upstream answered 500' });
    expect(detail.criteria_results[0]).toMatchObject({ decision: 'MET', judge_decision: 'UNSURE' });
    expect(await run()).toMatchObject({ passed_count: 3, failed_count: 0, error_count: 1, reviewed_count: 4 });
  });

  it('409 for an unfinished scenario run, 400 for a bad body, 404 for another organization', async () => {
    expectError(await review(ids[4], { criterion_index: 0, decision: 'MET' }), 409, 'INVALID_STATE');
    expectError(await review(ids[0], { criterion_index: 3, decision: 'MET' }), 400, 'INVALID_FIELD_VALUE');
    expectError(await review(ids[0], { criterion_index: -1, decision: 'MET' }), 400, 'INVALID_FIELD_VALUE');
    expectError(await review(ids[0], { criterion_index: 0, decision: 'UNSURE' }), 400, 'INVALID_FIELD_VALUE');
    expectError(await review(ids[0], { criterion_index: 0, decision: 'MET', note: 'x'.repeat(2001) }), 400, 'INVALID_FIELD_VALUE');
    expectError(await review(ids[0], { decision: 'MET' }), 400, 'MISSING_REQUIRED_FIELD');
    expectError(await review(ids[0], { criterion_index: 0 }), 400, 'MISSING_REQUIRED_FIELD');
    expect((await review(ids[0], { criterion_index: 0, decision: 'MET', note: 'x'.repeat(2000) })).status).toBe(201);

    const before = [await sr(ids[0]), await run()];
    const other = await t.newOrg();
    expectError(await review(ids[0], { criterion_index: 0, decision: 'NOT_MET' }, other.key), 404, 'SCENARIO_RUN_NOT_FOUND');
    expectError(await t.call('GET', `/api/v1/scenario-runs/${ids[0]}/reviews`, { key: other.key }), 404, 'SCENARIO_RUN_NOT_FOUND');
    expectError(await review('not-an-id', { criterion_index: 0, decision: 'MET' }), 404, 'SCENARIO_RUN_NOT_FOUND');
    expect([await sr(ids[0]), await run()]).toEqual(before);
  });
});
