import { and, eq, inArray, isNotNull, sql } from 'drizzle-orm';
import type { Tx } from '../../../db/client.js';
import { runs, scenarioRuns } from '../../../db/schema.js';
import type { Deps } from '../../../deps.js';
import { aggregateRunMetrics } from '../../../engine/metrics.js';
import { decideOutcome, isRetried, type Fault } from '../../../engine/outcome.js';
import type { ScenarioRunResult } from '../../../engine/scenario-runner.js';
import type { ScenarioMetrics } from '../../../engine/types.js';
import { runPredecessors } from '../run-status.js';
import { isoSql, type ScenarioRunRef } from './claims.js';
import { CONVERSATION_NOT_OVER, HELD, RUN_ACTIVE, RUN_TO_CANCELED, RUN_TO_GRADING, sqlList, TO_ERROR, TO_GRADING } from './guards.js';

/**
 * How scenario runs and runs end: results, grading marks, counters and final states. Each is a conditional
 * update on the expected current state, in one transaction with the counters it moves, so a scenario run is
 * counted exactly once whatever process dies or retries. Multi-row writers lock scenario runs in id order, and
 * run rows last, so two of them never wait on each other in a cycle.
 */
export type RunRow = typeof runs.$inferSelect;
/** What deciding a run's final state needs to know of it. */
export type RunTally = Pick<RunRow, 'id' | 'errorCount' | 'totalScenarios'>;
export interface FinishItem { id: string; runId: string; owner: string; result: ScenarioRunResult }
/** What a batch adds to a run: counters, and the largest timing uncertainty among its conversations (ms). */
type Counts = { passed: number; failed: number; error: number; faults: Partial<Record<Fault, number>>; retried: number; lag: number };
const FAULTS: readonly Fault[] = ['agent', 'tester', 'judge', 'provider', 'internal', 'canceled'];
const noCounts = (): Counts => ({ passed: 0, failed: 0, error: 0, faults: {}, retried: 0, lag: 0 });

/** Locks scenario runs in id order. */
export async function lockScenarioRuns(tx: Tx, ids: string[]) {
  await tx.executeSql('select id from scenario_runs where id = any($1::uuid[]) order by id for update', [ids]);
}

export async function lockRuns(tx: Tx, ids: string[]) {
  await tx.executeSql('select id from runs where id = any($1::uuid[]) order by id for update', [ids]);
}

const RECORD_SQL = `update scenario_runs s
          set status = v.status, passed = v.passed, grade_summary = v.grade_summary, criteria_results = v.criteria_results,
              transcript = v.transcript, error_message = v.error_message, duration_ms = v.duration_ms, metrics = v.metrics,
              turn_durations = v.turn_durations, tester_model = v.tester_model, judge_model = v.judge_model,
              fault = v.fault, end_reason = v.end_reason, agent_turns = v.agent_turns, decided_share = v.decided_share,
              judge_prompt_version = v.judge_prompt_version,
              completed_at = $2::timestamptz, lease_owner = null, lease_expires_at = null
         from jsonb_to_recordset($1::jsonb) as v(id uuid, owner text, status text, passed boolean, grade_summary text,
              criteria_results jsonb, transcript jsonb, error_message text, duration_ms integer, metrics jsonb,
              turn_durations jsonb, tester_model text, judge_model text, fault text, end_reason text, agent_turns integer,
              decided_share double precision, judge_prompt_version text)
        where s.id = v.id and s.lease_owner = v.owner and s.status in (${sqlList(HELD)})
        returning s.id, s.run_id, v.status, v.fault, jsonb_array_length(s.attempt_history) > 0 as retried`;

type Recorded = { id: string; run_id: string; status: 'passed' | 'failed' | 'error'; fault: Fault | null; retried: boolean };

/** Records results of conversations their workers still hold; returns the ones recorded. */
export async function recordResults(tx: Tx, items: FinishItem[], now: string): Promise<Recorded[]> {
  const rows = items.map(({ id, owner, result: r }) => ({
    id, owner, status: r.outcome.status, passed: r.outcome.status === 'error' ? null : r.passed, grade_summary: r.grade_summary,
    criteria_results: r.criteria_results, transcript: r.transcript, error_message: r.outcome.message, duration_ms: Math.round(r.duration_ms),
    metrics: r.metrics, turn_durations: r.turn_durations_ms, tester_model: r.tester_model, judge_model: r.judge_model,
    fault: r.outcome.fault, end_reason: r.end_reason, agent_turns: r.agent_turns, decided_share: r.decided_share,
    judge_prompt_version: r.judge_prompt_version,
  }));
  const { rows: done } = await tx.executeSql(RECORD_SQL, [JSON.stringify(rows), now]);
  return done as Recorded[];
}

const RETRY_SQL = `update scenario_runs s
          set status = 'running', lease_owner = null, lease_expires_at = null, enqueued_at = $2::timestamptz,
              attempt_history = s.attempt_history || jsonb_build_array(jsonb_build_object('attempt', s.attempts, 'fault', v.fault,
                'error_message', v.error_message, 'started_at', ${isoSql('coalesce(s.attempt_started_at, s.started_at)')},
                'ended_at', ${isoSql('$2::timestamptz')}))
         from jsonb_to_recordset($1::jsonb) as v(id uuid, owner text, fault text, error_message text)
        where s.id = v.id and s.lease_owner = v.owner and s.status in (${sqlList(HELD)})
          and jsonb_array_length(s.attempt_history) < $3::integer
          and exists (select 1 from runs r where r.id = s.run_id and r.status in (${sqlList(RUN_ACTIVE)}))
        returning s.id, s.run_id as "runId", s.org_id as "orgId"`;

/**
 * Sets conversations that ended on a fault not the agent's aside for another attempt, while their workers still
 * hold them, their runs are active and fewer than `retries` attempts did not count: the attempt goes to
 * attempt_history, the lease is let go, and the caller enqueues the scenario run again in the same transaction.
 * Returns the ones set aside; the others are recorded as they are.
 */
export async function retryScenarioRuns(tx: Tx, items: FinishItem[], now: string, retries: number): Promise<ScenarioRunRef[]> {
  if (items.length === 0 || retries <= 0) return [];
  const rows = items.map(({ id, owner, result: r }) => ({ id, owner, fault: r.outcome.fault, error_message: r.outcome.message }));
  const { rows: done } = await tx.executeSql(RETRY_SQL, [JSON.stringify(rows), now, retries]);
  return done as ScenarioRunRef[];
}

const faultColumn = (f: Fault) => `fault_${f}`;
const ADD_COUNTS_SQL = `update runs r set passed_count = r.passed_count + v.p, failed_count = r.failed_count + v.f, error_count = r.error_count + v.e,
         ${FAULTS.map((f) => `${faultColumn(f)} = r.${faultColumn(f)} + v.${f}`).join(', ')}, retried_count = r.retried_count + v.retried,
         timing_uncertainty_ms = greatest(r.timing_uncertainty_ms, v.lag), updated_at = $2::timestamptz
    from jsonb_to_recordset($1::jsonb) as v(id uuid, p integer, f integer, e integer, ${FAULTS.map((f) => `${f} integer`).join(', ')}, retried integer, lag integer)
   where r.id = v.id
   returning r.id, r.status, r.passed_count, r.failed_count, r.error_count, r.total_scenarios`;

/** Adds finished scenario runs to their runs' counters (the results were just recorded, conditionally, once). */
export async function addCounts(tx: Tx, perRun: Map<string, Counts>, now: string) {
  const values = [...perRun].map(([id, c]) => ({
    id, p: c.passed, f: c.failed, e: c.error, retried: c.retried, lag: Math.round(c.lag), ...Object.fromEntries(FAULTS.map((f) => [f, c.faults[f] ?? 0])),
  }));
  const { rows } = await tx.executeSql(ADD_COUNTS_SQL, [JSON.stringify(values), now]);
  return rows.map((u) => ({
    id: u.id as string, status: u.status as string, errorCount: Number(u.error_count), totalScenarios: Number(u.total_scenarios),
    finished: Number(u.passed_count) + Number(u.failed_count) + Number(u.error_count),
  }));
}

/**
 * Records a batch of finished conversations in one transaction (group commit). The transaction that brings a
 * run's counts to its total finalizes the run. `next(tx, runId, k)` enqueues up to k more scenario runs of a run.
 */
export async function finishScenarioRuns(
  deps: Deps, items: FinishItem[], next: (tx: Tx, runId: string, k: number) => Promise<void>, again: (tx: Tx, sr: ScenarioRunRef) => Promise<void>,
): Promise<boolean[]> {
  const now = new Date(deps.clock.now()).toISOString();
  return deps.db.transaction(async (tx) => {
    await lockScenarioRuns(tx, items.map((i) => i.id));
    const retried = await retryScenarioRuns(tx, items.filter((i) => isRetried(i.result.outcome)), now, deps.config.faultRetries);
    for (const sr of retried) await again(tx, sr);
    const retriedIds = new Set(retried.map((r) => r.id));
    const done = await recordResults(tx, items.filter((i) => !retriedIds.has(i.id)), now);
    const counted = new Set(done.map((d) => d.id));
    const perRun = new Map<string, Counts>();
    const lagOf = new Map(items.map((i) => [i.id, i.result.timing_uncertainty_ms ?? 0]));
    for (const d of done) {
      const c = perRun.get(d.run_id) ?? noCounts();
      c.lag = Math.max(c.lag, lagOf.get(d.id) ?? 0);
      c[d.status]++;
      if (d.fault) c.faults[d.fault] = (c.faults[d.fault] ?? 0) + 1;
      if (d.retried) c.retried++;
      perRun.set(d.run_id, c);
    }
    if (perRun.size > 0) {
      for (const [runId, c] of perRun) await next(tx, runId, c.passed + c.failed + c.error);
      // every finishing conversation meets at the run rows: locked last, held briefly
      await lockRuns(tx, [...perRun.keys()]);
      for (const u of await addCounts(tx, perRun, now)) {
        if ((RUN_ACTIVE as readonly string[]).includes(u.status) && u.finished >= u.totalScenarios) await finalizeRun(deps, tx, u, null);
      }
    }
    return items.map((i) => counted.has(i.id) || retriedIds.has(i.id));
  });
}

const GRADING_SQL = `with l as (select id from scenario_runs where id in (select (x->>'id')::uuid from jsonb_array_elements($1::jsonb) x) order by id for update),
     g as (
       update scenario_runs s set status = 'grading'
         from jsonb_to_recordset($1::jsonb) as v(id uuid, owner text)
        where s.id = v.id and s.id in (select id from l) and s.status in (${sqlList(TO_GRADING)}) and s.lease_owner = v.owner
        returning s.id, s.run_id)
     update runs r set status = 'grading', updated_at = $2::timestamptz
      where r.id in (select run_id from g) and r.status in (${sqlList(RUN_TO_GRADING)})
        and not exists (select 1 from scenario_runs x where x.run_id = r.id and x.status in (${sqlList(CONVERSATION_NOT_OVER)})
                          and x.id not in (select id from g))`;

/**
 * Conversations that are over and now being graded, as one statement per batch; a run is `grading` once none
 * of its conversations is left (the batch's own rows still read as running in the subquery).
 */
export async function markGrading(deps: Deps, items: Array<{ id: string; owner: string }>): Promise<void[]> {
  await deps.db.executeSql(GRADING_SQL, [JSON.stringify(items), new Date(deps.clock.now()).toISOString()]);
  return items.map(() => undefined);
}

/** Sets a run's final state once (completed, or failed when nothing but errors), with its metrics. */
export async function finalizeRun(deps: Deps, tx: Tx, run: RunTally, failure: string | null): Promise<RunRow | null> {
  const now = new Date(deps.clock.now());
  const allErrored = run.errorCount >= run.totalScenarios;
  const status = failure || allErrored ? 'failed' : 'completed';
  const rows = await tx.orm.select({ metrics: scenarioRuns.metrics, turn: scenarioRuns.turnDurations }).from(scenarioRuns)
    .where(and(eq(scenarioRuns.runId, run.id), isNotNull(scenarioRuns.metrics)));
  const metrics = aggregateRunMetrics(rows.map((x) => ({ metrics: x.metrics as ScenarioMetrics, turn_durations_ms: x.turn ?? [] })));
  const [final] = await tx.orm.update(runs).set({
    status, completedAt: now, updatedAt: now, metrics,
    errorMessage: failure ?? (allErrored ? 'every scenario ended in error' : null),
  }).where(and(eq(runs.id, run.id), inArray(runs.status, runPredecessors(status)))).returning();
  if (final) await deps.hooks.onRunFinalized(tx, final.id);
  return final ?? null;
}

/**
 * A scenario run set aside for another attempt that ends before that attempt starts: its last attempt, already
 * in the history, is the one that counts after all (attempts = 1 + the history, still).
 */
const WITHOUT_PENDING_RETRY = sql`case when jsonb_array_length(${scenarioRuns.attemptHistory}) >= ${scenarioRuns.attempts}
  and ${scenarioRuns.attempts} > 0 then ${scenarioRuns.attemptHistory} - -1 else ${scenarioRuns.attemptHistory} end`;
const ended = { id: scenarioRuns.id, retried: sql<boolean>`jsonb_array_length(${scenarioRuns.attemptHistory}) > 0` };

/** Ends every unfinished scenario run of a run as error, releasing their leases. */
export async function errorUnfinished(tx: Tx, runId: string, message: string, fault: Fault, now: Date) {
  return tx.orm.update(scenarioRuns).set({ status: 'error', errorMessage: message, fault, attemptHistory: WITHOUT_PENDING_RETRY, completedAt: now, leaseOwner: null, leaseExpiresAt: null })
    .where(and(eq(scenarioRuns.runId, runId), inArray(scenarioRuns.status, [...TO_ERROR]))).returning(ended);
}

/** Ends a run's conversations in flight as error; their workers see it at their next conditional write. */
export async function errorHeld(tx: Tx, runId: string, message: string, fault: Fault, now: Date) {
  return tx.orm.update(scenarioRuns).set({
    status: 'error', errorMessage: message, fault, endReason: fault === 'canceled' ? 'canceled' : null, attemptHistory: WITHOUT_PENDING_RETRY, completedAt: now,
  })
    .where(and(eq(scenarioRuns.runId, runId), inArray(scenarioRuns.status, [...HELD]))).returning(ended);
}

const FAULT_COLUMNS = {
  agent: runs.faultAgent, tester: runs.faultTester, judge: runs.faultJudge, provider: runs.faultProvider, internal: runs.faultInternal, canceled: runs.faultCanceled,
} as const;
const FAULT_KEYS = { agent: 'faultAgent', tester: 'faultTester', judge: 'faultJudge', provider: 'faultProvider', internal: 'faultInternal', canceled: 'faultCanceled' } as const;

/** Adds scenario runs ended as error with one fault to a run's counters, while the run is in one of `whileIn`. */
export async function addErrors(tx: Tx, runId: string, stopped: Array<{ retried: boolean }>, fault: Fault, now: Date, whileIn: readonly string[]): Promise<RunRow | null> {
  const n = stopped.length;
  const [run] = await tx.orm.update(runs).set({
    errorCount: sql`${runs.errorCount} + ${n}`, [FAULT_KEYS[fault]]: sql`${FAULT_COLUMNS[fault]} + ${n}`,
    retriedCount: sql`${runs.retriedCount} + ${stopped.filter((x) => x.retried).length}`, updatedAt: now,
  }).where(and(eq(runs.id, runId), inArray(runs.status, [...whileIn]))).returning();
  return run ?? null;
}

/**
 * The provider rejected the credentials: the rest of the run cannot succeed. Every unfinished scenario
 * run ends as error (counted once), and the run fails now instead of burning the whole suite.
 */
export async function failRunFast(deps: Deps, runId: string, outcome: { message: string; fault: Fault }): Promise<RunRow | null> {
  const { message } = outcome;
  const now = new Date(deps.clock.now());
  return deps.db.transaction(async (tx) => {
    const stopped = await errorUnfinished(tx, runId, message, outcome.fault, now);
    const run = await addErrors(tx, runId, stopped, outcome.fault, now, RUN_ACTIVE);
    if (!run) return null;
    return finalizeRun(deps, tx, run, message);
  });
}

export async function setRunCanceled(tx: Tx, runId: string, reason: string | null, now: Date): Promise<RunRow | null> {
  const [run] = await tx.orm.update(runs).set({ status: 'canceled', completedAt: now, updatedAt: now, errorMessage: reason })
    .where(and(eq(runs.id, runId), inArray(runs.status, [...RUN_TO_CANCELED]))).returning();
  return run ?? null;
}

export async function lockHeldOfRun(tx: Tx, runId: string) {
  await tx.executeSql(`select id from scenario_runs where run_id = $1 and status in (${sqlList(HELD)}) order by id for update`, [runId]);
}

/**
 * Ends a run as canceled in one transaction: conversations in flight become `error` ("run canceled") and are
 * counted; scenario runs that never started stay pending.
 */
export async function cancelRunInTx(deps: Deps, tx: Tx, runId: string, reason: string | null): Promise<RunRow | null> {
  const now = new Date(deps.clock.now());
  const run = await setRunCanceled(tx, runId, reason, now);
  if (!run) return null;
  await lockHeldOfRun(tx, runId);
  const stopped = await errorHeld(tx, runId, decideOutcome({ event: 'canceled' }).message, 'canceled', now);
  const final = stopped.length === 0 ? run : await addErrors(tx, runId, stopped, 'canceled', now, ['canceled']);
  await deps.hooks.onRunFinalized(tx, runId);
  return final;
}
