import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Tx } from '../../../db/client.js';
import { runs, scenarioRuns } from '../../../db/schema.js';
import type { Fault } from '../../../engine/outcome.js';
import { FINAL_SCENARIO_RUN_STATUSES } from '../run-status.js';
import { lockRuns } from './finish.js';

/**
 * How a human review changes a finished scenario run and its run. A review never moves a scenario run out of
 * the final states and never touches the run's status: it re-scores a verdict already counted, so the run's
 * counters move from the old bucket to the new one in the same transaction.
 */
type ScenarioRunRow = typeof scenarioRuns.$inferSelect;
type FinalStatus = 'passed' | 'failed' | 'error';

/** Locks one scenario run of the organization for a review (scenario run first, run row after, as finishing does). */
export async function lockScenarioRunForReview(tx: Tx, orgId: string, id: string): Promise<ScenarioRunRow | null> {
  await tx.executeSql('select id from scenario_runs where id = $1 and org_id = $2 for update', [id, orgId]);
  const [row] = await tx.orm.select().from(scenarioRuns).where(and(eq(scenarioRuns.id, id), eq(scenarioRuns.orgId, orgId)));
  return row ?? null;
}

export interface Rescored {
  status: FinalStatus;
  passed: boolean | null;
  gradeSummary: string | null;
  errorMessage: string | null;
  criteriaResults: unknown[];
  fault: Fault | null;
  decidedShare: number | null;
}

/**
 * Writes a review's outcome, conditional on the status the reviewer's transaction read (`from`): zero rows
 * means the scenario run is not in that final state any more, and nothing is counted.
 */
export async function recordReviewOutcome(tx: Tx, orgId: string, id: string, from: FinalStatus, next: Rescored): Promise<ScenarioRunRow | null> {
  if (!(FINAL_SCENARIO_RUN_STATUSES as readonly string[]).includes(next.status)) throw new Error(`a review cannot make a scenario run ${next.status}`);
  const [row] = await tx.orm.update(scenarioRuns).set({
    status: next.status, passed: next.passed, gradeSummary: next.gradeSummary, errorMessage: next.errorMessage, criteriaResults: next.criteriaResults,
    fault: next.fault, decidedShare: next.decidedShare,
  }).where(and(eq(scenarioRuns.id, id), eq(scenarioRuns.orgId, orgId), eq(scenarioRuns.status, from), inArray(scenarioRuns.status, [...FINAL_SCENARIO_RUN_STATUSES])))
    .returning();
  return row ?? null;
}

const COUNTER = { passed: runs.passedCount, failed: runs.failedCount, error: runs.errorCount } as const;

/**
 * Moves one scenario run from bucket `from` to bucket `to` of its run's counters (the total stays the same, so
 * a run still in progress finishes exactly when it would have), and counts the scenario run as reviewed on its
 * first review. The run's status, completed_at and events are left alone.
 */
export async function moveRunCounts(
  tx: Tx, runId: string, from: { status: FinalStatus; fault: Fault | null }, to: { status: FinalStatus; fault: Fault | null }, firstReview: boolean, now: Date,
): Promise<void> {
  await lockRuns(tx, [runId]);
  const set: Record<string, unknown> = { updatedAt: now };
  if (from.status !== to.status) {
    set[key(from.status)] = sql`${COUNTER[from.status]} - 1`;
    set[key(to.status)] = sql`${COUNTER[to.status]} + 1`;
  }
  if (from.fault !== to.fault) {
    if (from.fault) set[faultKey(from.fault)] = sql`${runs[faultKey(from.fault)]} - 1`;
    if (to.fault) set[faultKey(to.fault)] = sql`${runs[faultKey(to.fault)]} + 1`;
  }
  if (firstReview) set.reviewedCount = sql`${runs.reviewedCount} + 1`;
  const moved = await tx.orm.update(runs).set(set).where(and(eq(runs.id, runId), sql`${COUNTER[from.status]} > 0`)).returning({ id: runs.id });
  if (moved.length === 0) throw new Error(`run ${runId} has no ${from.status} scenario run to move`);
}

const key = (s: FinalStatus) => (s === 'passed' ? 'passedCount' : s === 'failed' ? 'failedCount' : 'errorCount');
const faultKey = (f: Fault) => `fault${f[0].toUpperCase()}${f.slice(1)}` as 'faultAgent' | 'faultTester' | 'faultJudge' | 'faultProvider' | 'faultInternal' | 'faultCanceled';
