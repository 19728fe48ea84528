import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAi, type FakeOpenAiServer } from '../fakes/openai-agent.js';
import { api, cliJson, createPgDatabase, ensureBuilt, startCli, type Proc } from './processes.js';

/**
 * Schedules in scaled mode, in real time (pg-boss's scheduler reads the wall clock): an API process and two
 * workers on PostgreSQL, a schedule firing every minute. Each fired minute creates exactly one run, within
 * 30 s of the minute, however many workers handle pg-boss's tick.
 */
describe('a schedule firing every minute with two worker processes', () => {
  let db: { url: string; drop(): Promise<void> };
  let agent: FakeOpenAiServer;
  const procs: Proc[] = [];
  let env: Record<string, string>;

  beforeAll(async () => {
    ensureBuilt();
    db = await createPgDatabase('rehearsal_schedule');
    agent = await startFakeOpenAi({ apiKey: null, reply: () => 'Hello, how can I help?' });
    env = { DATABASE_URL: db.url, REHEARSAL_SECRET_KEY: 'schedule-test-secret-0123456789abcdefghij', PORT: '0' };
  });
  afterAll(async () => {
    for (const p of procs) await p.kill('SIGKILL');
    await agent?.close();
    await db?.drop();
  });

  it('creates one run per fired minute', async () => {
    const apiProc = startCli(['serve', '--no-worker'], env);
    procs.push(apiProc);
    const [, base] = await apiProc.waitFor(/listening on (http:\/\/[^/\s]+)\/api\/v1/, 45_000);
    const { key } = await cliJson(['keys', 'create', '--org', 'sched', '--json'], env);
    const call = api(base, key);
    const w1 = startCli(['worker'], env);
    const w2 = startCli(['worker'], env);
    procs.push(w1, w2);
    await Promise.all([w1.waitFor(/Worker: running/, 45_000), w2.waitFor(/Worker: running/, 45_000)]);

    const a = await call('POST', '/agents', { provider: 'provider_4', name: 'Desk', config: { base_url: agent.baseUrl, model: 'm' } });
    const s = await call('POST', '/scenarios', { name: 'Hello', script: ['Hi'], criteria: [{ criterion: 'Answers', check: { type: 'contains', value: 'help' } }] });
    const suite = await call('POST', '/test-suites', { name: 'Nightly', scenario_ids: [s.body.id] });
    const sched = await call('POST', '/schedules', { agent_id: a.body.id, test_suite_id: suite.body.id, cron: '* * * * *', max_turns: 1 });
    expect(sched.status).toBe(201);

    let firings: any[] = [];
    const deadline = Date.now() + 150_000;
    while (Date.now() < deadline) {
      firings = (await call('GET', `/schedules/${sched.body.id}/firings`)).body.firings;
      if (firings.length >= 2) break;
      await new Promise((r) => setTimeout(r, 2000));
    }
    expect(firings.length).toBeGreaterThanOrEqual(2);
    const minutes = firings.map((f) => Date.parse(f.scheduled_for));
    expect(new Set(minutes).size).toBe(firings.length);
    for (const f of firings) {
      expect(f.status).toBe('created');
      expect(new Date(f.scheduled_for).getUTCSeconds()).toBe(0);
      expect(Date.parse(f.fired_at) - Date.parse(f.scheduled_for)).toBeLessThan(30_000);
    }
    const runs = (await call('GET', `/runs?limit=100`)).body.runs;
    expect(runs.map((r: any) => r.id).sort()).toEqual(firings.map((f) => f.run_id).sort());
    expect((await call('GET', `/schedules/${sched.body.id}`)).body.last_run_id).toBe(firings[0].run_id);
  }, 200_000);
});
