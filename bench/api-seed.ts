import { randomUUID } from 'node:crypto';

/**
 * Data for the API benchmark. The agent, templates and suite go through the API; the runs are written
 * with SQL, shaped like the engine's rows (transcripts, criteria, metrics): a run of 10,000 scenario
 * runs through the engine would take far longer than the benchmark itself.
 */
export type Sql = (text: string, params?: unknown[]) => Promise<{ rows: any[] }>;
export type Call = (method: string, url: string, body?: unknown) => Promise<{ status: number; body: any }>;

export interface Seeded { agentId: string; suiteId: string; smallRunId: string; bigRunId: string; bigRunSize: number }

const turn = (i: number) => [
  { role: 'user', content: `Hello, I would like to book a cleaning, message ${i}.`, timestamp: '2026-11-22T10:00:00.000Z' },
  { role: 'assistant', content: 'Certainly, you are booked for Tuesday at nine.', timestamp: '2026-11-22T10:00:00.300Z', latency_ms: 300 },
];
const TRANSCRIPT = [0, 1, 2, 3].flatMap(turn);
const CRITERIA = [
  { criterion: 'Confirms the booking', decision: 'MET', points_awarded: 1, max_points: 1, rationale: 'check contains "booked": found', evidence_quotes: [{ turn: 1, role: 'assistant', text: 'you are booked' }], graded_by: 'check' },
  { criterion: 'Is polite', decision: 'MET', points_awarded: 1, max_points: 1, rationale: 'The agent greets and thanks the caller.', graded_by: 'judge' },
];
const SCENARIO_METRICS = { time_to_first_response_ms: 300, average_turn_duration_ms: 510, total_duration_ms: 2200, cost_usd: 0.0012, turn_count: 4 };
const RUN_METRICS = { ...SCENARIO_METRICS, p50_turn_duration_ms: 505, p95_turn_duration_ms: 620, total_cost_usd: 1.2, turn_count: 4 };

/** A finished run of `n` scenario runs (9 in 10 passed, 1 in 10 failed, 1 in 50 errors), in two statements. */
async function insertRun(sql: Sql, s: { orgId: string; agentId: string; suiteId: string; scenarioIds: string[] }, n: number): Promise<string> {
  const id = randomUUID();
  await sql(
    `insert into runs (id, org_id, name, status, agent_id, agent_name, test_suite_id, test_mode, max_turns, total_scenarios, metrics, started_at, completed_at, updated_at)
     values ($1, $2, $3, 'completed', $4, 'Bench desk', $5, 'full', 4, $6, $7::jsonb, now() - interval '10 minutes', now(), now())`,
    [id, s.orgId, `Bench run of ${n}`, s.agentId, s.suiteId, n, JSON.stringify(RUN_METRICS)],
  );
  await sql(
    `insert into scenario_runs (id, run_id, org_id, scenario_id, scenario_name, position, status, passed, grade_summary, criteria_results,
                                transcript, error_message, duration_ms, metrics, turn_durations, attempts, enqueued, started_at, completed_at)
     select gen_random_uuid(), $1, $2, ($3::uuid[])[1 + g % array_length($3::uuid[], 1)], 'Bench scenario ' || (g % 10), g, st,
            case st when 'passed' then true when 'failed' then false end,
            case st when 'error' then null else '2 of 2 criteria met (score 1.00)' end,
            case st when 'error' then '[]'::jsonb else $4::jsonb end, $5::jsonb,
            case st when 'error' then 'provider: 503 upstream unavailable' end,
            2000 + g % 500, $6::jsonb, '[480, 510, 530, 520]'::jsonb, 1, true, now() - interval '5 minutes', now()
       from (select g, case when g % 50 = 7 then 'error' when g % 10 = 9 then 'failed' else 'passed' end as st
               from generate_series(0, $7::int - 1) g) x`,
    [id, s.orgId, s.scenarioIds, JSON.stringify(CRITERIA), JSON.stringify(TRANSCRIPT), JSON.stringify(SCENARIO_METRICS), n],
  );
  await sql(
    `update runs r set passed_count = c.p, failed_count = c.f, error_count = c.e
       from (select count(*) filter (where status = 'passed')::int p, count(*) filter (where status = 'failed')::int f,
                    count(*) filter (where status = 'error')::int e from scenario_runs where run_id = $1) c
      where r.id = $1`,
    [id],
  );
  return id;
}

export async function seed(call: Call, sql: Sql, bigRunSize = 10_000): Promise<Seeded> {
  // runs are never executed here (no worker): the agent's URL is never called
  const agent = await call('POST', '/agents', { provider: 'provider_4', name: 'Bench desk', config: { base_url: 'http://127.0.0.1:9/v1', model: 'desk' } });
  if (agent.status !== 201) throw new Error(`agent: ${JSON.stringify(agent.body)}`);
  const scenarioIds: string[] = [];
  for (let i = 0; i < 10; i++) {
    const s = await call('POST', '/scenarios', {
      name: `Bench scenario ${i}`, persona: 'A patient', goal: 'Book a cleaning', script: ['Hello', 'Tuesday', 'Nine', 'Thanks'],
      criteria: [{ criterion: 'Confirms the booking', check: { type: 'contains', value: 'booked' } }, { criterion: 'Is polite', check: null }],
    });
    if (s.status !== 201) throw new Error(`scenario: ${JSON.stringify(s.body)}`);
    scenarioIds.push(s.body.id);
  }
  const suite = await call('POST', '/test-suites', { name: 'Bench suite', scenario_ids: scenarioIds });
  const orgId = (await sql('select org_id from agents where id = $1', [agent.body.id])).rows[0].org_id;
  const s = { orgId, agentId: agent.body.id, suiteId: suite.body.id, scenarioIds };
  const smallRunId = await insertRun(sql, s, 10);
  const bigRunId = await insertRun(sql, s, bigRunSize);
  await sql('analyze');
  return { agentId: s.agentId, suiteId: s.suiteId, smallRunId, bigRunId, bigRunSize };
}

/** Runs created by a POST /runs trial: ended in bulk so the concurrent-run limit never bites the next trial. */
export async function endCreatedRuns(sql: Sql): Promise<void> {
  await sql(`update runs set status = 'canceled', completed_at = now(), updated_at = now() where status in ('pending', 'running', 'grading')`);
}
