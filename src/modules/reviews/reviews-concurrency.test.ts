import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../../test/harness.js';
import { createRunOf, finish } from '../../../test/review-fixtures.js';

describe('concurrent reviews', () => {
  let t: TestContext;
  beforeAll(async () => { t = await createTestContext(); });
  afterAll(async () => { await t.close(); });

  it('serialize per scenario run: the counts match the final verdicts and every review is in the history', async () => {
    const { runId, ids } = await createRunOf(t, 3);
    const all = [{ decision: 'MET' as const, required: true }, { decision: 'MET' as const }, { decision: 'MET' as const }];
    await finish(t, runId, ids.map((id) => [id, { status: 'passed', crits: all }] as [string, { status: 'passed'; crits: typeof all }]));
    const posts = ids.flatMap((id) => Array.from({ length: 6 }, (_, k) =>
      t.call('POST', `/api/v1/scenario-runs/${id}/reviews`, { body: { criterion_index: k % 3, decision: k % 2 ? 'MET' : 'NOT_MET' } })));
    const answers = await Promise.all(posts);
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 201));

    const run = (await t.call('GET', `/api/v1/runs/${runId}`)).body;
    const statuses = await Promise.all(ids.map(async (id) => (await t.call('GET', `/api/v1/scenario-runs/${id}`)).body.status));
    expect(run).toMatchObject({
      passed_count: statuses.filter((s) => s === 'passed').length,
      failed_count: statuses.filter((s) => s === 'failed').length,
      error_count: statuses.filter((s) => s === 'error').length,
      reviewed_count: 3,
    });
    for (const id of ids) expect((await t.call('GET', `/api/v1/scenario-runs/${id}/reviews`)).body.total).toBe(6);
  });
});
