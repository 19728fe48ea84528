import { and, asc, eq, isNull, or, sql } from 'drizzle-orm';
import { uuidv7 } from 'uuidv7';
import { apiKeys, reviews, scenarios } from '../../db/schema.js';
import type { Tx } from '../../db/client.js';
import type { Ctx, Deps } from '../../deps.js';
import { decideOutcome, type EndReason, type Fault } from '../../engine/outcome.js';
import { pointsFor, scoreCriteria } from '../../engine/scoring.js';
import type { CriterionResult, Decision } from '../../engine/types.js';
import { AppError, invalidField } from '../../lib/errors.js';
import type { Page } from '../../http/common.js';
import { isFinalScenarioRun } from '../runs/run-status.js';
import { lockScenarioRunForReview, moveRunCounts, recordReviewOutcome, type Rescored } from '../runs/run-store/reviews.js';
import type { ReviewBody } from './reviews.schemas.js';

/** The caller: reviews record which API key wrote them. */
export interface ReviewerCtx extends Ctx { keyId: string }

type ReviewRow = typeof reviews.$inferSelect;
/** A criterion result as stored once reviewed: the effective decision, the judge's own, and the effective review. */
export type ReviewedResult = CriterionResult & { judge_decision?: Decision; review?: ReturnType<typeof reviewView> | null };

export function reviewView(r: ReviewRow) {
  return {
    id: r.id, criterion_index: r.criterionIndex, decision: r.decision as 'MET' | 'PARTIAL' | 'NOT_MET', note: r.note,
    judge_decision: r.judgeDecision as Decision, reviewer: { api_key_id: r.apiKeyId, name: r.reviewerName }, created_at: r.createdAt.toISOString(),
  };
}

const notFound = () => new AppError('SCENARIO_RUN_NOT_FOUND', 'Scenario run not found');

/** The threshold the run graded against; rows from before it was kept fall back to the template's. */
async function passThreshold(tx: Tx, ctx: Ctx, row: { passThreshold: number | null; scenarioId: string }): Promise<number> {
  if (row.passThreshold !== null) return row.passThreshold;
  const [tpl] = await tx.orm.select({ t: scenarios.passThreshold }).from(scenarios)
    .where(and(eq(scenarios.id, row.scenarioId), or(eq(scenarios.orgId, ctx.orgId), isNull(scenarios.orgId))));
  if (!tpl) throw new AppError('INVALID_STATE', 'This scenario run cannot be re-scored: its template was deleted and the run kept no pass threshold');
  return tpl.t;
}

/**
 * Whether the stored outcome is a grade (as opposed to a failure that merely kept some criteria): graded
 * verdicts are, and so is an error exactly when scoring the current decisions gives that same error.
 */
function isGradedOutcome(row: { status: string; errorMessage: string | null; endReason: string | null }, results: CriterionResult[], threshold: number): boolean {
  if (row.status === 'passed' || row.status === 'failed') return true;
  const score = scoreCriteria(results, threshold);
  return score.status === 'error' && decideOutcome({ event: 'graded', score }, row.endReason as EndReason | null).message === row.errorMessage;
}

/**
 * Records a review of one criterion. The reviewed decision becomes the criterion's effective decision and the
 * scenario run is re-scored with the project's scoring; its run's counters follow. Earlier reviews stay in the
 * history. All in one transaction, under the scenario run's row lock, so concurrent reviews serialize.
 */
export async function createReview(deps: Deps, ctx: ReviewerCtx, scenarioRunId: string, input: ReviewBody) {
  const now = new Date(deps.clock.now());
  return deps.db.transaction(async (tx) => {
    const row = await lockScenarioRunForReview(tx, ctx.orgId, scenarioRunId);
    if (!row) throw notFound();
    if (!isFinalScenarioRun(row.status)) {
      throw new AppError('INVALID_STATE', `The scenario run is ${row.status}: only finished scenario runs can be reviewed`, { details: { status: row.status } });
    }
    const results = row.criteriaResults as ReviewedResult[];
    const i = input.criterion_index;
    if (i >= results.length) {
      throw invalidField('criterion_index', results.length === 0
        ? 'This scenario run has no graded criteria to review'
        : `criterion_index must be between 0 and ${results.length - 1}`, i);
    }
    const [key] = await tx.orm.select({ name: apiKeys.name }).from(apiKeys).where(and(eq(apiKeys.id, ctx.keyId), eq(apiKeys.orgId, ctx.orgId)));
    const target = results[i];
    const judgeDecision = target.judge_decision ?? target.decision;
    const [review] = await tx.orm.insert(reviews).values({
      id: uuidv7(), orgId: ctx.orgId, scenarioRunId: row.id, criterionIndex: i, decision: input.decision, note: input.note ?? null,
      judgeDecision, judgeGraded: target.graded_by !== 'check', judgeModel: row.judgeModel, apiKeyId: ctx.keyId, reviewerName: key?.name ?? '', createdAt: now,
    }).returning();
    const view = reviewView(review);
    const firstReview = !results.some((r) => r.review);
    const next: ReviewedResult[] = results.map((r, k) => (k !== i ? r : {
      ...r, decision: input.decision as Decision, points_awarded: pointsFor(input.decision as Decision, r.max_points), judge_decision: judgeDecision, review: view,
    }));

    const threshold = await passThreshold(tx, ctx, row);
    const from = row.status as Rescored['status'];
    let rescored: Rescored = {
      status: from, passed: row.passed, gradeSummary: row.gradeSummary, errorMessage: row.errorMessage, criteriaResults: next,
      fault: row.fault as Fault | null, decidedShare: row.decidedShare,
    };
    if (isGradedOutcome(row, results, threshold)) {
      const score = scoreCriteria(next, threshold);
      const outcome = decideOutcome({ event: 'graded', score }, row.endReason as EndReason | null);
      rescored = {
        status: outcome.status, passed: outcome.status === 'error' ? null : score.passed, gradeSummary: score.grade_summary, errorMessage: outcome.message,
        criteriaResults: next, fault: outcome.fault, decidedShare: score.decided_share,
      };
    }
    const written = await recordReviewOutcome(tx, ctx.orgId, row.id, from, rescored);
    if (!written) throw new AppError('INVALID_STATE', 'The scenario run changed while it was being reviewed: try again');
    await moveRunCounts(tx, row.runId, { status: from, fault: row.fault as Fault | null }, { status: rescored.status, fault: rescored.fault }, firstReview, now);
    return view;
  });
}

/** The review history of a scenario run, oldest first. */
export async function listReviews(deps: Deps, ctx: Ctx, scenarioRunId: string, q: { criterion_index?: number }, p: Page) {
  const [owned] = await deps.db.executeSql('select 1 from scenario_runs where id = $1 and org_id = $2', [scenarioRunId, ctx.orgId]).then((r) => r.rows);
  if (!owned) throw notFound();
  const where = and(eq(reviews.orgId, ctx.orgId), eq(reviews.scenarioRunId, scenarioRunId),
    q.criterion_index === undefined ? undefined : eq(reviews.criterionIndex, q.criterion_index));
  const [rows, [{ n }]] = await Promise.all([
    deps.db.orm.select().from(reviews).where(where).orderBy(asc(reviews.createdAt), asc(reviews.id)).limit(p.limit).offset(p.offset),
    deps.db.orm.select({ n: sql<number>`count(*)::int` }).from(reviews).where(where),
  ]);
  return { reviews: rows.map(reviewView), total: n, ...p };
}
