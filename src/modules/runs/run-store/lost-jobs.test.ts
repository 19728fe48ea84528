import { and, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../../../test/harness.js';
import { scenarioRuns } from '../../../db/schema.js';
import { LOST_SCENARIO_JOB_AFTER_MS, reenqueueUnclaimedScenarioRuns, type UnclaimedScenarioRun } from './lost-jobs.js';

// no engine: nothing claims, so the sweeper's choices are all there is to see
describe('the scenario-run sweeper', () => {
  let t: TestContext;
  let agentId: string;
  beforeAll(async () => {
    t = await createTestContext({ config: { maxConcurrentRuns: 1000 } });
    agentId = (await t.call('POST', '/api/v1/agents', { body: { provider: 'provider_4', name: 'Desk', config: { base_url: 'http://127.0.0.1:9/v1', model: 'm' } } })).body.id;
  });
  afterAll(async () => { await t.close(); });

  const newRun = async () => (await t.call('POST', '/api/v1/runs', { body: { agent_id: agentId, max_scenarios: 4 } })).body.id as string;
  const rowsOf = (runId: string) => t.deps.db.orm.select().from(scenarioRuns).where(eq(scenarioRuns.runId, runId)).orderBy(scenarioRuns.position);
  const sweep = async () => {
    const sent: UnclaimedScenarioRun[] = [];
    await reenqueueUnclaimedScenarioRuns(t.deps, async (_tx, sr) => { sent.push(sr); });
    return sent.map((s) => s.id).sort();
  };

  it('re-enqueues claimable scenario runs whose job is long gone, once per period; not waiting, claimed or canceled ones', async () => {
    const runId = await newRun();
    const [lostPending, freshPending, handedBack, held] = await rowsOf(runId);
    const longAgo = new Date(Date.now() - LOST_SCENARIO_JOB_AFTER_MS - 1000);
    const set = (id: string, v: Partial<typeof scenarioRuns.$inferInsert>) => t.deps.db.orm.update(scenarioRuns).set(v).where(eq(scenarioRuns.id, id));
    await set(lostPending.id, { enqueued: true, enqueuedAt: longAgo });
    await set(freshPending.id, { enqueued: true, enqueuedAt: new Date() });
    await set(handedBack.id, { status: 'running', leaseOwner: null, enqueued: true, enqueuedAt: longAgo });
    await set(held.id, { status: 'running', leaseOwner: 'w1', leaseExpiresAt: new Date(Date.now() + 30_000), enqueued: true, enqueuedAt: longAgo });
    const canceled = await newRun();
    await t.deps.db.orm.update(scenarioRuns).set({ enqueued: true, enqueuedAt: longAgo }).where(eq(scenarioRuns.runId, canceled));
    expect((await t.call('POST', `/api/v1/runs/${canceled}/cancel`)).status).toBe(200);

    expect(await sweep()).toEqual([lostPending.id, handedBack.id].sort());
    // replaced once: the next pass finds their job recent
    expect(await sweep()).toEqual([]);
    const after = await t.deps.db.orm.select().from(scenarioRuns).where(and(eq(scenarioRuns.runId, runId), inArray(scenarioRuns.id, [lostPending.id, handedBack.id])));
    for (const r of after) expect(r.enqueuedAt!.getTime()).toBeGreaterThan(longAgo.getTime() + 1000);
  });
});
