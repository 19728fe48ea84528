import { and, asc, eq, inArray, or, isNull, sql } from 'drizzle-orm';
import type { Orm } from '../../db/client.js';
import { scenarioRuns, scenarios } from '../../db/schema.js';
import type { Ctx, Deps } from '../../deps.js';
import { AppError } from '../../lib/errors.js';
import type { Page } from '../../http/common.js';
import { clusteredWilson, toPercent, wilsonPercent, type Interval } from '../../engine/stats.js';

/** One repetition of a scenario in a run, as aggregation needs it. */
export interface Repetition {
  runId: string;
  scenarioId: string;
  scenarioName: string;
  position: number;
  repetition: number;
  status: string;
  scenarioVersion: string | null;
  /** Who caused an error (agent, tester, judge, provider, internal, canceled); null while unfinished or passed. */
  fault: string | null;
  criteriaResults: { criterion: string; decision: string }[];
  testerModel: string | null;
  judgeModel: string | null;
  judgePromptVersion: string | null;
}

export interface ScenarioGroup { scenarioId: string; scenarioName: string; reps: Repetition[] }

export const FINAL_SR = new Set(['passed', 'failed', 'error']);
export const DECISIONS = ['MET', 'PARTIAL', 'NOT_MET', 'UNSURE'] as const;

/** Repetitions grouped per scenario, in suite order; each group's repetitions in order. */
export function groupByScenario(reps: Repetition[]): ScenarioGroup[] {
  const sorted = [...reps].sort((a, b) => a.position - b.position || a.repetition - b.repetition);
  const groups = new Map<string, ScenarioGroup>();
  for (const r of sorted) {
    let g = groups.get(r.scenarioId);
    if (!g) groups.set(r.scenarioId, (g = { scenarioId: r.scenarioId, scenarioName: r.scenarioName, reps: [] }));
    g.reps.push(r);
  }
  return [...groups.values()];
}

export function countStatuses(reps: Repetition[]) {
  const c = { attempts: reps.length, passed: 0, failed: 0, error: 0, pending: 0 };
  for (const r of reps) {
    if (r.status === 'passed') c.passed++;
    else if (r.status === 'failed') c.failed++;
    else if (r.status === 'error') c.error++;
    else c.pending++;
  }
  return c;
}

export type ScenarioVerdict = 'pending' | 'error' | 'pass' | 'fail' | 'flaky';

export function scenarioVerdict(c: ReturnType<typeof countStatuses>): ScenarioVerdict {
  if (c.pending > 0) return 'pending';
  if (c.passed + c.failed === 0) return 'error';
  if (c.failed === 0) return 'pass';
  if (c.passed === 0) return 'fail';
  return 'flaky';
}

const round2 = (x: number) => Math.round(x * 100) / 100;

/** One scenario's aggregate over its repetitions; `criteria` names the template's criteria in order. */
export function aggregateScenario(g: ScenarioGroup, criteria: string[]) {
  const c = countStatuses(g.reps);
  const graded = c.passed + c.failed;
  const gradedReps = g.reps.filter((r) => r.status === 'passed' || r.status === 'failed');
  const n = Math.max(criteria.length, ...gradedReps.map((r) => r.criteriaResults.length));
  return {
    scenario_id: g.scenarioId, scenario_name: g.scenarioName, ...c,
    pass_rate: graded === 0 ? null : round2((100 * c.passed) / graded),
    pass_all: c.attempts > 0 && c.passed === c.attempts,
    pass_rate_ci: wilsonPercent(c.passed, graded),
    verdict: scenarioVerdict(c),
    criteria: Array.from({ length: n }, (_, i) => {
      const counts = { met: 0, partial: 0, not_met: 0, unsure: 0 };
      for (const r of gradedReps) {
        const d = r.criteriaResults[i]?.decision;
        if (d === 'MET') counts.met++;
        else if (d === 'PARTIAL') counts.partial++;
        else if (d === 'NOT_MET') counts.not_met++;
        else if (d === 'UNSURE') counts.unsure++;
      }
      const text = gradedReps.find((r) => r.criteriaResults[i])?.criteriaResults[i].criterion ?? criteria[i] ?? '';
      return { criterion_index: i, criterion: text, ...counts };
    }),
  };
}
export type ScenarioAggregate = ReturnType<typeof aggregateScenario>;

export interface RunStats { flaky_count: number; pass_all_count: number; pass_rate_ci: Interval | null }

/** The run's stats: its pass rate's interval treats a scenario's repetitions as one correlated cluster. */
export function runStats(groups: ScenarioGroup[]): RunStats {
  let flaky = 0;
  let passAll = 0;
  const clusters = groups.map((g) => {
    const c = countStatuses(g.reps);
    if (scenarioVerdict(c) === 'flaky') flaky++;
    if (c.attempts > 0 && c.passed === c.attempts) passAll++;
    return { passed: c.passed, graded: c.passed + c.failed };
  });
  const ci = clusteredWilson(clusters);
  return { flaky_count: flaky, pass_all_count: passAll, pass_rate_ci: ci && toPercent(ci) };
}

type Db = { orm: Orm };


/** Repetitions of the given runs; criteria results only when asked (they are the heavy part). */
export async function loadRepetitions(db: Db, runIds: string[], withCriteria = false): Promise<Repetition[]> {
  if (runIds.length === 0) return [];
  const rows = await db.orm.select({
    runId: scenarioRuns.runId, scenarioId: scenarioRuns.scenarioId, scenarioName: scenarioRuns.scenarioName,
    position: scenarioRuns.position, repetition: scenarioRuns.repetition, status: scenarioRuns.status,
    scenarioVersion: scenarioRuns.scenarioVersion, testerModel: scenarioRuns.testerModel, judgeModel: scenarioRuns.judgeModel,
    judgePromptVersion: scenarioRuns.judgePromptVersion, fault: scenarioRuns.fault,
    criteriaResults: withCriteria ? scenarioRuns.criteriaResults : sql<unknown[]>`'[]'::jsonb`,
  }).from(scenarioRuns).where(inArray(scenarioRuns.runId, runIds));
  return rows.map((r) => ({ ...r, fault: r.fault ?? null, criteriaResults: (r.criteriaResults ?? []) as Repetition['criteriaResults'] }));
}

/** Stats of each run in `runIds` (one query for a page of runs). */
export async function loadRunStats(db: Db, runIds: string[]): Promise<Map<string, RunStats>> {
  const byRun = new Map<string, Repetition[]>(runIds.map((id) => [id, []]));
  for (const r of await loadRepetitions(db, runIds)) byRun.get(r.runId)?.push(r);
  return new Map([...byRun].map(([id, reps]) => [id, runStats(groupByScenario(reps))]));
}

/** The template's criteria texts per scenario (built-in or this organization's), in template order. */
export async function templateCriteria(db: Db, orgId: string, scenarioIds: string[]): Promise<Map<string, string[]>> {
  if (scenarioIds.length === 0) return new Map();
  const rows = await db.orm.select({ id: scenarios.id, criteria: scenarios.criteria }).from(scenarios)
    .where(and(inArray(scenarios.id, scenarioIds), or(eq(scenarios.orgId, orgId), isNull(scenarios.orgId))));
  return new Map(rows.map((r) => [r.id, (r.criteria as { criterion: string }[]).map((c) => c.criterion)]));
}

/** GET /runs/{id}/scenarios: one aggregate per scenario, suite order. */
export async function listRunScenarios(deps: Deps, ctx: Ctx, runId: string | null, p: Page) {
  if (!runId) throw new AppError('RUN_NOT_FOUND', 'Run not found');
  const groups = groupByScenario(await loadRepetitions(deps.db, [runId], true));
  const pageGroups = groups.slice(p.offset, p.offset + p.limit);
  const texts = await templateCriteria(deps.db, ctx.orgId, pageGroups.map((g) => g.scenarioId));
  return {
    scenarios: pageGroups.map((g) => aggregateScenario(g, texts.get(g.scenarioId) ?? [])),
    total: groups.length, ...p,
  };
}

export const scenarioRunOrder = [asc(scenarioRuns.position), asc(scenarioRuns.repetition), asc(scenarioRuns.id)];
