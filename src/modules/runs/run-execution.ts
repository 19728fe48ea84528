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

/**
 * Extends the leases of the conversations this worker is holding right now: one statement per worker
 * per beat. Only those: a scenario run whose final write failed (database unreachable) is no longer
 * worked on here, so its lease must run out for the reaper to hand it to another attempt.
 */
export async function renewLeases(deps: Deps, lease: Lease, ids: string[]) {
  if (ids.length === 0) return;
  await deps.db.orm.update(scenarioRuns).set({ leaseExpiresAt: new Date(deps.clock.now() + lease.ms) })
    .where(and(inArray(scenarioRuns.id, ids), eq(scenarioRuns.leaseOwner, lease.owner), inArray(scenarioRuns.status, ['running', 'grading'])));
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
