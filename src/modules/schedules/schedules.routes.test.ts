import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../../test/harness.js';
import { fakeClock } from '../../../test/fake-clock.js';
import { checkCron, checkTimezone, lastFiring, nextFiring } from './cron.js';
import { fireDueSchedules } from './schedule-firing.js';

const p4 = { base_url: 'http://127.0.0.1:9/v1', model: 'm' };
const MISSING = '01900000-0000-7000-8000-000000000000';
const T0 = Date.parse('2026-11-25T10:00:30.000Z');

describe('cron and time zones', () => {
  it('accepts 5-field crons and IANA zones, refuses the rest with INVALID_FIELD_VALUE', () => {
    expect(checkCron(' 0  3 * * 1-5 ', 'UTC')).toBe('0 3 * * 1-5');
    for (const bad of ['* * * *', '0 0 3 * * *', '61 * * * *', 'every day']) expect(() => checkCron(bad, 'UTC')).toThrow(/cron/);
    expect(checkTimezone('Europe/Berlin')).toBe('Europe/Berlin');
    expect(() => checkTimezone('Mars/Olympus')).toThrow(/IANA/);
  });
  it('reads the cron in its time zone', () => {
    // 03:00 in Berlin (UTC+1 in November) is 02:00 UTC
    expect(nextFiring('0 3 * * *', 'Europe/Berlin', new Date(T0)).toISOString()).toBe('2026-11-26T02:00:00.000Z');
    expect(lastFiring('*/5 * * * *', 'UTC', new Date(T0)).toISOString()).toBe('2026-11-25T10:00:00.000Z');
  });
});

describe('schedules', () => {
  let t: TestContext;
  const clock = fakeClock(T0);
  let agentId: string;
  beforeAll(async () => {
    t = await createTestContext({ clock, config: { maxConcurrentRuns: 1 } });
    agentId = (await t.call('POST', '/api/v1/agents', { body: { provider: 'provider_4', name: 'Desk', config: p4 } })).body.id;
  });
  afterAll(async () => { await t.close(); });

  it('CRUD with defaults, next_run_at and the list envelope; errors as decisions', async () => {
    const res = await t.call('POST', '/api/v1/schedules', { body: { agent_id: agentId, cron: '0 3 * * *', timezone: 'Europe/Berlin' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      agent_id: agentId, test_suite_id: null, cron: '0 3 * * *', timezone: 'Europe/Berlin', test_mode: 'demo', baseline: 'previous',
      is_active: true, last_run_id: null, next_run_at: '2026-11-26T02:00:00.000Z', max_turns: null,
    });
    const list = (await t.call('GET', '/api/v1/schedules')).body;
    expect(list).toMatchObject({ total: 1, limit: 50, offset: 0 });
    const patched = await t.call('PATCH', `/api/v1/schedules/${res.body.id}`, { body: { is_active: false } });
    expect(patched.body).toMatchObject({ is_active: false, next_run_at: null, cron: '0 3 * * *' });
    expectError(await t.call('POST', '/api/v1/schedules', { body: { cron: '* * * * *' } }), 400, 'MISSING_REQUIRED_FIELD');
    expectError(await t.call('POST', '/api/v1/schedules', { body: { agent_id: agentId } }), 400, 'MISSING_REQUIRED_FIELD');
    expectError(await t.call('POST', '/api/v1/schedules', { body: { agent_id: agentId, cron: '* * *' } }), 400, 'INVALID_FIELD_VALUE');
    expectError(await t.call('POST', '/api/v1/schedules', { body: { agent_id: agentId, cron: '* * * * *', timezone: 'Nowhere/Land' } }), 400, 'INVALID_FIELD_VALUE');
    expectError(await t.call('POST', '/api/v1/schedules', { body: { agent_id: MISSING, cron: '* * * * *' } }), 400, 'AGENT_NOT_FOUND');
    expectError(await t.call('POST', '/api/v1/schedules', { body: { agent_id: agentId, cron: '* * * * *', test_suite_id: MISSING } }), 400, 'NOT_FOUND');
    expectError(await t.call('POST', '/api/v1/schedules', { body: { agent_id: agentId, cron: '* * * * *', max_turns: 51 } }), 400, 'INVALID_FIELD_VALUE');
    expectError(await t.call('PATCH', `/api/v1/schedules/${res.body.id}`, { body: { test_suite_id: '' } }), 400, 'INVALID_FIELD_VALUE');
    expectError(await t.call('POST', '/api/v1/schedules', { body: { agent_id: agentId, cron: '* * * * *', colour: 'red' } }), 400, 'INVALID_FIELD_VALUE');
    const other = await t.newOrg('sched-other');
    expectError(await t.call('GET', `/api/v1/schedules/${res.body.id}`, { key: other.key }), 404, 'NOT_FOUND');
    expectError(await t.call('PATCH', `/api/v1/schedules/${res.body.id}`, { key: other.key, body: { is_active: true } }), 404, 'NOT_FOUND');
    expectError(await t.call('DELETE', `/api/v1/schedules/${res.body.id}`, { key: other.key }), 404, 'NOT_FOUND');
    expect((await t.call('DELETE', `/api/v1/schedules/${res.body.id}`)).status).toBe(204);
    expectError(await t.call('GET', `/api/v1/schedules/${res.body.id}`), 404, 'NOT_FOUND');
  });

  it('fires once per minute however often the tick is handled; a skip at the run limit is recorded; inactive never fires', async () => {
    const s = (await t.call('POST', '/api/v1/schedules', { body: { agent_id: agentId, cron: '* * * * *', max_turns: 2 } })).body;
    const off = (await t.call('POST', '/api/v1/schedules', { body: { agent_id: agentId, cron: '* * * * *', is_active: false } })).body;
    clock.set(Date.parse('2026-11-25T10:01:05.000Z'));
    const fired = await Promise.all([fireDueSchedules(t.deps), fireDueSchedules(t.deps), fireDueSchedules(t.deps)]);
    expect(fired.reduce((a, b) => a + b, 0)).toBe(1);
    let firings = (await t.call('GET', `/api/v1/schedules/${s.id}/firings`)).body;
    expect(firings).toMatchObject({ total: 1, firings: [{ scheduled_for: '2026-11-25T10:01:00.000Z', status: 'created', reason: null }] });
    const runId = firings.firings[0].run_id;
    expect((await t.call('GET', `/api/v1/schedules/${s.id}`)).body.last_run_id).toBe(runId);
    expect((await t.call('GET', `/api/v1/runs/${runId}`)).body).toMatchObject({ status: 'pending', max_turns: 2 });

    // the first run is still in progress and the organization's limit is 1: the next minute is skipped, not lost
    clock.set(Date.parse('2026-11-25T10:02:10.000Z'));
    await fireDueSchedules(t.deps);
    firings = (await t.call('GET', `/api/v1/schedules/${s.id}/firings`)).body;
    expect(firings.firings[0]).toMatchObject({ scheduled_for: '2026-11-25T10:02:00.000Z', status: 'skipped', run_id: null });
    expect(firings.firings[0].reason).toMatch(/limit of 1 concurrent runs \(REHEARSAL_MAX_CONCURRENT_RUNS\)/);
    expect((await t.call('GET', `/api/v1/schedules/${off.id}/firings`)).body.total).toBe(0);

    await t.call('PATCH', `/api/v1/schedules/${s.id}`, { body: { is_active: false } });
    clock.set(Date.parse('2026-11-25T10:03:10.000Z'));
    expect(await fireDueSchedules(t.deps)).toBe(0);
  });
});
