import { and, eq } from 'drizzle-orm';
import type { Orm, Tx } from '../../db/client.js';
import { runs } from '../../db/schema.js';
import type { Ctx, Deps } from '../../deps.js';
import { AppError } from '../../lib/errors.js';
import { compareRuns, type RunSide } from './comparison.js';
import { findRunRow } from './runs.service.js';
import { loadRepetitions } from './scenario-aggregates.js';

type Row = typeof runs.$inferSelect;
const runNotFound = () => new AppError('RUN_NOT_FOUND', 'Run not found');

async function sideOf(db: { orm: Orm }, row: Row): Promise<RunSide> {
  return {
    id: row.id, status: row.status, maxTurns: row.maxTurns, repeats: row.repeats, testSuiteId: row.testSuiteId,
    passedCount: row.passedCount, failedCount: row.failedCount, reps: await loadRepetitions(db, [row.id], true),
  };
}

/** GET /runs/{id}/comparison: the run against `against`, else against its baseline. */
export async function getComparison(deps: Deps, ctx: Ctx, ref: string, against: string | undefined) {
  const row = await findRunRow(deps, ctx, ref);
  if (!row) throw runNotFound();
  let baseline: Row | null;
  if (against !== undefined) {
    baseline = await findRunRow(deps, ctx, against);
  } else {
    if (!row.baselineRunId) {
      throw new AppError('INVALID_STATE', 'The run has no baseline: pass ?against=<run id> or create the run with baseline');
    }
    baseline = await findRunRow(deps, ctx, row.baselineRunId);
  }
  if (!baseline) throw runNotFound();
  return compareRuns(await sideOf(deps.db, baseline), await sideOf(deps.db, row));
}

/** What a webhook payload carries of a run's comparison with its baseline; null when it has none (or it is gone). */
export async function comparisonSummary(tx: Tx, run: Row) {
  if (!run.baselineRunId) return null;
  const [baseline] = await tx.orm.select().from(runs).where(and(eq(runs.orgId, run.orgId), eq(runs.id, run.baselineRunId)));
  if (!baseline) return null;
  const c = compareRuns(await sideOf(tx, baseline), await sideOf(tx, run));
  return { baseline_run_id: c.baseline_run_id, verdict: c.verdict, counts: c.counts };
}
