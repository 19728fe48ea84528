import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATION_METHODS, paginate, RehearsalClient, RehearsalError, RehearsalTimeoutError, type FetchLike } from '../../src/client/index.js';
import { createTestContext, type TestContext } from '../harness.js';
import { injectFetch } from './inject-fetch.js';

const BASE = 'http://rehearsal.test';
const toTemplate = (seen: string) => Object.keys(OPERATION_METHODS).find((op) => {
  const [m, p] = op.split(' ');
  const [sm, sp] = seen.split(' ');
  return m === sm && new RegExp(`^${p.replace(/\{\w+\}/g, '[^/]+')}$`).test(sp);
});

describe('RehearsalClient against the real app', () => {
  let t: TestContext;
  let client: RehearsalClient;
  const seen: string[] = [];
  beforeAll(async () => {
    // one concurrent run per organization, so the RATE_LIMITED mapping can be provoked for real
    t = await createTestContext({ config: { maxConcurrentRuns: 1 } });
    client = new RehearsalClient({ baseUrl: `${BASE}/api/v1`, apiKey: t.key, fetch: injectFetch(t.app, seen), retry: false });
  });
  afterAll(async () => { await t.close(); });

  it('every method reaches its operation and returns the typed body', async () => {
    const agent = await client.agents.create({ provider: 'provider_4', name: 'Desk', config: { base_url: 'http://127.0.0.1:9/v1', model: 'm' } }, { idempotencyKey: 'agent-1' });
    expect(agent).toMatchObject({ name: 'Desk', provider: 'provider_4', config_fields: ['base_url', 'model'] });
    expect((await client.agents.list()).agents.map((a) => a.id)).toContain(agent.id);
    expect((await client.agents.get(agent.id)).id).toBe(agent.id);
    expect((await client.agents.update(agent.id, { description: 'front desk' })).description).toBe('front desk');
    expect((await client.agents.validate(agent.id)).details.error_code).toBe('unreachable');

    const scenario = await client.scenarios.create({ name: 'Hello', script: ['Hi'], criteria: [{ criterion: 'Says hi', check: { type: 'contains', value: 'hi' } }] });
    expect((await client.scenarios.list({ q: 'Hello' })).scenarios[0].id).toBe(scenario.id);
    expect((await client.scenarios.get(scenario.id)).name).toBe('Hello');
    expect((await client.scenarios.update(scenario.id, { description: 'd' })).description).toBe('d');
    const copy = await client.scenarios.duplicate(scenario.id);
    expect(copy.name).toBe('Hello (copy)');
    await client.scenarios.delete(copy.id);

    const suite = await client.testSuites.create({ name: 'Smoke', scenario_ids: [scenario.id] });
    expect((await client.testSuites.list()).test_suites.map((s) => s.name)).toContain('Smoke');
    expect((await client.testSuites.get(suite.id)).scenario_ids).toEqual([scenario.id]);
    expect((await client.testSuites.update(suite.id, { description: 'x' })).description).toBe('x');

    const created = await client.runs.create({ agent_id: agent.id, test_suite_id: suite.id });
    expect(created).toMatchObject({ status: 'pending', total_scenarios: 1, poll_url: `/api/v1/runs/${created.id}` });
    expect((await client.runs.get(created.test_run_id)).id).toBe(created.id);
    expect((await client.runs.list({ agent_id: agent.id })).runs[0].id).toBe(created.id);
    const results = await client.runs.results(created.id, { status: 'pending' });
    expect(results.results).toHaveLength(1);
    const sr = await client.scenarioRuns.list({ test_run_id: created.id });
    expect((await client.scenarioRuns.get(sr.scenario_runs[0].id)).status).toBe('pending');
    // an unfinished scenario run cannot be reviewed: the method still reaches its operation
    await expect(client.scenarioRuns.review(sr.scenario_runs[0].id, { criterion_index: 0, decision: 'MET' })).rejects.toMatchObject({ status: 409, code: 'INVALID_STATE' });
    expect((await client.scenarioRuns.reviews(sr.scenario_runs[0].id)).total).toBe(0);
    expect(await client.judge.agreement({ since: '2026-01-01T00:00:00Z' })).toMatchObject({ reviewed: 0, agreement: null, cohen_kappa: null });
    expect((await client.runs.scenarios(created.id)).scenarios[0]).toMatchObject({ attempts: 1, pending: 1, verdict: 'pending' });
    expect((await client.runs.comparison(created.id, { against: created.test_run_id })).verdict).toBe('pending');
    expect((await client.scenarioRuns.diff(sr.scenario_runs[0].id, sr.scenario_runs[0].id)).first_divergence).toBeNull();
    expect((await client.runs.cancel(created.id)).status).toBe('canceled');

    // a loopback URL: outbound safety refuses it at connect time, so the ping is recorded without leaving the host
    const hook = await client.webhooks.create({ url: 'http://127.0.0.1:9/hook' });
    expect(hook.secret).toMatch(/^whsec_/);
    expect((await client.webhooks.list()).webhooks[0].id).toBe(hook.id);
    expect((await client.webhooks.get(hook.id)).url).toBe('http://127.0.0.1:9/hook');
    expect((await client.webhooks.update(hook.id, { description: 'ci' })).description).toBe('ci');
    const ping = await client.webhooks.test(hook.id);
    expect(ping).toMatchObject({ event: 'ping', webhook_id: hook.id });
    expect((await client.webhooks.deliveries(hook.id)).deliveries.map((d) => d.id)).toEqual([ping.id]);
    expect((await client.webhooks.getDelivery(hook.id, ping.id)).attempts.length).toBeGreaterThanOrEqual(1);
    expect((await client.webhooks.redeliver(hook.id, ping.id)).id).toBe(ping.id);
    await client.webhooks.delete(hook.id);

    const key = await client.apiKeys.create({ name: 'ci' });
    expect(key.key).toMatch(/^sk_live_[A-Za-z0-9]{40}$/);
    expect((await client.apiKeys.list()).api_keys.map((k) => k.id)).toContain(key.id);
    await client.apiKeys.revoke(key.id);

    const sched = await client.schedules.create({ agent_id: agent.id, test_suite_id: suite.id, cron: '0 3 * * *', is_active: false });
    expect((await client.schedules.list()).schedules.map((x) => x.id)).toContain(sched.id);
    expect((await client.schedules.get(sched.id)).cron).toBe('0 3 * * *');
    expect((await client.schedules.update(sched.id, { cron: '0 4 * * *' })).cron).toBe('0 4 * * *');
    expect((await client.schedules.firings(sched.id)).total).toBe(0);
    await client.schedules.delete(sched.id);
    // no generator model in this app: the method still reaches its operation
    await expect(client.scenarios.generate({ description: 'A receptionist', count: 1 })).rejects.toMatchObject({ status: 409, code: 'INVALID_STATE' });
    expect((await client.runs.plan({ agent_id: agent.id, test_suite_id: suite.id }) as { dry_run: boolean }).dry_run).toBe(true);
    await client.testSuites.delete(suite.id);
    await client.agents.delete(agent.id);

    const reached = new Set(seen.map(toTemplate));
    expect(Object.keys(OPERATION_METHODS).filter((op) => !reached.has(op))).toEqual([]);
  });

  it('maps error envelopes to RehearsalError with status, code, details and request id', async () => {
    const missing = await client.runs.get('TR-999999').catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(RehearsalError);
    expect(missing).toMatchObject({ status: 404, code: 'RUN_NOT_FOUND' });
    expect((missing as RehearsalError).requestId).toMatch(/^[0-9a-f-]{36}$/);
    await expect(client.runs.create({ agent_id: '' })).rejects.toMatchObject({ status: 400, details: { field: 'agent_id' } });
    const bad = new RehearsalClient({ baseUrl: BASE, apiKey: 'sk_live_nope', fetch: injectFetch(t.app) });
    await expect(bad.agents.list()).rejects.toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    const down = new RehearsalClient({ baseUrl: 'http://127.0.0.1:9', apiKey: t.key });
    await expect(down.agents.list()).rejects.toMatchObject({ status: 0, code: 'NETWORK_ERROR' });
  });

  it('reports too many concurrent runs as RATE_LIMITED with the Retry-After the service sent', async () => {
    const agent = await client.agents.create({ provider: 'provider_4', name: 'Busy', config: { base_url: 'http://127.0.0.1:9/v1', model: 'm' } });
    const first = await client.runs.create({ agent_id: agent.id, max_scenarios: 1 });
    const err = await client.runs.create({ agent_id: agent.id, max_scenarios: 1 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 429, code: 'RATE_LIMITED', retryAfterMs: 10_000 });
    await client.runs.cancel(first.id);
  });

  it('waitForRun gives up after timeoutMs with the last state it saw', async () => {
    const agent = await client.agents.create({ provider: 'provider_4', name: 'Idle', config: { base_url: 'http://127.0.0.1:9/v1', model: 'm' } });
    const run = await client.runs.create({ agent_id: agent.id, max_scenarios: 1 }); // no worker here: it stays pending
    const polls: string[] = [];
    const t0 = Date.now();
    const err = await client.waitForRun(run.id, { intervalMs: 30, timeoutMs: 200, onProgress: (r) => polls.push(r.status) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RehearsalTimeoutError);
    expect((err as RehearsalTimeoutError).lastRun).toMatchObject({ id: run.id, status: 'pending' });
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(polls.length).toBeGreaterThanOrEqual(3);
    await client.runs.cancel(run.id);
    expect((await client.waitForRun(run.id, { intervalMs: 10 })).status).toBe('canceled');
  });

  it('iterates every page of a list', async () => {
    for (let i = 0; i < 5; i++) await client.agents.create({ provider: 'provider_4', name: `Page ${i}`, config: { base_url: 'http://127.0.0.1:9/v1', model: 'm' } });
    const total = (await client.agents.list()).total;
    const names: string[] = [];
    for await (const a of paginate(async (page) => { const r = await client.agents.list(page); return { items: r.agents, total: r.total }; }, 2)) names.push(a.name);
    expect(names).toHaveLength(total);
    expect(new Set(names).size).toBe(total);
    const viaIterate: string[] = [];
    for await (const a of client.agents.iterate({ provider: 'provider_4' })) viaIterate.push(a.name);
    expect(viaIterate.sort()).toEqual([...names].sort());
    const results = [];
    for await (const r of client.runs.iterate()) results.push(r);
    expect(results.length).toBe((await client.runs.list()).total);
  });
});

describe('429 retries', () => {
  const ok = () => new Response(JSON.stringify({ agents: [], total: 0, limit: 50, offset: 0 }), { status: 200, headers: { 'content-type': 'application/json' } });
  const limited = (retryAfter: string | null) => new Response(JSON.stringify({ error: 'Too many requests', code: 'RATE_LIMITED' }), {
    status: 429, headers: { 'content-type': 'application/json', 'x-request-id': 'req-1', ...(retryAfter === null ? {} : { 'retry-after': retryAfter }) },
  });
  const scripted = (answers: Array<() => Response>) => {
    const at: number[] = [];
    const fetch: FetchLike = async () => { at.push(Date.now()); return (answers.shift() ?? ok)(); };
    return { fetch, at };
  };

  it('waits as long as Retry-After asks, then succeeds', async () => {
    const s = scripted([() => limited('1'), () => limited('0')]);
    const c = new RehearsalClient({ baseUrl: BASE, apiKey: 'k', fetch: s.fetch });
    expect((await c.agents.list()).total).toBe(0);
    expect(s.at).toHaveLength(3);
    expect(s.at[1] - s.at[0]).toBeGreaterThanOrEqual(950);
  });

  it('without Retry-After backs off from baseDelayMs; gives up after `retries`', async () => {
    const s = scripted([() => limited(null), () => limited(null), () => limited(null)]);
    const c = new RehearsalClient({ baseUrl: BASE, apiKey: 'k', fetch: s.fetch, retry: { retries: 2, baseDelayMs: 20 } });
    await expect(c.agents.list()).rejects.toMatchObject({ status: 429, code: 'RATE_LIMITED', requestId: 'req-1' });
    expect(s.at).toHaveLength(3);
    expect(s.at[2] - s.at[1]).toBeGreaterThanOrEqual(35);
  });

  it('does not wait longer than maxDelayMs: a long Retry-After is thrown at once', async () => {
    const s = scripted([() => limited('120')]);
    const c = new RehearsalClient({ baseUrl: BASE, apiKey: 'k', fetch: s.fetch, retry: { maxDelayMs: 5000 } });
    const err = await c.agents.list().catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 429, retryAfterMs: 120_000 });
    expect(s.at).toHaveLength(1);
  });

  it('accepts Retry-After as an HTTP date and never retries other errors', async () => {
    const s = scripted([() => limited(new Date(Date.now() + 300).toUTCString()), () => new Response('{"error":"boom","code":"INTERNAL_ERROR"}', { status: 500 })]);
    const c = new RehearsalClient({ baseUrl: BASE, apiKey: 'k', fetch: s.fetch });
    await expect(c.agents.list()).rejects.toMatchObject({ status: 500, code: 'INTERNAL_ERROR' });
    expect(s.at).toHaveLength(2);
  });
});
