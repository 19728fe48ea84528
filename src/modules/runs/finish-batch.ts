import type { Tx } from '../../db/client.js';
import type { Deps } from '../../deps.js';
import type { ScenarioRunResult } from '../../engine/scenario-runner.js';
import { ACTIVE_RUN_STATUSES } from './run-status.js';
import { finalizeRun, type RunRow } from './run-execution.js';

export interface FinishItem { id: string; runId: string; owner: string; result: ScenarioRunResult }

/**
 * Records a batch of finished conversations in one transaction (group commit): one statement for the
 * scenario runs, one for the counters of every run involved. Each scenario run is counted only if this
 * worker still held it (conditional update), so a result is never counted twice. The transaction that
 * brings a run's counts to its total finalizes the run.
 *
 * `next(tx, runId, k)` enqueues up to k more scenario runs of a run (its concurrency window).
 */
export async function finishScenarioRuns(deps: Deps, items: FinishItem[], next: (tx: Tx, runId: string, k: number) => Promise<void>): Promise<boolean[]> {
  const now = new Date(deps.clock.now()).toISOString();
  const rows = items.map(({ id, owner, result: r }) => ({
    id, owner, status: r.status, passed: r.status === 'error' ? null : r.passed, grade_summary: r.grade_summary,
    criteria_results: r.criteria_results, transcript: r.transcript, error_message: r.error_message, duration_ms: Math.round(r.duration_ms),
    metrics: r.metrics, turn_durations: r.turn_durations_ms, tester_model: r.tester_model, judge_model: r.judge_model,
  }));
  return deps.db.transaction(async (tx) => {
    // rows are locked in id order by every multi-row writer (finish, grading, transcript, lease renewal),
    // so two of them can never wait on each other in a cycle
    await lockScenarioRuns(tx, rows.map((r) => r.id));
    const { rows: done } = await tx.executeSql(
      `update scenario_runs s
          set status = v.status, passed = v.passed, grade_summary = v.grade_summary, criteria_results = v.criteria_results,
              transcript = v.transcript, error_message = v.error_message, duration_ms = v.duration_ms, metrics = v.metrics,
              turn_durations = v.turn_durations, tester_model = v.tester_model, judge_model = v.judge_model,
              completed_at = $2::timestamptz, lease_owner = null, lease_expires_at = null
         from jsonb_to_recordset($1::jsonb) as v(id uuid, owner text, status text, passed boolean, grade_summary text,
              criteria_results jsonb, transcript jsonb, error_message text, duration_ms integer, metrics jsonb,
              turn_durations jsonb, tester_model text, judge_model text)
        where s.id = v.id and s.lease_owner = v.owner and s.status in ('running', 'grading')
        returning s.id, s.run_id, v.status`,
      [JSON.stringify(rows), now],
    );
    const counted = new Set(done.map((d) => d.id as string));
    const perRun = new Map<string, { passed: number; failed: number; error: number }>();
    for (const d of done) {
      const c = perRun.get(d.run_id) ?? { passed: 0, failed: 0, error: 0 };
      c[d.status as 'passed' | 'failed' | 'error']++;
      perRun.set(d.run_id, c);
    }
    if (perRun.size > 0) {
      for (const [runId, c] of perRun) await next(tx, runId, c.passed + c.failed + c.error);
      // run rows last (in id order): every finishing conversation meets there, so their locks are held briefly
      await tx.executeSql('select id from runs where id = any($1::uuid[]) order by id for update', [[...perRun.keys()]]);
      const { rows: updated } = await tx.executeSql(
        `update runs r set passed_count = r.passed_count + v.p, failed_count = r.failed_count + v.f, error_count = r.error_count + v.e, updated_at = $2::timestamptz
           from jsonb_to_recordset($1::jsonb) as v(id uuid, p integer, f integer, e integer)
          where r.id = v.id
          returning r.id, r.status, r.passed_count, r.failed_count, r.error_count, r.total_scenarios`,
        [JSON.stringify([...perRun].map(([id, c]) => ({ id, p: c.passed, f: c.failed, e: c.error }))), now],
      );
      for (const u of updated) {
        const finished = Number(u.passed_count) + Number(u.failed_count) + Number(u.error_count);
        if ((ACTIVE_RUN_STATUSES as readonly string[]).includes(u.status) && finished >= Number(u.total_scenarios)) {
          await finalizeRun(deps, tx, {
            id: u.id, status: u.status, passedCount: Number(u.passed_count), failedCount: Number(u.failed_count),
            errorCount: Number(u.error_count), totalScenarios: Number(u.total_scenarios),
          } as RunRow, null);
        }
      }
    }
    return items.map((i) => counted.has(i.id));
  });
}

/**
 * Conversations that are over and now being graded, as one statement per batch; a run is `grading`
 * once none of its conversations is left (the batch's own rows still read as running in the subquery).
 */
export async function markGradingBatch(deps: Deps, items: Array<{ id: string; owner: string }>): Promise<void[]> {
  await deps.db.executeSql(
    `with l as (select id from scenario_runs where id in (select (x->>'id')::uuid from jsonb_array_elements($1::jsonb) x) order by id for update),
     g as (
       update scenario_runs s set status = 'grading'
         from jsonb_to_recordset($1::jsonb) as v(id uuid, owner text)
        where s.id = v.id and s.id in (select id from l) and s.status = 'running' and s.lease_owner = v.owner
        returning s.id, s.run_id)
     update runs r set status = 'grading', updated_at = $2::timestamptz
      where r.id in (select run_id from g) and r.status = 'running'
        and not exists (select 1 from scenario_runs x where x.run_id = r.id and x.status in ('pending', 'running')
                          and x.id not in (select id from g))`,
    [JSON.stringify(items), new Date(deps.clock.now()).toISOString()],
  );
  return items.map(() => undefined);
}

/** Locks scenario runs in id order (see finishScenarioRuns). */
export async function lockScenarioRuns(tx: Tx, ids: string[]) {
  await tx.executeSql('select id from scenario_runs where id = any($1::uuid[]) order by id for update', [ids]);
}
