import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../../test/harness.js';
import { fakeClock } from '../../../test/fake-clock.js';
import { runs, scheduleFirings } from '../../db/schema.js';
import { fireDueSchedules } from './schedule-firing.js';

// Workflow §4: a fired schedule creates its run exactly as POST /runs would, once per minute, in the same
// transaction as the firing's claim; a deactivated schedule fires for no later minute; firings newest first.

const p4 = { base_url: 'http://127.0.0.1:9/v1', model: 'm' };
const at = (hhmmss: string) => Date.parse(`2026-11-25T${hhmmss}.000Z`);

describe('schedule firings', () => {
  let t: TestContext;
  const clock = fakeClock(at('09:00:30'));
  let agentId: string;
  let suiteId: string;
  const firings = async (id: string, q = '') => (await t.call('GET', `/api/v1/schedules/${id}/firings${q}`)).body;
  const cancelAll = async () => {
    for (const r of (await t.call('GET', '/api/v1/runs?limit=100')).body.runs) {
      if (r.status === 'pending' || r.status === 'running') await t.call('POST', `/api/v1/runs/${r.id}/cancel`);
    }
  };
  const newSchedule = async (body: Record<string, unknown>) => {
    const res = await t.call('POST', '/api/v1/schedules', { body: { agent_id: agentId, test_suite_id: suiteId, cron: '* * * * *', ...body } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as { id: string };
  };

  beforeAll(async () => {
    t = await createTestContext({ clock, config: { maxConcurrentRuns: 2 } });
    agentId = (await t.call('POST', '/api/v1/agents', { body: { provider: 'provider_4', name: 'Desk', config: p4 } })).body.id;
    const ids: string[] = [];
    for (const name of ['One', 'Two', 'Three']) {
      ids.push((await t.call('POST', '/api/v1/scenarios', { body: { name, script: ['Hi', 'Bye'], criteria: [{ criterion: 'Greets', check: { type: 'contains', value: 'hi' } }] } })).body.id);
    }
    suiteId = (await t.call('POST', '/api/v1/test-suites', { body: { name: 'Nightly', scenario_ids: ids } })).body.id;
  });
  afterAll(async () => { await t?.close(); });

  it('creates the run exactly as POST /runs would with the schedule\'s test_mode, max_scenarios, max_turns, repeats and baseline', async () => {
    // a completed run of the same agent and suite: what "previous" names
    const prev = await t.call('POST', '/api/v1/runs', { body: { agent_id: agentId, test_suite_id: suiteId, max_scenarios: 1 } });
    await t.deps.db.orm.update(runs).set({ status: 'completed', completedAt: new Date(clock.now()) }).where(eq(runs.id, prev.body.id));
    const fields = { test_mode: 'full', max_scenarios: 2, max_turns: 3, repeats: 3, baseline: 'previous' };
    const s = await newSchedule(fields);
    clock.set(at('09:01:04'));
    expect(await fireDueSchedules(t.deps)).toBe(1);
    const [f] = (await firings(s.id)).firings;
    expect(f).toMatchObject({ status: 'created', reason: null, scheduled_for: '2026-11-25T09:01:00.000Z', fired_at: '2026-11-25T09:01:04.000Z' });
    const fired = (await t.call('GET', `/api/v1/runs/${f.run_id}`)).body;
    const direct = await t.call('POST', '/api/v1/runs', { body: { agent_id: agentId, test_suite_id: suiteId, ...fields } });
    expect(direct.status).toBe(201);
    const byHand = (await t.call('GET', `/api/v1/runs/${direct.body.id}`)).body;
    const same = (r: Record<string, unknown>) => ({
      name: r.name, test_mode: r.test_mode, max_turns: r.max_turns, repeats: r.repeats, scenario_count: r.scenario_count,
      total_scenarios: r.total_scenarios, baseline_run_id: r.baseline_run_id, warnings: r.warnings, agent_id: r.agent_id, test_suite_id: r.test_suite_id,
    });
    expect(same(fired)).toEqual(same(byHand));
    expect(fired).toMatchObject({ test_mode: 'full', max_turns: 3, repeats: 3, scenario_count: 2, total_scenarios: 6, baseline_run_id: prev.body.id });
    expect((await t.call('GET', `/api/v1/schedules/${s.id}`)).body.last_run_id).toBe(f.run_id);
    await t.call('DELETE', `/api/v1/schedules/${s.id}`);
    await cancelAll();
  });

  it('the claim and the run are one transaction: a firing that fails leaves neither, and the retried tick fires the minute once', async () => {
    const s = await newSchedule({ max_turns: 1 });
    clock.set(at('09:02:03'));
    const enqueue = t.deps.hooks.enqueueRun;
    t.deps.hooks.enqueueRun = async () => { throw new Error('queue unavailable'); };
    try {
      await expect(fireDueSchedules(t.deps)).rejects.toThrow('queue unavailable');
    } finally { t.deps.hooks.enqueueRun = enqueue; }
    expect(await t.deps.db.orm.select().from(scheduleFirings).where(eq(scheduleFirings.scheduleId, s.id))).toHaveLength(0);
    expect((await t.call('GET', '/api/v1/runs?status=pending')).body.total).toBe(0);
    // retried (twice at once, as two workers would)
    clock.set(at('09:02:09'));
    const counts = await Promise.all([fireDueSchedules(t.deps), fireDueSchedules(t.deps), fireDueSchedules(t.deps)]);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(1);
    const list = await firings(s.id);
    expect(list.total).toBe(1);
    expect((await t.call('GET', '/api/v1/runs?status=pending')).body.runs.map((r: { id: string }) => r.id)).toEqual([list.firings[0].run_id]);
    await t.call('DELETE', `/api/v1/schedules/${s.id}`);
    await cancelAll();
  });

  it('at the concurrent-run limit the firing is skipped with a sentence naming the limit; firings are listed newest first', async () => {
    const s = await newSchedule({ max_turns: 1 });
    clock.set(at('09:03:05'));
    await fireDueSchedules(t.deps);
    clock.set(at('09:04:05'));
    await fireDueSchedules(t.deps);
    // two runs in progress, the limit is 2
    clock.set(at('09:05:05'));
    expect(await fireDueSchedules(t.deps)).toBe(1);
    const list = await firings(s.id);
    expect(list).toMatchObject({ total: 3, limit: 50, offset: 0 });
    expect(list.firings.map((f: { scheduled_for: string }) => f.scheduled_for)).toEqual(['2026-11-25T09:05:00.000Z', '2026-11-25T09:04:00.000Z', '2026-11-25T09:03:00.000Z']);
    const [skipped, second] = list.firings;
    expect(skipped).toMatchObject({ status: 'skipped', run_id: null });
    expect(skipped.reason).toBe('Skipped: the organization was at its limit of 2 concurrent runs (REHEARSAL_MAX_CONCURRENT_RUNS) when this minute fired.');
    expect(Object.keys(skipped).sort()).toEqual(['fired_at', 'id', 'reason', 'run_id', 'scheduled_for', 'status']);
    // last_run_id stays on the newest run that was created
    expect((await t.call('GET', `/api/v1/schedules/${s.id}`)).body.last_run_id).toBe(second.run_id);
    const page = await firings(s.id, '?limit=1&offset=1');
    expect(page).toMatchObject({ total: 3, limit: 1, offset: 1, firings: [{ id: second.id }] });
    await t.call('DELETE', `/api/v1/schedules/${s.id}`);
    await cancelAll();
  });

  it('a deactivated schedule fires for no later minute; reactivated, it fires from the next minute on', async () => {
    const s = await newSchedule({ max_turns: 1 });
    clock.set(at('09:06:20'));
    expect(await fireDueSchedules(t.deps)).toBe(1);
    await cancelAll();
    clock.set(at('09:06:40'));
    expect((await t.call('PATCH', `/api/v1/schedules/${s.id}`, { body: { is_active: false } })).body.next_run_at).toBeNull();
    for (const time of ['09:07:02', '09:08:02', '09:09:02']) {
      clock.set(at(time));
      expect(await fireDueSchedules(t.deps)).toBe(0);
    }
    clock.set(at('09:09:30'));
    await t.call('PATCH', `/api/v1/schedules/${s.id}`, { body: { is_active: true } });
    // 09:09 is before the change: not fired
    clock.set(at('09:09:50'));
    expect(await fireDueSchedules(t.deps)).toBe(0);
    clock.set(at('09:10:01'));
    expect(await fireDueSchedules(t.deps)).toBe(1);
    expect((await firings(s.id)).firings.map((f: { scheduled_for: string }) => f.scheduled_for)).toEqual(['2026-11-25T09:10:00.000Z', '2026-11-25T09:06:00.000Z']);
    await t.call('DELETE', `/api/v1/schedules/${s.id}`);
    await cancelAll();
  });

  it('the schedule\'s time zone decides the minute; repeats above POST /runs\'s range are refused', async () => {
    // 10:11 in Berlin (UTC+1) is 09:11 UTC
    const s = await newSchedule({ cron: '11 10 * * *', timezone: 'Europe/Berlin', max_turns: 1 });
    clock.set(at('09:11:07'));
    expect(await fireDueSchedules(t.deps)).toBe(1);
    expect((await firings(s.id)).firings[0].scheduled_for).toBe('2026-11-25T09:11:00.000Z');
    expect((await t.call('GET', `/api/v1/schedules/${s.id}`)).body.next_run_at).toBe('2026-11-26T09:11:00.000Z');
    expectError(await t.call('POST', '/api/v1/schedules', { body: { agent_id: agentId, cron: '* * * * *', baseline: '01900000-0000-7000-8000-000000000000' } }), 400, 'RUN_NOT_FOUND');
    expectError(await t.call('POST', '/api/v1/schedules', { body: { agent_id: agentId, cron: '* * * * *', baseline: 'TR-999999' } }), 400, 'RUN_NOT_FOUND');
    const other = await t.newOrg('firing-other');
    const theirs = await t.call('POST', '/api/v1/agents', { key: other.key, body: { provider: 'provider_4', name: 'Theirs', config: p4 } });
    const theirRun = await t.call('POST', '/api/v1/runs', { key: other.key, body: { agent_id: theirs.body.id, max_scenarios: 1 } });
    expect(theirRun.status).toBe(201);
    expectError(await t.call('POST', '/api/v1/schedules', { body: { agent_id: agentId, cron: '* * * * *', baseline: theirRun.body.id } }), 400, 'RUN_NOT_FOUND');
    const mine = (await t.call('GET', '/api/v1/runs?limit=1')).body.runs[0];
    const fixed = await t.call('PATCH', `/api/v1/schedules/${s.id}`, { body: { baseline: mine.test_run_id } });
    expect(fixed.status, JSON.stringify(fixed.body)).toBe(200);
    expect(fixed.body.baseline).toBe(mine.test_run_id);
    const bad = await t.call('POST', '/api/v1/schedules', { body: { agent_id: agentId, cron: '* * * * *', repeats: 11 } });
    expectError(bad, 400, 'INVALID_FIELD_VALUE');
    await t.call('DELETE', `/api/v1/schedules/${s.id}`);
    await cancelAll();
  });

  it('one schedule failing to fire does not hold up the others in the same tick', async () => {
    clock.set(at('09:20:30'));
    const a = await newSchedule({ max_turns: 1 });
    const b = await newSchedule({ max_turns: 2 });
    clock.set(at('09:21:05'));
    const enqueue = t.deps.hooks.enqueueRun;
    let calls = 0;
    t.deps.hooks.enqueueRun = async (tx, runId) => { if (++calls === 1) throw new Error('queue hiccup'); return enqueue(tx, runId); };
    try {
      await expect(fireDueSchedules(t.deps)).rejects.toThrow('queue hiccup');
    } finally { t.deps.hooks.enqueueRun = enqueue; }
    const totals = [(await firings(a.id)).total, (await firings(b.id)).total];
    expect(totals.sort()).toEqual([0, 1]);
    // the retried tick fires the one that failed, and only that one
    expect(await fireDueSchedules(t.deps)).toBe(1);
    expect([(await firings(a.id)).total, (await firings(b.id)).total]).toEqual([1, 1]);
    for (const s of [a, b]) await t.call('DELETE', `/api/v1/schedules/${s.id}`);
    await cancelAll();
  });
});
