import { and, desc, eq, inArray, isNull, or, sql } from 'drizzle-orm';
import { uuidv7 } from 'uuidv7';
import type { Tx } from '../../db/client.js';
import { agents, runs, scenarioRuns, scenarios, testSuites } from '../../db/schema.js';
import type { Ctx, Deps } from '../../deps.js';
import { AppError, invalidField, referencedNotFound } from '../../http/errors.js';
import { isUuid, type Page } from '../../http/common.js';
import { ACTIVE_RUN_STATUSES, RUN_STATUSES } from './run-status.js';
import { faultFilter, verdictFields } from './verdict-fields.js';
import { cancelRunInTx } from './run-store/finish.js';
import { runViews, testRunId } from './runs.view.js';
import { scenarioRunOrder } from './scenario-aggregates.js';
import { scenarioVersion } from './scenario-spec.js';
import { runWarnings } from './run-warnings.js';
import { agentTools } from '../agents/agents.service.js';
import { normalizeCriterion, type CriterionInput } from '../../engine/types.js';
import type { CreateRunInput, RunListQuery, RunResultsQuery } from './runs.schemas.js';

export const DEMO_SCENARIOS = 20;
const INSERT_BATCH = 1000;

const runNotFound = () => new AppError('RUN_NOT_FOUND', 'Run not found');

/** Resolves a run reference: a UUID or the human id TR-<digits>. Anything else names no run. */
function runRef(ref: string) {
  if (isUuid(ref)) return eq(runs.id, ref.toLowerCase());
  const m = /^TR-(\d{1,15})$/i.exec(ref);
  if (m) return eq(runs.seq, Number(m[1]));
  return null;
}

export async function findRunRow(deps: Deps, ctx: Ctx, ref: string, tx?: Tx) {
  const cond = runRef(ref);
  if (!cond) return null;
  const [row] = await (tx?.orm ?? deps.db.orm).select().from(runs).where(and(eq(runs.orgId, ctx.orgId), cond));
  return row ?? null;
}

/**
 * Input checks that need no database; the same for a run and a dry run. test_mode and repeats are the
 * schema's alone: the other caller, a schedule's firing, passes fields its own schema checked with the same rules.
 */
function checkRunInput(input: CreateRunInput) {
  if (!isUuid(input.agent_id)) throw invalidField('agent_id', 'agent_id must be a UUID', input.agent_id);
  if (input.test_suite_id !== undefined && !isUuid(input.test_suite_id)) throw invalidField('test_suite_id', 'test_suite_id must be a UUID', input.test_suite_id);
  if (input.name !== undefined && !input.name.trim()) throw invalidField('name', 'name must not be blank');
}

/**
 * Everything POST /runs checks against the database, and the scenarios it would run, inside the caller's
 * transaction (the organization row locked, so the concurrent-run limit holds). A dry run uses it as is.
 */
export async function resolveRun(deps: Deps, tx: Tx, ctx: Ctx, input: CreateRunInput) {
  checkRunInput(input);
  const mode = input.test_mode ?? 'demo';
  const maxTurns = input.max_turns ?? 4;
  await tx.executeSql('select id from organizations where id = $1 for update', [ctx.orgId]);
  const [agent] = await tx.orm.select().from(agents)
    .where(and(eq(agents.orgId, ctx.orgId), eq(agents.id, input.agent_id.toLowerCase()), isNull(agents.deletedAt)));
  if (!agent) throw referencedNotFound('AGENT_NOT_FOUND', 'Agent not found', 'agent_id');
  const suiteCond = input.test_suite_id ? eq(testSuites.id, input.test_suite_id.toLowerCase()) : eq(testSuites.isDefault, true);
  const [suite] = await tx.orm.select().from(testSuites).where(and(eq(testSuites.orgId, ctx.orgId), suiteCond)).limit(1);
  if (!suite) {
    throw referencedNotFound('NOT_FOUND', input.test_suite_id ? 'Test suite not found' : 'This organization has no default suite: pass test_suite_id', 'test_suite_id');
  }
  if (!agent.isActive) {
    throw new AppError('INVALID_STATE', 'The agent is inactive: set is_active to true with PUT /api/v1/agents/{id} to run it', { details: { field: 'agent_id' } });
  }
  const [{ n }] = await tx.orm.select({ n: sql<number>`count(*)::int` }).from(runs)
    .where(and(eq(runs.orgId, ctx.orgId), inArray(runs.status, [...ACTIVE_RUN_STATUSES])));
  if (n >= deps.config.maxConcurrentRuns) {
    throw new AppError('RATE_LIMITED', `Too many concurrent runs: at most ${deps.config.maxConcurrentRuns} may be in progress per organization`, {
      headers: { 'retry-after': '10' }, details: { max_concurrent_runs: deps.config.maxConcurrentRuns },
    });
  }

  let ids = suite.scenarioIds;
  if (mode === 'demo') ids = ids.slice(0, DEMO_SCENARIOS);
  if (input.max_scenarios !== undefined) ids = ids.slice(0, input.max_scenarios);
  const found = ids.length === 0 ? [] : await tx.orm.select().from(scenarios)
    .where(and(inArray(scenarios.id, ids), or(eq(scenarios.orgId, ctx.orgId), isNull(scenarios.orgId))));
  const byId = new Map(found.map((s) => [s.id, s]));
  const names = new Map(found.map((s) => [s.id, s.name]));
  const thresholds = new Map(found.map((s) => [s.id, s.passThreshold]));
  const selected = ids.filter((id) => byId.has(id));
  if (selected.length === 0) throw new AppError('INVALID_STATE', 'The test suite has no scenarios to run', { details: { field: 'test_suite_id' } });
  const warnings = runWarnings({
    scenarios: selected.map((id) => byId.get(id)!).map((s) => ({
      script: s.script, criteria: (s.criteria as CriterionInput[]).map(normalizeCriterion), max_turns: s.maxTurns, pass_threshold: s.passThreshold,
    })),
    maxTurns,
    hasJudge: Boolean(deps.config.llm.baseUrl && deps.config.llm.judgeModel),
    demoJudge: deps.config.llm.demoJudge === true,
    tools: agentTools(agent),
  });
  const baselineRunId = input.baseline === undefined ? null : await resolveBaseline(deps, ctx, tx, input.baseline, agent.id, suite.id);
  const versions = new Map(found.map((s) => [s.id, scenarioVersion(s)]));
  return { agent, suite, mode, maxTurns, repeats: input.repeats ?? 1, selected, names, thresholds, versions, warnings, baselineRunId };
}

/**
 * Validates, selects the scenarios, creates the run and its pending scenario runs and enqueues the work in
 * the caller's transaction (a schedule's firing claims its minute in the same one). The organization row is
 * locked first, so the concurrent-run limit holds under parallel requests. The caller calls
 * `deps.hooks.afterRunCreated` once the transaction has committed.
 */
export async function createRunInTx(deps: Deps, tx: Tx, ctx: Ctx, input: CreateRunInput) {
  const now = new Date(deps.clock.now());
  const { agent, suite, mode, maxTurns, repeats, selected, names, thresholds, versions, warnings, baselineRunId } = await resolveRun(deps, tx, ctx, input);
  const runId = uuidv7();
  const [run] = await tx.orm.insert(runs).values({
    id: runId, orgId: ctx.orgId, name: input.name?.trim() ?? `${suite.name} · ${agent.name}`, status: 'pending',
    agentId: agent.id, agentName: agent.name, testSuiteId: suite.id, testMode: mode, maxTurns,
    totalScenarios: selected.length * repeats, repeats, scenarioCount: selected.length, baselineRunId,
    warnings, createdAt: now, startedAt: now, updatedAt: now,
  }).returning();
  // independent repetitions: each is its own scenario run, with a fresh conversation
  const rows = selected.flatMap((scenarioId, position) => Array.from({ length: repeats }, (_, r) => ({
    id: uuidv7(), runId, orgId: ctx.orgId, scenarioId, scenarioName: names.get(scenarioId)!, passThreshold: thresholds.get(scenarioId)!, position, repetition: r + 1,
    scenarioVersion: versions.get(scenarioId)!, status: 'pending', createdAt: now,
  })));
  for (let i = 0; i < rows.length; i += INSERT_BATCH) await tx.orm.insert(scenarioRuns).values(rows.slice(i, i + INSERT_BATCH));
  await deps.hooks.enqueueRun(tx, runId);
  return run;
}

/** POST /runs: the run created in its own transaction. */
export async function createRun(deps: Deps, ctx: Ctx, input: CreateRunInput) {
  checkRunInput(input);
  const created = await deps.db.transaction((tx) => createRunInTx(deps, tx, ctx, input));
  deps.hooks.afterRunCreated(created.id);
  return createdRunView(created);
}

export const createdRunView = (created: typeof runs.$inferSelect) => ({
  id: created.id, test_run_id: testRunId(created.seq), status: created.status, total_scenarios: created.totalScenarios,
  poll_url: `/api/v1/runs/${created.id}`, warnings: created.warnings,
});

/**
 * `"previous"`: the newest run of the same agent and suite that is completed now (failed and canceled runs are
 * never a baseline; none → no baseline). Otherwise a run reference of this organization, or 400 RUN_NOT_FOUND.
 */
async function resolveBaseline(deps: Deps, ctx: Ctx, tx: Tx, ref: string, agentId: string, suiteId: string): Promise<string | null> {
  if (ref === 'previous') {
    const [prev] = await tx.orm.select({ id: runs.id }).from(runs)
      .where(and(eq(runs.orgId, ctx.orgId), eq(runs.agentId, agentId), eq(runs.testSuiteId, suiteId), eq(runs.status, 'completed')))
      .orderBy(desc(runs.createdAt), desc(runs.seq)).limit(1);
    return prev?.id ?? null;
  }
  const row = await findRunRow(deps, ctx, ref, tx);
  if (!row) throw referencedNotFound('RUN_NOT_FOUND', 'Baseline run not found', 'baseline');
  return row.id;
}

export async function listRuns(deps: Deps, ctx: Ctx, q: RunListQuery, p: Page) {
  if (q.status !== undefined && !(RUN_STATUSES as readonly string[]).includes(q.status)) {
    throw invalidField('status', `status must be one of ${RUN_STATUSES.join(', ')}`, q.status);
  }
  for (const f of ['agent_id', 'test_suite_id'] as const) {
    if (q[f] !== undefined && !isUuid(q[f])) throw invalidField(f, `${f} must be a UUID`, q[f]);
  }
  const where = and(
    eq(runs.orgId, ctx.orgId),
    q.status ? eq(runs.status, q.status) : undefined,
    q.agent_id ? eq(runs.agentId, q.agent_id.toLowerCase()) : undefined,
    q.test_suite_id ? eq(runs.testSuiteId, q.test_suite_id.toLowerCase()) : undefined,
  );
  const [rows, [{ n }]] = await Promise.all([
    deps.db.orm.select().from(runs).where(where).orderBy(desc(runs.createdAt), desc(runs.id)).limit(p.limit).offset(p.offset),
    deps.db.orm.select({ n: sql<number>`count(*)::int` }).from(runs).where(where),
  ]);
  return { runs: await runViews(deps.db, rows), total: n, ...p };
}

export async function getRun(deps: Deps, ctx: Ctx, ref: string) {
  const row = await findRunRow(deps, ctx, ref);
  if (!row) throw runNotFound();
  return (await runViews(deps.db, [row]))[0];
}

// A Map, not an object literal: a query value such as "constructor" must not find an inherited property.
const RESULT_FILTERS = new Map<string, string[]>([
  ['passed', ['passed']], ['failed', ['failed']], ['error', ['error']], ['pending', ['pending', 'running', 'grading']],
]);

export async function getRunResults(deps: Deps, ctx: Ctx, ref: string, q: RunResultsQuery, p: Page) {
  if (q.status !== undefined && !RESULT_FILTERS.has(q.status)) {
    throw invalidField('status', 'status must be one of passed, failed, error, pending', q.status);
  }
  const byFault = faultFilter(q.fault);
  const row = await findRunRow(deps, ctx, ref);
  if (!row) throw runNotFound();
  const where = and(eq(scenarioRuns.runId, row.id), q.status ? inArray(scenarioRuns.status, RESULT_FILTERS.get(q.status) ?? []) : undefined, byFault);
  const [items, [{ n }]] = await Promise.all([
    deps.db.orm.select({
      id: scenarioRuns.id, scenarioId: scenarioRuns.scenarioId, scenarioName: scenarioRuns.scenarioName, repetition: scenarioRuns.repetition, status: scenarioRuns.status,
      passed: scenarioRuns.passed, gradeSummary: scenarioRuns.gradeSummary, errorMessage: scenarioRuns.errorMessage,
      durationMs: scenarioRuns.durationMs, metrics: scenarioRuns.metrics,
      fault: scenarioRuns.fault, endReason: scenarioRuns.endReason, agentTurns: scenarioRuns.agentTurns, decidedShare: scenarioRuns.decidedShare,
    }).from(scenarioRuns).where(where).orderBy(...scenarioRunOrder).limit(p.limit).offset(p.offset),
    deps.db.orm.select({ n: sql<number>`count(*)::int` }).from(scenarioRuns).where(where),
  ]);
  return {
    ...(await runViews(deps.db, [row]))[0],
    results: items.map((s) => ({
      id: s.id, scenario_id: s.scenarioId, scenario_name: s.scenarioName, repetition: s.repetition, status: s.status,
      // the spec types this one as boolean: false until graded as a pass
      passed: s.passed === true, grade_summary: s.gradeSummary, error_message: s.errorMessage, duration_ms: s.durationMs,
      metrics: (s.metrics as any) ?? null, ...verdictFields(s),
    })),
    results_total: n, results_limit: p.limit, results_offset: p.offset,
  };
}

export async function cancelRun(deps: Deps, ctx: Ctx, ref: string) {
  const result = await deps.db.transaction(async (tx) => {
    const row = await findRunRow(deps, ctx, ref, tx);
    if (!row) throw runNotFound();
    if (row.status === 'canceled') return { run: row, changed: false };
    const canceled = await cancelRunInTx(deps, tx, row.id, null);
    if (!canceled) {
      const [now] = await tx.orm.select().from(runs).where(eq(runs.id, row.id));
      if (now.status === 'canceled') return { run: now, changed: false };
      throw new AppError('INVALID_STATE', `The run is already ${now.status} and cannot be canceled`, { details: { status: now.status } });
    }
    return { run: canceled, changed: true };
  });
  if (result.changed) deps.hooks.afterRunCanceled(result.run.id);
  return (await runViews(deps.db, [result.run]))[0];
}

export async function cancelRunsOfAgent(deps: Deps, orgId: string, agentId: string) {
  const active = await deps.db.orm.select({ id: runs.id }).from(runs)
    .where(and(eq(runs.orgId, orgId), eq(runs.agentId, agentId), inArray(runs.status, [...ACTIVE_RUN_STATUSES])));
  for (const { id } of active) {
    const done = await deps.db.transaction((tx) => cancelRunInTx(deps, tx, id, 'agent deleted'));
    if (done) deps.hooks.afterRunCanceled(id);
  }
}
