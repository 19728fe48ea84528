import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAi, type FakeOpenAiServer } from '../fakes/openai-agent.js';
import { api, cliJson, createPgDatabase, ensureBuilt, startCli, type Proc } from './processes.js';

/**
 * The durability promise with real processes: an API process and two workers on PostgreSQL; one worker
 * is SIGKILLed mid-conversation. Its conversations must be taken over and every scenario run counted once.
 */
describe('a worker killed mid-run (SIGKILL) loses nothing', () => {
  let db: { url: string; drop(): Promise<void> };
  let agent: FakeOpenAiServer;
  const procs: Proc[] = [];
  let env: Record<string, string>;

  beforeAll(async () => {
    ensureBuilt();
    db = await createPgDatabase('rehearsal_crash');
    agent = await startFakeOpenAi({ apiKey: null, latencyMs: 300, reply: () => 'Sure, you are booked for Tuesday.' });
    env = {
      DATABASE_URL: db.url, REHEARSAL_SECRET_KEY: 'crash-test-secret-0123456789abcdefghij',
      REHEARSAL_SCENARIO_CONCURRENCY: '12', REHEARSAL_WORKER_LEASE_SECONDS: '3', PORT: '0',
      // six conversations per worker: both workers hold some when one is killed
      REHEARSAL_WORKER_CONCURRENCY: '6',
    };
  });
  afterAll(async () => {
    for (const p of procs) await p.kill('SIGKILL');
    await agent?.close();
    await db?.drop();
  });

  it('completes the run with every scenario run counted exactly once', async () => {
    const apiProc = startCli(['serve', '--no-worker'], env);
    procs.push(apiProc);
    const [, base] = await apiProc.waitFor(/listening on (http:\/\/[^/\s]+)\/api\/v1/);
    const { key } = await cliJson(['keys', 'create', '--org', 'crash', '--json'], env);
    const call = api(base, key);

    const a = await call('POST', '/agents', { provider: 'provider_4', name: 'Slow desk', config: { base_url: agent.baseUrl, model: 'm' } });
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const s = await call('POST', '/scenarios', {
        name: `Crash scenario ${i}`, script: ['Hello', 'I want Tuesday', 'At nine', 'Thanks'],
        criteria: [{ criterion: 'Confirms the booking', check: { type: 'contains', value: 'booked' } }],
      });
      ids.push(s.body.id);
    }
    const suite = await call('POST', '/test-suites', { name: 'Crash suite', scenario_ids: ids });

    const w1 = startCli(['worker'], env);
    const w2 = startCli(['worker'], env);
    procs.push(w1, w2);
    await Promise.all([w1.waitFor(/Worker: running/), w2.waitFor(/Worker: running/)]);

    const run = await call('POST', '/runs', { agent_id: a.body.id, test_suite_id: suite.body.id, max_turns: 4 });
    expect(run.status).toBe(201);
    // let both workers get into their conversations, then kill one without warning
    while (agent.chatRequests().length < 14) await new Promise((r) => setTimeout(r, 20));
    await w1.kill('SIGKILL');

    const deadline = Date.now() + 60_000;
    let final: any;
    for (;;) {
      final = (await call('GET', `/runs/${run.body.id}`)).body;
      if (['completed', 'failed', 'canceled'].includes(final.status) || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(final.status).toBe('completed');
    expect(final.passed_count + final.failed_count + final.error_count).toBe(12);
    expect(final.passed_count).toBe(12);

    const list = (await call('GET', `/scenario-runs?test_run_id=${run.body.id}&limit=100`)).body;
    expect(list.total).toBe(12);
    let retried = 0;
    for (const item of list.scenario_runs) {
      const sr = (await call('GET', `/scenario-runs/${item.id}`)).body;
      expect(sr.status).toBe('passed');
      // no duplicate turns: a taken-over conversation starts again from a clean transcript
      expect(sr.transcript).toHaveLength(8);
      expect(sr.transcript.filter((e: any) => e.role === 'user').map((e: any) => e.content)).toEqual(['Hello', 'I want Tuesday', 'At nine', 'Thanks']);
      if (sr.attempts > 1) retried++;
      // every conversation started for it is accounted for: the taken-over ones as our own (internal) fault
      expect(sr.attempts).toBe(1 + sr.attempt_history.length);
      for (const a of sr.attempt_history) expect(a.fault).toBe('internal');
    }
    expect(retried).toBeGreaterThan(0);
  }, 90_000);
});

describe('a worker stopped with SIGTERM hands its conversations back', () => {
  let db: { url: string; drop(): Promise<void> };
  let agent: FakeOpenAiServer;
  const procs: Proc[] = [];

  beforeAll(async () => {
    ensureBuilt();
    db = await createPgDatabase('rehearsal_drain');
    agent = await startFakeOpenAi({ apiKey: null, latencyMs: 300, reply: () => 'Sure, you are booked for Tuesday.' });
  });
  afterAll(async () => {
    for (const p of procs) await p.kill('SIGKILL');
    await agent?.close();
    await db?.drop();
  });

  it('another worker finishes them long before the lease would have expired', async () => {
    // a 60 s lease: only an explicit hand-back lets the run finish within the deadline below
    const env = { DATABASE_URL: db.url, REHEARSAL_SECRET_KEY: 'drain-test-secret-0123456789abcdefghij', PORT: '0', REHEARSAL_WORKER_LEASE_SECONDS: '60', REHEARSAL_WORKER_CONCURRENCY: '4', REHEARSAL_SCENARIO_CONCURRENCY: '8' };
    const apiProc = startCli(['serve', '--no-worker'], env);
    procs.push(apiProc);
    const [, base] = await apiProc.waitFor(/listening on (http:\/\/[^/\s]+)\/api\/v1/);
    const { key } = await cliJson(['keys', 'create', '--org', 'drain', '--json'], env);
    const call = api(base, key);
    const a = await call('POST', '/agents', { provider: 'provider_4', name: 'Desk', config: { base_url: agent.baseUrl, model: 'm' } });
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) {
      ids.push((await call('POST', '/scenarios', { name: `Drain ${i}`, script: ['Hello', 'Tuesday', 'Nine', 'Thanks'], criteria: [{ criterion: 'Confirms', check: { type: 'contains', value: 'booked' } }] })).body.id);
    }
    const suite = await call('POST', '/test-suites', { name: 'Drain suite', scenario_ids: ids });
    const w1 = startCli(['worker'], env);
    const w2 = startCli(['worker'], env);
    procs.push(w1, w2);
    await Promise.all([w1.waitFor(/Worker: running/), w2.waitFor(/Worker: running/)]);
    const run = await call('POST', '/runs', { agent_id: a.body.id, test_suite_id: suite.body.id, max_turns: 4 });
    while (agent.chatRequests().length < 10) await new Promise((r) => setTimeout(r, 20));
    await w1.kill('SIGTERM');
    expect(w1.child.exitCode).toBe(0);
    const deadline = Date.now() + 25_000;
    let final: any;
    for (;;) {
      final = (await call('GET', `/runs/${run.body.id}`)).body;
      if (final.status === 'completed' || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(final).toMatchObject({ status: 'completed', passed_count: 8, error_count: 0 });
    const list = (await call('GET', `/scenario-runs?test_run_id=${run.body.id}&limit=100`)).body.scenario_runs;
    let restarted = 0;
    for (const item of list) restarted += (await call('GET', `/scenario-runs/${item.id}`)).body.attempts > 1 ? 1 : 0;
    expect(restarted).toBeGreaterThan(0);
  }, 90_000);
});
