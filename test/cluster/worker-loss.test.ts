import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAi, type FakeOpenAiServer } from '../fakes/openai-agent.js';
import { startWebhookReceiver, type WebhookReceiver } from '../fakes/webhook-receiver.js';
import { api, cliJson, createPgDatabase, ensureBuilt, startCli, type Proc } from './processes.js';

/**
 * Scaled mode with real processes on PostgreSQL: a worker dies (SIGKILL) or stalls (SIGSTOP) while it
 * holds a webhook delivery, or a scenario run's job is lost before anyone claims it. The rows are the
 * truth: the sweepers of the workers still alive finish the work within the promised bounds.
 * Retry schedule 5 s then 60 s: a stale attempt that wrongly moved the schedule would show.
 */
const LOST = 'worker lost during the attempt; outcome unknown';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('worker loss in scaled mode', () => {
  let db: { url: string; drop(): Promise<void> };
  let rx: WebhookReceiver;
  let agent: FakeOpenAiServer;
  let sql: pg.Client;
  const procs: Proc[] = [];
  let env: Record<string, string>;
  let call: ReturnType<typeof api>;
  let agentId: string;

  const worker = async () => {
    const w = startCli(['worker'], env);
    procs.push(w);
    await w.waitFor(/Worker: running/, 30_000);
    return w;
  };
  const hook = async (path: string) => {
    const w = await call('POST', '/webhooks', { url: `${rx.url}${path}` });
    expect(w.status).toBe(201);
    return w.body.id as string;
  };
  /** A run that ends at once (canceled, or failed if a worker got to it first): one event. */
  const endedRun = async () => {
    const r = await call('POST', '/runs', { agent_id: agentId, max_scenarios: 1 });
    expect(r.status).toBe(201);
    await call('POST', `/runs/${r.body.id}/cancel`);
    return r.body.id as string;
  };
  const onlyDelivery = async (webhookId: string) => {
    const list = (await call('GET', `/webhooks/${webhookId}/deliveries`)).body;
    expect(list.total).toBe(1);
    return (await call('GET', `/webhooks/${webhookId}/deliveries/${list.deliveries[0].id}`)).body;
  };
  const waitDelivery = async (webhookId: string, done: (d: any) => boolean, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const d = await onlyDelivery(webhookId);
      if (done(d)) return d;
      if (Date.now() > deadline) throw new Error(`delivery not done: ${JSON.stringify(d)}`);
      await sleep(250);
    }
  };

  beforeAll(async () => {
    ensureBuilt();
    db = await createPgDatabase('rehearsal_worker_loss');
    rx = await startWebhookReceiver();
    agent = await startFakeOpenAi({ apiKey: null, latencyMs: 50, reply: () => 'Sure, you are booked for Tuesday.' });
    env = {
      DATABASE_URL: db.url, REHEARSAL_SECRET_KEY: 'worker-loss-secret-0123456789abcdefghij', PORT: '0',
      REHEARSAL_WEBHOOK_ALLOW_PRIVATE: 'true', REHEARSAL_WEBHOOK_RETRY_SCHEDULE: '5,60,60', REHEARSAL_WORKER_LEASE_SECONDS: '3',
    };
    const apiProc = startCli(['serve', '--no-worker'], env);
    procs.push(apiProc);
    const [, base] = await apiProc.waitFor(/listening on (http:\/\/[^/\s]+)\/api\/v1/, 30_000);
    const { key } = await cliJson(['keys', 'create', '--org', 'loss', '--json'], env);
    call = api(base, key);
    agentId = (await call('POST', '/agents', { provider: 'provider_4', name: 'Desk', config: { base_url: agent.baseUrl, model: 'm' } })).body.id;
    sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
  }, 60_000);
  afterAll(async () => {
    for (const p of procs) await p.kill('SIGKILL');
    await sql?.end();
    await rx?.close();
    await agent?.close();
    await db?.drop();
  });

  async function killedMidRequest(path: string, spendQueueRetries: boolean) {
    const webhookId = await hook(path);
    rx.script(path, 'timeout');
    const w1 = await worker();
    await endedRun();
    await rx.waitFor(1, 20_000, path);
    if (spendQueueRetries) {
      const { id } = await onlyDelivery(webhookId);
      const spent = await sql.query(`update pgboss.job set retry_count = retry_limit where name = 'webhook-delivery' and state = 'active' and data->>'delivery_id' = $1`, [id]);
      expect(spent.rowCount).toBe(1);
    }
    const killedAt = Date.now();
    await w1.kill('SIGKILL');
    const w2 = await worker();
    const got = await rx.waitFor(2, 40_000, path);
    expect(got[1].at - killedAt).toBeLessThan(40_000);
    expect(got[1].headers['webhook-id']).toBe(got[0].headers['webhook-id']);
    const d = await waitDelivery(webhookId, (x) => x.status !== 'pending', 5_000);
    expect(d).toMatchObject({ status: 'succeeded', attempt_count: 2, next_attempt_at: null });
    expect(d.attempts.map((a: any) => [a.attempt, a.trigger, a.response_status, a.error])).toEqual([
      [1, 'automatic', null, LOST], [2, 'automatic', 200, null],
    ]);
    expect(Date.parse(d.attempts[0].attempted_at)).toBeLessThan(Date.parse(d.attempts[1].attempted_at));
    await w2.kill('SIGKILL');
    await call('DELETE', `/webhooks/${webhookId}`);
  }

  it('a worker SIGKILLed while the receiver holds its request: the event arrives within 40 s, the lost attempt is in the history', async () => {
    await killedMidRequest('/killed', false);
  }, 100_000);

  it('the same when the job\'s queue-level retries were already spent', async () => {
    await killedMidRequest('/spent', true);
    // pg-boss gave up on the job: only the sweeper could have delivered it
    const { rows } = await sql.query(`select state from pgboss.job where name = 'webhook-delivery' and retry_count = retry_limit`);
    expect(rows.map((r) => r.state)).not.toContain('retry');
  }, 100_000);

  it('a worker SIGSTOPped past its lock and resumed: one extra request at most, both recorded, the stale record moves nothing', async () => {
    const path = '/paused';
    const webhookId = await hook(path);
    rx.script(path, 'timeout', 500);
    const w1 = await worker();
    await endedRun();
    await rx.waitFor(1, 20_000, path);
    w1.child.kill('SIGSTOP');
    const w2 = await worker();
    // the 20 s lock runs out; the sweeper records attempt 1 as lost and attempt 2 goes out (500: retry in 60 s)
    const before = await waitDelivery(webhookId, (x) => x.attempts.length === 2 && x.attempts[1].response_status === 500, 40_000);
    expect(before.attempts[0].error).toBe(LOST);
    expect(before).toMatchObject({ status: 'pending', attempt_count: 2 });
    w1.child.kill('SIGCONT');
    // the stalled worker's request times out as soon as it runs again, and it records that outcome
    const after = await waitDelivery(webhookId, (x) => x.attempts[0].error !== LOST, 20_000);
    expect(after.attempts[0].error).toMatch(/^timeout: /);
    expect(after.attempts.map((a: any) => a.attempt)).toEqual([1, 2]);
    expect(after).toMatchObject({ status: 'pending', attempt_count: 2, next_attempt_at: before.next_attempt_at });
    const row = (await sql.query('select auto_attempts, lock_token from webhook_deliveries where id = $1', [after.id])).rows[0];
    expect(row).toEqual({ auto_attempts: 2, lock_token: null });
    await sleep(3000);
    expect(rx.count(path)).toBe(2);
    await w1.kill('SIGKILL');
    await w2.kill('SIGKILL');
    await call('DELETE', `/webhooks/${webhookId}`);
  }, 100_000);

  it('a scenario-run job lost before its claim, and one whose queue job failed: both runs end and emit their event', async () => {
    await hook('/runs');
    const scenario = await call('POST', '/scenarios', {
      name: 'Booking', script: ['Hello', 'Tuesday please'], criteria: [{ criterion: 'Confirms', check: { type: 'contains', value: 'booked' } }],
    });
    const suite = await call('POST', '/test-suites', { name: 'One', scenario_ids: [scenario.body.id] });
    const newRun = async () => (await call('POST', '/runs', { agent_id: agentId, test_suite_id: suite.body.id, max_turns: 2 })).body.id as string;
    // no worker is up: the jobs wait in the queue, where we break them
    const lost = await newRun();
    const taken = await sql.query(`update pgboss.job set state = 'active', started_on = now() where name = 'scenario-run' and state = 'created' and data->>'run_id' = $1`, [lost]);
    expect(taken.rowCount).toBe(1);
    const failed = await newRun();
    const broken = await sql.query(`update pgboss.job set state = 'failed', completed_on = now() where name = 'scenario-run' and state = 'created' and data->>'run_id' = $1`, [failed]);
    expect(broken.rowCount).toBe(1);
    const started = Date.now();
    await worker();
    // pg-boss alone would hand the "fetched" job out again only after its 60 s expiry, and never the failed one
    for (const id of [lost, failed]) {
      for (;;) {
        const r = (await call('GET', `/runs/${id}`)).body;
        if (r.status === 'completed') break;
        if (Date.now() - started > 45_000) throw new Error(`run ${id} still ${r.status}`);
        await sleep(250);
      }
    }
    const events = await rx.waitFor(2, 15_000, '/runs');
    expect(new Set(events.map((e) => JSON.parse(e.body).test_run.id))).toEqual(new Set([lost, failed]));
  }, 100_000);
});
