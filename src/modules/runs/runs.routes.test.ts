import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../../test/harness.js';

const RUN_FIELDS = ['agent_error_count', 'agent_id', 'agent_name', 'baseline_run_id', 'completed_at', 'coverage', 'created_at', 'duration_seconds', 'error_count', 'error_message', 'failed_count', 'faults', 'id', 'max_turns', 'metrics', 'name', 'pass_rate', 'passed_count', 'repeats', 'retried_count', 'reviewed_count', 'scenario_count', 'started_at', 'stats', 'status', 'strict_pass_rate', 'test_mode', 'test_run_id', 'test_suite_id', 'timing_uncertainty_ms', 'total_scenarios', 'warnings'];
const p4 = { base_url: 'http://127.0.0.1:9/v1', model: 'm' };

describe('runs', () => {
  let t: TestContext;
  let agentId: string;
  let suiteSize: number;
  beforeAll(async () => {
    t = await createTestContext({ config: { maxConcurrentRuns: 1000 } });
    agentId = (await t.call('POST', '/api/v1/agents', { body: { provider: 'provider_4', name: 'Desk', config: p4 } })).body.id;
    const suites = await t.call('GET', '/api/v1/test-suites');
    suiteSize = suites.body.test_suites.find((s: any) => s.name === 'Default').scenario_count;
  });
  afterAll(async () => { await t.close(); });

  it('creates a pending demo run of the Default suite with 20 pending scenario runs', async () => {
    const res = await t.call('POST', '/api/v1/runs', { body: { agent_id: agentId } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['id', 'poll_url', 'status', 'test_run_id', 'total_scenarios', 'warnings']);
    expect(res.body).toMatchObject({ status: 'pending', total_scenarios: 20, poll_url: `/api/v1/runs/${res.body.id}` });
    expect(res.body.test_run_id).toMatch(/^TR-\d+$/);
    const run = await t.call('GET', res.body.poll_url);
    expect(Object.keys(run.body).sort()).toEqual(RUN_FIELDS);
    expect(run.body).toMatchObject({
      status: 'pending', agent_id: agentId, agent_name: 'Desk', name: 'Default · Desk', test_mode: 'demo', max_turns: 4,
      pass_rate: 0, passed_count: 0, failed_count: 0, error_count: 0, total_scenarios: 20, completed_at: null, duration_seconds: null, error_message: null, timing_uncertainty_ms: null,
    });
    const byHuman = await t.call('GET', `/api/v1/runs/${res.body.test_run_id}`);
    expect(byHuman.body.id).toBe(res.body.id);
    const results = await t.call('GET', `/api/v1/runs/${res.body.id}/results`);
    expect(results.body.results).toHaveLength(20);
    expect(results.body).toMatchObject({ results_total: 20, results_limit: 100, results_offset: 0 });
    expect(results.body.results[0]).toMatchObject({ status: 'pending', passed: false, grade_summary: null, error_message: null, duration_ms: null });
    const suite = (await t.call('GET', '/api/v1/test-suites')).body.test_suites.find((s: any) => s.name === 'Default');
    expect(results.body.results.map((r: any) => r.scenario_id)).toEqual(suite.scenario_ids.slice(0, 20));
  });

  it('full mode takes every scenario; max_scenarios caps; max_turns and name are kept', async () => {
    const full = await t.call('POST', '/api/v1/runs', { body: { agent_id: agentId, test_mode: 'full' } });
    expect(full.body.total_scenarios).toBe(suiteSize);
    const capped = await t.call('POST', '/api/v1/runs', { body: { agent_id: agentId, test_mode: 'full', max_scenarios: 3, max_turns: 7, name: 'Nightly' } });
    expect(capped.body.total_scenarios).toBe(3);
    const run = (await t.call('GET', `/api/v1/runs/${capped.body.id}`)).body;
    expect(run).toMatchObject({ name: 'Nightly', max_turns: 7, test_mode: 'full' });
  });

  it('says before the run what will make its verdicts mean less: no judge model, scripts cut off, unresolved tool names', async () => {
    const res = await t.call('POST', '/api/v1/runs', { body: { agent_id: agentId } });
    // the default max_turns 4 cuts every built-in script (6 to 8 lines) short; this service has no judge model
    expect(res.body.warnings).toEqual(['20 scenarios cannot pass without a judge model', '20 scenarios will be cut off: their scripts have up to 7 lines; max_turns is 4']);
    expect((await t.call('GET', `/api/v1/runs/${res.body.test_run_id}`)).body.warnings).toEqual(res.body.warnings);
    expect((await t.call('GET', `/api/v1/runs/${res.body.id}/results`)).body.warnings).toEqual(res.body.warnings);

    const long = await t.call('POST', '/api/v1/runs', { body: { agent_id: agentId, max_turns: 10 } });
    expect(long.body.warnings).toEqual(['20 scenarios cannot pass without a judge model']);

    // a platform agent's tools are unknown until tool_names or tool_aliases say otherwise
    const retell = await t.call('POST', '/api/v1/agents', { body: { provider: 'provider_5', name: 'Platform', config: { api_key: 'k', agent_id: 'a' } } });
    const onPlatform = await t.call('POST', '/api/v1/runs', { body: { agent_id: retell.body.id, max_turns: 10, test_mode: 'full' } });
    expect(onPlatform.body.warnings.at(-1)).toMatch(/^the agent has no known tool named apply_discount, book_appointment, check_availability, create_ticket, issue_refund, lookup_order, transfer_to_human, update_contact_details: the tool checks of \d+ scenarios stay UNSURE unless the agent calls them \(set tool_names or tool_aliases\)$/);
    await t.call('PUT', `/api/v1/agents/${retell.body.id}`, { body: { tool_names: ['lookup_order', 'book_appointment', 'create_ticket'], tool_aliases: { issue_refund: null, apply_discount: null, transfer_to_human: 'handoff', check_availability: null, update_contact_details: null } } });
    const resolved = await t.call('POST', '/api/v1/runs', { body: { agent_id: retell.body.id, max_turns: 10, test_mode: 'full' } });
    expect(resolved.body.warnings.at(-1)).toBe('the agent has no known tool named handoff (for transfer_to_human): the tool checks of 1 scenario stay UNSURE unless the agent calls it (set tool_names or tool_aliases)');
  });

  it('validates the request', async () => {
    const missing = await t.call('POST', '/api/v1/runs', { body: {} });
    expectError(missing, 400, 'MISSING_REQUIRED_FIELD');
    expect(missing.body.details.field).toBe('agent_id');
    expectError(await t.call('POST', '/api/v1/runs', { body: { agent_id: agentId, test_mode: 'quick' } }), 400, 'INVALID_FIELD_VALUE');
    expectError(await t.call('POST', '/api/v1/runs', { body: { agent_id: agentId, max_turns: 0 } }), 400, 'INVALID_FIELD_VALUE');
    expectError(await t.call('POST', '/api/v1/runs', { body: { agent_id: agentId, max_turns: 51 } }), 400, 'INVALID_FIELD_VALUE');
    expectError(await t.call('POST', '/api/v1/runs', { body: { agent_id: agentId, max_turns: '4' } }), 400, 'INVALID_FIELD_VALUE');
    expectError(await t.call('POST', '/api/v1/runs', { body: { agent_id: agentId, max_scenarios: 0 } }), 400, 'INVALID_FIELD_VALUE');
    expectError(await t.call('POST', '/api/v1/runs', { body: { agent_id: agentId, max_scenarios: 1.5 } }), 400, 'INVALID_FIELD_VALUE');
    expectError(await t.call('POST', '/api/v1/runs', { body: { agent_id: 'abc' } }), 400, 'INVALID_FIELD_VALUE');
    expectError(await t.call('POST', '/api/v1/runs', { body: { agent_id: agentId, verbose: true } }), 400, 'INVALID_FIELD_VALUE');
  });

  it('an unknown agent is AGENT_NOT_FOUND with HTTP 400; an unknown suite NOT_FOUND 400', async () => {
    expectError(await t.call('POST', '/api/v1/runs', { body: { agent_id: '00000000-0000-7000-8000-000000000000' } }), 400, 'AGENT_NOT_FOUND');
    expectError(await t.call('POST', '/api/v1/runs', { body: { agent_id: agentId, test_suite_id: '00000000-0000-7000-8000-000000000000' } }), 400, 'NOT_FOUND');
    const other = await t.newOrg();
    expectError(await t.call('POST', '/api/v1/runs', { key: other.key, body: { agent_id: agentId } }), 400, 'AGENT_NOT_FOUND');
  });

  it('an inactive agent cannot run (409 INVALID_STATE)', async () => {
    const a = await t.call('POST', '/api/v1/agents', { body: { provider: 'provider_4', name: 'Paused', config: p4 } });
    await t.call('PUT', `/api/v1/agents/${a.body.id}`, { body: { is_active: false } });
    expectError(await t.call('POST', '/api/v1/runs', { body: { agent_id: a.body.id } }), 409, 'INVALID_STATE');
  });

  it('lists runs newest first with filters and pagination', async () => {
    const list = await t.call('GET', '/api/v1/runs?limit=2');
    expect(list.body.runs).toHaveLength(2);
    expect(list.body.limit).toBe(2);
    expect(new Date(list.body.runs[0].created_at) >= new Date(list.body.runs[1].created_at)).toBe(true);
    const byAgent = await t.call('GET', `/api/v1/runs?agent_id=${agentId}&status=pending`);
    expect(byAgent.body.total).toBeGreaterThanOrEqual(3);
    expect((await t.call('GET', '/api/v1/runs?status=completed')).body.total).toBe(0);
    expect((await t.call('GET', '/api/v1/runs?limit=1000')).body.limit).toBe(100);
    expectError(await t.call('GET', '/api/v1/runs?status=done'), 400, 'INVALID_FIELD_VALUE');
    expectError(await t.call('GET', '/api/v1/runs?agent_id=xyz'), 400, 'INVALID_FIELD_VALUE');
    expectError(await t.call('GET', '/api/v1/runs?limit=0'), 400, 'INVALID_FIELD_VALUE');
    expectError(await t.call('GET', '/api/v1/runs?offset=-1'), 400, 'INVALID_FIELD_VALUE');
    expectError(await t.call('GET', '/api/v1/runs?limit=abc'), 400, 'INVALID_FIELD_VALUE');
  });

  it('results: filters by status, limit clamps at 500', async () => {
    const run = await t.call('POST', '/api/v1/runs', { body: { agent_id: agentId, max_scenarios: 5 } });
    const ids = (await t.call('GET', `/api/v1/runs/${run.body.id}/results`)).body.results.map((r: any) => r.id);
    await t.deps.db.executeSql(`update scenario_runs set status = 'passed', passed = true where id = $1`, [ids[0]]);
    await t.deps.db.executeSql(`update scenario_runs set status = 'failed', passed = false where id = $1`, [ids[1]]);
    await t.deps.db.executeSql(`update scenario_runs set status = 'error', error_message = 'provider: 500', fault = 'provider', end_reason = 'error', agent_turns = 1 where id = $1`, [ids[2]]);
    await t.deps.db.executeSql(`update scenario_runs set status = 'running' where id = $1`, [ids[3]]);
    const get = async (q: string) => (await t.call('GET', `/api/v1/runs/${run.body.id}/results${q}`)).body;
    expect((await get('?status=passed')).results.map((r: any) => r.id)).toEqual([ids[0]]);
    expect((await get('?status=passed')).results[0].passed).toBe(true);
    expect((await get('?status=failed')).results.map((r: any) => r.id)).toEqual([ids[1]]);
    expect((await get('?status=error')).results[0]).toMatchObject({ id: ids[2], passed: false, error_message: 'provider: 500', fault: 'provider', end_reason: 'error', agent_turns: 1 });
    expect((await get('?fault=provider')).results.map((r: any) => r.id)).toEqual([ids[2]]);
    expect((await get('?fault=agent')).results).toEqual([]);
    expectError(await t.call('GET', `/api/v1/runs/${run.body.id}/results?fault=agents`), 400, 'INVALID_FIELD_VALUE');
    expect((await get('?status=pending')).results.map((r: any) => r.id)).toEqual([ids[3], ids[4]]);
    expect((await get('?limit=1000')).results_limit).toBe(500);
    expect((await get('?limit=2&offset=1')).results.map((r: any) => r.id)).toEqual([ids[1], ids[2]]);
    expectError(await t.call('GET', `/api/v1/runs/${run.body.id}/results?status=completed`), 400, 'INVALID_FIELD_VALUE');
    // names of Object.prototype's own properties are no filter either (the fuzz suite found 500 for these)
    for (const s of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      expectError(await t.call('GET', `/api/v1/runs/${run.body.id}/results?status=${s}`), 400, 'INVALID_FIELD_VALUE');
      expectError(await t.call('GET', `/api/v1/runs/${run.body.id}/results?fault=${s}`), 400, 'INVALID_FIELD_VALUE');
    }
  });

  it('cancel counts a scenario run waiting for its re-attempt once, its last attempt the one that counts', async () => {
    const run = await t.call('POST', '/api/v1/runs', { body: { agent_id: agentId, max_scenarios: 2 } });
    const [waiting, held] = (await t.call('GET', `/api/v1/runs/${run.body.id}/results`)).body.results.map((r: any) => r.id);
    const entry = { attempt: 2, fault: 'judge', error_message: 'judge: invalid output (x)', started_at: '2026-11-25T10:00:00.000Z', ended_at: '2026-11-25T10:00:05.000Z' };
    const earlier = { ...entry, attempt: 1, fault: 'provider', error_message: 'provider: 502 bad gateway' };
    await t.deps.db.executeSql(`update scenario_runs set status = 'running', attempts = 2, attempt_history = $2::jsonb where id = $1`, [waiting, JSON.stringify([earlier, entry])]);
    await t.deps.db.executeSql(`update scenario_runs set status = 'running', attempts = 2, attempt_history = $2::jsonb, lease_owner = 'w' where id = $1`, [held, JSON.stringify([earlier])]);
    const c = await t.call('POST', `/api/v1/runs/${run.body.id}/cancel`);
    expect(c.body).toMatchObject({ status: 'canceled', error_count: 2, retried_count: 2, faults: { agent: 0, tester: 0, judge: 0, provider: 0, internal: 0, canceled: 2 } });
    for (const id of [waiting, held]) {
      const sr = (await t.call('GET', `/api/v1/scenario-runs/${id}`)).body;
      expect(sr).toMatchObject({ status: 'error', fault: 'canceled', end_reason: 'canceled', attempts: 2, error_message: 'run canceled' });
      expect(sr.attempt_history).toEqual([earlier]);
    }
  });

  it('cancel: pending → canceled (idempotent); running conversations become errors; final runs → 409', async () => {
    const run = await t.call('POST', '/api/v1/runs', { body: { agent_id: agentId, max_scenarios: 3 } });
    const ids = (await t.call('GET', `/api/v1/runs/${run.body.id}/results`)).body.results.map((r: any) => r.id);
    await t.deps.db.executeSql(`update runs set status = 'running' where id = $1`, [run.body.id]);
    await t.deps.db.executeSql(`update scenario_runs set status = 'running' where id = $1`, [ids[0]]);
    const c = await t.call('POST', `/api/v1/runs/${run.body.id}/cancel`);
    expect(c.status).toBe(200);
    expect(Object.keys(c.body).sort()).toEqual(RUN_FIELDS);
    expect(c.body).toMatchObject({ status: 'canceled', error_count: 1, passed_count: 0, failed_count: 0, total_scenarios: 3 });
    expect(c.body.completed_at).not.toBeNull();
    expect(c.body.duration_seconds).toBeGreaterThanOrEqual(0);
    const sr = await t.call('GET', `/api/v1/scenario-runs/${ids[0]}`);
    expect(sr.body).toMatchObject({ status: 'error', error_message: 'run canceled' });
    expect((await t.call('GET', `/api/v1/scenario-runs/${ids[1]}`)).body.status).toBe('pending');
    const again = await t.call('POST', `/api/v1/runs/${run.body.test_run_id}/cancel`);
    expect(again.status).toBe(200);
    expect(again.body.completed_at).toBe(c.body.completed_at);

    const done = await t.call('POST', '/api/v1/runs', { body: { agent_id: agentId, max_scenarios: 1 } });
    await t.deps.db.executeSql(`update runs set status = 'completed', completed_at = now() where id = $1`, [done.body.id]);
    expectError(await t.call('POST', `/api/v1/runs/${done.body.id}/cancel`), 409, 'INVALID_STATE');
    expectError(await t.call('POST', '/api/v1/runs/00000000-0000-7000-8000-000000000000/cancel'), 404, 'RUN_NOT_FOUND');
  });

  it('deleting an agent cancels its in-flight runs and runs keep its name', async () => {
    const a = await t.call('POST', '/api/v1/agents', { body: { provider: 'provider_4', name: 'Doomed', config: p4 } });
    const run = await t.call('POST', '/api/v1/runs', { body: { agent_id: a.body.id, max_scenarios: 2 } });
    expect((await t.call('DELETE', `/api/v1/agents/${a.body.id}`)).status).toBe(204);
    const after = (await t.call('GET', `/api/v1/runs/${run.body.id}`)).body;
    expect(after).toMatchObject({ status: 'canceled', agent_id: a.body.id, agent_name: 'Doomed', error_message: 'agent deleted' });
  });

  it('RUN_NOT_FOUND for absent, malformed and foreign ids', async () => {
    const run = await t.call('POST', '/api/v1/runs', { body: { agent_id: agentId, max_scenarios: 1 } });
    const other = await t.newOrg();
    for (const path of [`/api/v1/runs/${run.body.id}`, `/api/v1/runs/${run.body.test_run_id}`, `/api/v1/runs/${run.body.id}/results`]) {
      expectError(await t.call('GET', path, { key: other.key }), 404, 'RUN_NOT_FOUND');
    }
    expectError(await t.call('POST', `/api/v1/runs/${run.body.id}/cancel`, { key: other.key }), 404, 'RUN_NOT_FOUND');
    expectError(await t.call('GET', '/api/v1/runs/TR-99999999'), 404, 'RUN_NOT_FOUND');
    expectError(await t.call('GET', '/api/v1/runs/not-a-run'), 404, 'RUN_NOT_FOUND');
  });
});

describe('the per-organization concurrent-run limit', () => {
  let t: TestContext;
  beforeAll(async () => { t = await createTestContext({ env: { REHEARSAL_MAX_CONCURRENT_RUNS: '3' } }); });
  afterAll(async () => { await t.close(); });

  it('is atomic under parallel requests and answers 429 RATE_LIMITED with Retry-After', async () => {
    const agent = (await t.call('POST', '/api/v1/agents', { body: { provider: 'provider_4', name: 'Busy', config: p4 } })).body.id;
    const results = await Promise.all(Array.from({ length: 10 }, () => t.call('POST', '/api/v1/runs', { body: { agent_id: agent, max_scenarios: 1 } })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(3);
    const limited = results.filter((r) => r.status === 429);
    expect(limited).toHaveLength(7);
    expectError(limited[0], 429, 'RATE_LIMITED');
    expect(Number(limited[0].headers['retry-after'])).toBeGreaterThan(0);
    const other = await t.newOrg();
    const otherAgent = (await t.call('POST', '/api/v1/agents', { key: other.key, body: { provider: 'provider_4', name: 'Busy', config: p4 } })).body.id;
    expect((await t.call('POST', '/api/v1/runs', { key: other.key, body: { agent_id: otherAgent, max_scenarios: 1 } })).status).toBe(201);
    await t.call('POST', `/api/v1/runs/${results.find((r) => r.status === 201)!.body.id}/cancel`);
    expect((await t.call('POST', '/api/v1/runs', { body: { agent_id: agent, max_scenarios: 1 } })).status).toBe(201);
  });

  it('Idempotency-Key replays the same run instead of creating another', async () => {
    const agent = (await t.call('POST', '/api/v1/agents', { body: { provider: 'provider_4', name: 'Idem', config: p4 } })).body.id;
    await t.deps.db.executeSql(`update runs set status = 'canceled'`);
    const body = { agent_id: agent, max_scenarios: 1 };
    const first = await t.call('POST', '/api/v1/runs', { body, headers: { 'idempotency-key': 'abc-1' } });
    const second = await t.call('POST', '/api/v1/runs', { body, headers: { 'idempotency-key': 'abc-1' } });
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expectError(await t.call('POST', '/api/v1/runs', { body: { ...body, max_turns: 2 }, headers: { 'idempotency-key': 'abc-1' } }), 409, 'IDEMPOTENCY_CONFLICT');
    const runs = await t.call('GET', `/api/v1/runs?agent_id=${agent}`);
    expect(runs.body.total).toBe(1);
  });
});
