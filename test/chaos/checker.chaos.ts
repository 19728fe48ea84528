import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { openPostgres } from '../../src/db/client.js';
import { createPgDatabase } from '../cluster/processes.js';
import { check } from './checker.js';

/** The chaos suite passes only if its checker can fail: each invariant, broken on purpose, is reported. */
describe('the chaos checker', () => {
  let db: { url: string; drop(): Promise<void> } | null = null;
  afterAll(async () => { await db?.drop(); });

  it('reports every kind of violation', async () => {
    db = await createPgDatabase('rehearsal_chaos_checker');
    const app = await openPostgres(db.url, 2);
    await app.migrate();
    await app.close();
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    const org = randomUUID();
    const agent = randomUUID();
    await c.query(`insert into organizations (id, name) values ($1, 'checker')`, [org]);
    const run = async (status: string, total: number, counts: [number, number, number]) => {
      const id = randomUUID();
      await c.query(
        `insert into runs (id, org_id, name, status, agent_id, agent_name, test_mode, max_turns, total_scenarios, passed_count, failed_count, error_count, started_at)
         values ($1, $2, 'r', $3, $4, 'a', 'full', 2, $5, $6, $7, $8, now())`,
        [id, org, status, agent, total, ...counts],
      );
      return id;
    };
    const sr = (runId: string, position: number, status: string, roles: string[]) => c.query(
      `insert into scenario_runs (id, run_id, org_id, scenario_id, scenario_name, position, status, transcript)
       values ($1, $2, $3, $4, 's', $5, $6, $7::jsonb)`,
      [randomUUID(), runId, org, randomUUID(), position, status, JSON.stringify(roles.map((role) => ({ role, content: 'x' })))],
    );
    const miscounted = await run('completed', 2, [2, 0, 0]);
    await sr(miscounted, 0, 'passed', ['user', 'assistant']);
    await sr(miscounted, 1, 'failed', ['user', 'assistant']);
    const unfinished = await run('running', 1, [0, 0, 0]);
    await sr(unfinished, 0, 'running', ['user']);
    const repeated = await run('completed', 1, [1, 0, 0]);
    await sr(repeated, 0, 'passed', ['user', 'assistant', 'assistant', 'user', 'assistant', 'user', 'assistant']);
    const tooLong = await run('completed', 1, [1, 0, 0]);
    await sr(tooLong, 0, 'passed', ['user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
    // an event for the first run, matching a webhook, but no delivery and nothing received
    const hook = randomUUID();
    await c.query(`insert into webhooks (id, org_id, url, events, secret_sealed) values ($1, $2, 'http://127.0.0.1:1/all', '["test_run_completed"]', 'x')`, [hook, org]);
    await c.query(`insert into webhook_events (id, org_id, run_id, event, body) values ($1, $2, $3, 'test_run_completed', '{}')`, [randomUUID(), org, miscounted]);
    // a delivery left pending, its attempts numbered with a gap, one still in flight, and more requests
    // received than attempts recorded
    const ev = randomUUID();
    const delivery = randomUUID();
    await c.query(`insert into webhook_events (id, org_id, run_id, event, body) values ($1, $2, $3, 'test_run_completed', '{}')`, [ev, org, tooLong]);
    await c.query(`insert into webhook_deliveries (id, webhook_id, event_id, event, status, attempt_count) values ($1, $2, $3, 'test_run_completed', 'pending', 2)`, [delivery, hook, ev]);
    await c.query(`insert into webhook_attempts (id, delivery_id, attempt, trigger, attempted_at, duration_ms, claim_token) values
      ($1, $3, 1, 'automatic', now(), 5, null), ($2, $3, 3, 'automatic', now() - interval '1 minute', 0, 'w:1')`, [randomUUID(), randomUUID(), delivery]);
    await c.end();
    const request = { path: '/all', headers: { 'webhook-id': ev }, body: '{}', at: 0 };

    const lost = randomUUID();
    const { violations } = await check(db.url, [miscounted, lost], [request, request, request]);
    const has = (re: RegExp) => expect(violations.some((v) => re.test(v)), `${re} in ${JSON.stringify(violations, null, 1)}`).toBe(true);
    has(new RegExp(`accepted run ${lost} is not in the database`));
    has(new RegExp(`run ${miscounted}: counts 2/0/0 but scenario runs 1/1/0`));
    has(new RegExp(`run ${unfinished} ended the test running`));
    has(new RegExp(`run ${repeated} \\(completed\\) has 0 events`));
    has(/entry 2 is assistant, expected user/);
    has(/3 turns, max_turns 2/);
    has(/deliveries to webhook http:\/\/127.0.0.1:1\/all, expected 1/);
    has(/never reached http:\/\/127.0.0.1:1\/all/);
    has(new RegExp(`delivery ${delivery} is still pending`));
    has(new RegExp(`delivery ${delivery}: attempts numbered 1,3`));
    has(new RegExp(`delivery ${delivery}: attempt 3 made before attempt 1`));
    has(new RegExp(`delivery ${delivery}: attempt 3 still in flight`));
    has(new RegExp(`delivery ${delivery}: the receiver saw 3 requests, the history has 2 attempts`));
  }, 60_000);
});
