import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../../test/harness.js';
import { createRunOf, finish } from '../../../test/review-fixtures.js';

const zeros = { MET: 0, PARTIAL: 0, NOT_MET: 0 };

describe('GET /judge/agreement', () => {
  let t: TestContext;
  let ids: string[];
  const agreement = async (q = '', key?: string) => t.call('GET', `/api/v1/judge/agreement${q}`, { key });
  const review = async (id: string, criterion_index: number, decision: string) => {
    const res = await t.call('POST', `/api/v1/scenario-runs/${id}/reviews`, { body: { criterion_index, decision } });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };

  beforeAll(async () => {
    t = await createTestContext();
    let runId: string;
    ({ runId, ids } = await createRunOf(t, 4));
    await finish(t, runId, [
      [ids[0], { status: 'failed', crits: [{ decision: 'MET', required: true }, { decision: 'NOT_MET' }, { decision: 'UNSURE' }], judgeModel: 'judge-a' }],
      [ids[1], { status: 'failed', crits: [{ decision: 'PARTIAL', required: true }, { decision: 'MET' }, { decision: 'MET', check: true }], judgeModel: 'judge-b' }],
      // graded without a judge model: its judge criteria were never judged, so reviewing them says nothing of a judge
      [ids[2], { status: 'error', crits: [{ decision: 'UNSURE', required: true }, { decision: 'UNSURE' }, { decision: 'UNSURE' }], judgeModel: null, error: 'grading inconclusive' }],
    ]);
  });
  afterAll(async () => { await t.close(); });

  it('nothing reviewed: zero counts, null figures, every confusion key', async () => {
    const res = await agreement();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      reviewed: 0, agreement: null, cohen_kappa: null, by_judge_model: [],
      confusion: { MET: zeros, PARTIAL: zeros, NOT_MET: zeros, UNSURE: zeros },
    });
  });

  it('overall and per judge model, computed by hand; the latest review of a criterion counts, checks do not', async () => {
    await review(ids[0], 0, 'MET'); // judge MET → MET: agree
    await review(ids[0], 1, 'MET'); // superseded below
    await review(ids[0], 1, 'NOT_MET'); // judge NOT_MET → NOT_MET: agree
    await review(ids[0], 2, 'NOT_MET'); // judge UNSURE never matches
    await review(ids[1], 0, 'NOT_MET'); // judge PARTIAL → NOT_MET: disagree
    await review(ids[1], 1, 'MET'); // judge MET → MET: agree
    await review(ids[1], 2, 'NOT_MET'); // a deterministic check: left out
    await review(ids[2], 0, 'MET'); // no judge model: left out

    const res = await agreement();
    // 5 pairs, 3 agree → 60 %. Judge: MET 2, NOT_MET 1, UNSURE 1, PARTIAL 1; review: MET 2, NOT_MET 3.
    // p_e = (2·2 + 1·3) / 25 = 0.28; κ = (0.6 − 0.28) / 0.72 = 0.444
    // judge-a: 2 of 3 agree; p_e = (1·1 + 1·2) / 9 = 1/3; κ = (2/3 − 1/3) / (2/3) = 0.5
    // judge-b: 1 of 2 agree; p_e = (1·1) / 4 = 0.25; κ = 0.25 / 0.75 = 0.333
    expect(res.body).toEqual({
      reviewed: 5, agreement: 60, cohen_kappa: 0.444,
      confusion: {
        MET: { MET: 2, PARTIAL: 0, NOT_MET: 0 }, PARTIAL: { MET: 0, PARTIAL: 0, NOT_MET: 1 },
        NOT_MET: { MET: 0, PARTIAL: 0, NOT_MET: 1 }, UNSURE: { MET: 0, PARTIAL: 0, NOT_MET: 1 },
      },
      by_judge_model: [
        { judge_model: 'judge-a', reviewed: 3, agreement: 66.67, cohen_kappa: 0.5 },
        { judge_model: 'judge-b', reviewed: 2, agreement: 50, cohen_kappa: 0.333 },
      ],
    });
  });

  it('judge_model matches exactly; since keeps criteria whose effective review is that recent', async () => {
    const b = await agreement('?judge_model=judge-b');
    expect(b.body).toMatchObject({ reviewed: 2, agreement: 50, cohen_kappa: 0.333, by_judge_model: [{ judge_model: 'judge-b', reviewed: 2 }] });
    expect((await agreement('?judge_model=judge')).body).toMatchObject({ reviewed: 0, agreement: null, cohen_kappa: null, by_judge_model: [] });

    await t.deps.db.executeSql(`update reviews set created_at = '2026-01-01T00:00:00Z' where scenario_run_id = $1`, [ids[1]]);
    const recent = await agreement('?since=2026-06-01T00:00:00Z');
    expect(recent.body).toMatchObject({ reviewed: 3, agreement: 66.67, cohen_kappa: 0.5, by_judge_model: [{ judge_model: 'judge-a' }] });
    expect((await agreement('?since=2026-01-01T00:00:00Z')).body.reviewed).toBe(5);
    expect((await agreement('?since=2026-01-01T00:00:00.001Z')).body.reviewed).toBe(3);
    expect((await agreement('?since=2026-01-01')).body.reviewed).toBe(5);
    expect((await agreement('?since=2026-01-01T01:00:00%2B02:00')).body.reviewed).toBe(5);
    expect((await agreement('?since=2999-01-01T00:00:00Z')).body).toMatchObject({ reviewed: 0, agreement: null, cohen_kappa: null, by_judge_model: [] });
  });

  it('a malformed since is 400; another organization sees none of it', async () => {
    for (const bad of ['yesterday', '2026-13-01', '2026-02-30', '2026-01-01T25:00:00Z', '', '1700000000']) {
      expectError(await agreement(`?since=${encodeURIComponent(bad)}`), 400, 'INVALID_FIELD_VALUE');
    }
    const other = await t.newOrg();
    expect((await agreement('', other.key)).body).toMatchObject({ reviewed: 0, agreement: null, by_judge_model: [] });
  });
});
