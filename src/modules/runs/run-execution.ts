import { and, asc, eq, inArray, isNotNull, lt, sql } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { runs, scenarioRuns } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import { aggregateRunMetrics } from '../../engine/metrics.js';
import type { ScenarioRunResult } from '../../engine/scenario-runner.js';
import type { ScenarioMetrics } from '../../engine/types.js';
import { ACTIVE_RUN_STATUSES, runPredecessors, scenarioRunPredecessors } from './run-status.js';

/**
 * The run engine's state changes. Each one is a conditional update on the expected current state, in
 * one transaction with the counters it moves, so a scenario run is counted exactly once whatever
 * process dies or retries.
 */
export type ScenarioRunRow = typeof scenarioRuns.$inferSelect;
export type RunRow = typeof runs.$inferSelect;

export interface Lease { owner: string; ms: number }

export interface Claimed {
  sr: { id: string; runId: string; orgId: string; scenarioId: string; startedAt: Date | null };
  run: { id: string; agentId: string; maxTurns: number };
}

/**
 * Takes scenario runs for conversations — pending, or held by a worker whose lease ran out — and moves
 * their runs to running. One statement for a whole batch: a burst of jobs costs one round trip.
 */
export async function claimScenarioRuns(deps: Deps, ids: string[], lease: Lease): Promise<Map<string, Claimed>> {
  const now = deps.clock.now();
  const { rows } = await deps.db.executeSql(
    `with c as (
       update scenario_runs s
          set status = 'running', attempts = s.attempts + 1, started_at = coalesce(s.started_at, $2::timestamptz),
              lease_owner = $3, lease_expires_at = $4::timestamptz, transcript = '[]'::jsonb, criteria_results = '[]'::jsonb
        where s.id = any($1::uuid[])
          and (s.status = 'pending' or (s.status in ('running', 'grading') and (s.lease_owner is null or s.lease_expires_at < $2::timestamptz)))
          and exists (select 1 from runs r where r.id = s.run_id and r.status in ('pending', 'running', 'grading'))
        returning s.id, s.run_id, s.org_id, s.scenario_id, s.started_at),
     r as (update runs set status = 'running', updated_at = $2::timestamptz
            where id in (select run_id from c) and status = 'pending' returning id)
     select c.*, runs.agent_id, runs.max_turns, (select count(*) from r) as moved
       from c join runs on runs.id = c.run_id`,
    [ids, new Date(now).toISOString(), lease.owner, new Date(now + lease.ms).toISOString()],
  );
  const out = new Map<string, Claimed>();
  for (const row of rows) {
    out.set(row.id, {
      sr: { id: row.id, runId: row.run_id, orgId: row.org_id, scenarioId: row.scenario_id, startedAt: row.started_at ? new Date(row.started_at) : null },
      run: { id: row.run_id, agentId: row.agent_id, maxTurns: Number(row.max_turns) },
    });
  }
  return out;
}

export async function claimScenarioRun(deps: Deps, scenarioRunId: string, lease: Lease): Promise<Claimed | null> {
  return (await claimScenarioRuns(deps, [scenarioRunId], lease)).get(scenarioRunId) ?? null;
}

/**
 * The conversation is over and grading starts; the run is `grading` once no conversation is left.
 * One statement (the CTE's own row still reads as running in the subquery, hence `id <> $1`).
 */
export async function markGrading(deps: Deps, sr: { id: string }, owner: string) {
  await deps.db.executeSql(
    `with g as (update scenario_runs set status = 'grading' where id = $1 and status = 'running' and lease_owner = $2 returning run_id)
     update runs set status = 'grading', updated_at = $3::timestamptz
      where id = (select run_id from g) and status = 'running'
        and not exists (select 1 from scenario_runs x where x.run_id = (select run_id from g) and x.status in ('pending', 'running') and x.id <> $1)`,
    [sr.id, owner, new Date(deps.clock.now()).toISOString()],
  );
}

/** Extends the leases of everything this worker holds: one statement per worker per beat. */
export async function renewLeases(deps: Deps, lease: Lease) {
  await deps.db.orm.update(scenarioRuns).set({ leaseExpiresAt: new Date(deps.clock.now() + lease.ms) })
    .where(and(eq(scenarioRuns.leaseOwner, lease.owner), inArray(scenarioRuns.status, ['running', 'grading'])));
}

/**
 * Scenario runs whose worker stopped renewing its lease (killed, paused, cut off): release them and
 * enqueue a new job, in one transaction. Releasing (lease_owner null) keeps them from being reaped twice.
 */
export async function reapExpiredLeases(deps: Deps, enqueue: (tx: Tx, sr: Pick<ScenarioRunRow, 'id' | 'runId' | 'orgId'>) => Promise<void>, limit = 100) {
  const now = new Date(deps.clock.now());
  return deps.db.transaction(async (tx) => {
    const expired = await tx.orm.select({ id: scenarioRuns.id }).from(scenarioRuns)
      .where(and(isNotNull(scenarioRuns.leaseOwner), lt(scenarioRuns.leaseExpiresAt, now), inArray(scenarioRuns.status, ['running', 'grading'])))
      .limit(limit).for('update', { skipLocked: true });
    if (expired.length === 0) return 0;
    const released = await tx.orm.update(scenarioRuns).set({ leaseOwner: null })
      .where(inArray(scenarioRuns.id, expired.map((e) => e.id)))
      .returning({ id: scenarioRuns.id, runId: scenarioRuns.runId, orgId: scenarioRuns.orgId });
    for (const sr of released) await enqueue(tx, sr);
    return released.length;
  });
}

/** Marks the next not-yet-enqueued pending scenario runs of a run as enqueued and returns them. */
export async function takeNextToEnqueue(tx: Tx, runId: string, n: number) {
  if (n <= 0) return [];
  const next = await tx.orm.select({ id: scenarioRuns.id }).from(scenarioRuns)
    .where(and(eq(scenarioRuns.runId, runId), eq(scenarioRuns.status, 'pending'), eq(scenarioRuns.enqueued, false)))
    .orderBy(asc(scenarioRuns.position)).limit(n).for('update', { skipLocked: true });
  if (next.length === 0) return [];
  return tx.orm.update(scenarioRuns).set({ enqueued: true }).where(inArray(scenarioRuns.id, next.map((x) => x.id)))
    .returning({ id: scenarioRuns.id, runId: scenarioRuns.runId, orgId: scenarioRuns.orgId });
}

export interface FinishOutcome { counted: boolean; runFinal: RunRow | null }

/**
 * Records a scenario run's result and moves the run's counters, once: the update only applies while
 * this worker still holds the scenario run. The transaction that brings the counts to the total
 * finalizes the run.
 */
export async function finishScenarioRun(
  deps: Deps, sr: { id: string; runId: string }, owner: string, r: ScenarioRunResult,
  next: (tx: Tx) => Promise<void>,
): Promise<FinishOutcome> {
  const now = new Date(deps.clock.now());
  return deps.db.transaction(async (tx) => {
    const done = await tx.orm.update(scenarioRuns).set({
      status: r.status, passed: r.status === 'error' ? null : r.passed, gradeSummary: r.grade_summary, criteriaResults: r.criteria_results,
      transcript: r.transcript, errorMessage: r.error_message, durationMs: Math.round(r.duration_ms), metrics: r.metrics,
      turnDurations: r.turn_durations_ms, testerModel: r.tester_model, judgeModel: r.judge_model, completedAt: now, leaseOwner: null, leaseExpiresAt: null,
    }).where(and(eq(scenarioRuns.id, sr.id), inArray(scenarioRuns.status, scenarioRunPredecessors(r.status)), eq(scenarioRuns.leaseOwner, owner)))
      .returning({ id: scenarioRuns.id });
    if (done.length === 0) return { counted: false, runFinal: null };
    // The run row is every finishing conversation's meeting point: take its lock last, so it is held
    // only for this statement and the commit.
    await next(tx);
    const [run] = await tx.orm.update(runs).set({
      passedCount: sql`${runs.passedCount} + ${r.status === 'passed' ? 1 : 0}`,
      failedCount: sql`${runs.failedCount} + ${r.status === 'failed' ? 1 : 0}`,
      errorCount: sql`${runs.errorCount} + ${r.status === 'error' ? 1 : 0}`,
      updatedAt: now,
    }).where(eq(runs.id, sr.runId)).returning();
    if (!(ACTIVE_RUN_STATUSES as readonly string[]).includes(run.status)) return { counted: true, runFinal: null };
    if (run.passedCount + run.failedCount + run.errorCount >= run.totalScenarios) {
      return { counted: true, runFinal: await finalizeRun(deps, tx, run, null) };
    }
    return { counted: true, runFinal: null };
  });
}

/** Sets a run's final state once (completed, or failed when nothing but errors), with its metrics. */
export async function finalizeRun(deps: Deps, tx: Tx, run: RunRow, failure: string | null): Promise<RunRow | null> {
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
  if (final) await deps.hooks.onRunFinalized?.(tx, final.id);
  return final ?? null;
}

/**
 * The provider rejected the credentials: the rest of the run cannot succeed. Every unfinished scenario
 * run ends as error (counted once), and the run fails now instead of burning the whole suite.
 */
export async function failRunFast(deps: Deps, runId: string, message: string): Promise<RunRow | null> {
  const now = new Date(deps.clock.now());
  return deps.db.transaction(async (tx) => {
    const stopped = await tx.orm.update(scenarioRuns).set({ status: 'error', errorMessage: message, completedAt: now, leaseOwner: null, leaseExpiresAt: null })
      .where(and(eq(scenarioRuns.runId, runId), inArray(scenarioRuns.status, ['pending', 'running', 'grading']))).returning({ id: scenarioRuns.id });
    const [run] = await tx.orm.update(runs).set({ errorCount: sql`${runs.errorCount} + ${stopped.length}`, updatedAt: now })
      .where(and(eq(runs.id, runId), inArray(runs.status, [...ACTIVE_RUN_STATUSES]))).returning();
    if (!run) return null;
    return finalizeRun(deps, tx, run, message);
  });
}

export async function finalRunIds(deps: Deps, runIds: string[]): Promise<string[]> {
  if (runIds.length === 0) return [];
  const rows = await deps.db.orm.select({ id: runs.id }).from(runs)
    .where(and(inArray(runs.id, runIds), inArray(runs.status, ['completed', 'failed', 'canceled'])));
  return rows.map((r) => r.id);
}
