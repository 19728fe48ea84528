import { and, eq, inArray, sql } from 'drizzle-orm';
import { scenarioRuns } from '../../db/schema.js';
import type { Ctx, Deps } from '../../deps.js';
import { AppError, invalidField, missingField } from '../../lib/errors.js';
import { isUuid, iso, type Page } from '../../http/common.js';
import { findRunRow } from '../runs/runs.service.js';
import { scenarioRunOrder } from '../runs/scenario-aggregates.js';
import { faultFilter, verdictFields } from '../runs/verdict-fields.js';

type Row = typeof scenarioRuns.$inferSelect;

// The list speaks the spec's coarser vocabulary: graded = "completed" with its passed boolean.
// A Map, not an object literal: a query value such as "constructor" must not find an inherited property.
const LIST_FILTERS = new Map<string, string[]>([
  ['pending', ['pending']], ['running', ['running', 'grading']], ['completed', ['passed', 'failed']], ['failed', ['failed']], ['error', ['error']],
]);
const listStatus = (s: string) => (s === 'passed' || s === 'failed' ? 'completed' : s === 'grading' ? 'running' : s);
const gradedPassed = (r: Row) => (r.status === 'passed' ? true : r.status === 'failed' ? false : null);

function listItem(r: Row) {
  return {
    id: r.id, test_run_id: r.runId, scenario_id: r.scenarioId, scenario_name: r.scenarioName, repetition: r.repetition, status: listStatus(r.status),
    passed: gradedPassed(r), grade_summary: r.gradeSummary, duration_ms: r.durationMs, error_message: r.errorMessage,
    created_at: r.createdAt.toISOString(), completed_at: iso(r.completedAt), ...verdictFields(r),
  };
}

// The judge's (or check's) own decision, and the effective review; unreviewed criteria have none.
const withReview = (c: any) => ({ ...c, judge_decision: c.judge_decision ?? c.decision, review: c.review ?? null });

export function scenarioRunView(r: Row) {
  return {
    id: r.id, test_run_id: r.runId, scenario_id: r.scenarioId, scenario_name: r.scenarioName, repetition: r.repetition,
    scenario_version: r.scenarioVersion, status: r.status,
    passed: gradedPassed(r), grade_summary: r.gradeSummary, criteria_results: (r.criteriaResults as any[]).map(withReview), transcript: r.transcript as any[],
    error_message: r.errorMessage, duration_ms: r.durationMs, created_at: r.createdAt.toISOString(), completed_at: iso(r.completedAt),
    started_at: iso(r.startedAt), metrics: (r.metrics as any) ?? null, tester_model: r.testerModel, judge_model: r.judgeModel,
    judge_prompt_version: r.judgePromptVersion,
    attempts: r.attempts, attempt_history: r.attemptHistory as any[], ...verdictFields(r),
  };
}

export async function listScenarioRuns(deps: Deps, ctx: Ctx, q: { test_run_id?: string; status?: string; passed?: boolean; fault?: string }, p: Page) {
  if (q.test_run_id === undefined) throw missingField('test_run_id');
  if (!isUuid(q.test_run_id) && !/^TR-\d{1,15}$/i.test(q.test_run_id)) {
    throw invalidField('test_run_id', 'test_run_id must be a run UUID or TR-<digits>', q.test_run_id);
  }
  if (q.status !== undefined && !LIST_FILTERS.has(q.status)) {
    throw invalidField('status', 'status must be one of pending, running, completed, failed, error', q.status);
  }
  const byFault = faultFilter(q.fault);
  const run = await findRunRow(deps, ctx, q.test_run_id);
  if (!run) throw new AppError('NOT_FOUND', 'Test run not found');
  const where = and(
    eq(scenarioRuns.runId, run.id),
    q.status ? inArray(scenarioRuns.status, LIST_FILTERS.get(q.status) ?? []) : undefined,
    q.passed === undefined ? undefined : eq(scenarioRuns.status, q.passed ? 'passed' : 'failed'),
    byFault,
  );
  const [rows, [{ n }]] = await Promise.all([
    deps.db.orm.select().from(scenarioRuns).where(where).orderBy(...scenarioRunOrder).limit(p.limit).offset(p.offset),
    deps.db.orm.select({ n: sql<number>`count(*)::int` }).from(scenarioRuns).where(where),
  ]);
  return { scenario_runs: rows.map(listItem), total: n, ...p };
}

export async function getScenarioRun(deps: Deps, ctx: Ctx, id: string) {
  const [row] = await deps.db.orm.select().from(scenarioRuns).where(and(eq(scenarioRuns.orgId, ctx.orgId), eq(scenarioRuns.id, id)));
  if (!row) throw new AppError('SCENARIO_RUN_NOT_FOUND', 'Scenario run not found');
  return scenarioRunView(row);
}
