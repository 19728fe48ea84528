import { Type } from '@sinclair/typebox';
import type { runs } from '../../db/schema.js';
import { RunMetrics } from '../../engine/types.js';
import { Nullable, Timestamp, Uuid } from '../../http/common.js';
import { RUN_STATUSES } from './run-status.js';
import { loadRunStats, type RunStats } from './scenario-aggregates.js';
import type { Orm } from '../../db/client.js';

/** Above this much event-loop lag while a run's conversations were in flight, the run says its latencies may be inflated. */
export const TIMING_WARNING_MS = 50;

export const timingWarning = (ms: number) =>
  `reply latencies may be overstated by up to ${ms} ms: Rehearsal's own event loop ran that late while this run's conversations were in flight (more than ${TIMING_WARNING_MS} ms; lower REHEARSAL_SCENARIO_CONCURRENCY or add workers)`;

export const PercentInterval = Type.Object({ low: Type.Number(), high: Type.Number() }, {
  description: '95 % interval in percent, 2 decimals (rounded outwards)',
});

const RunStatsSchema = Type.Object({
  flaky_count: Type.Integer({ description: 'Scenarios whose graded repetitions both passed and failed' }),
  pass_all_count: Type.Integer({ description: 'Scenarios that passed every repetition (pass^k)' }),
  pass_rate_ci: Nullable(PercentInterval, {
    description: '95 % interval of pass_rate that treats a scenario\'s repetitions as correlated: the Wilson interval on the effective sample size '
      + 'n / (1 + (m − 1)·ICC), m the mean repetitions per scenario and ICC their intra-cluster correlation (one-way ANOVA estimate); null when nothing was graded',
  }),
});
import { RunVerdictSchema, runVerdictFields } from './verdict-fields.js';

export const RunWarnings = Type.Array(Type.String(), {
  description: 'What could make this run\'s verdicts mean less than they seem (no judge model, scripts cut off by max_turns, ' +
    'tool names the agent does not resolve, the demo judge: computed when the run was created; reply latencies whose timing ' +
    `uncertainty exceeded ${TIMING_WARNING_MS} ms: added as conversations finish), [] when none`,
});

export const RunSchema = Type.Object({
  id: Uuid,
  test_run_id: Type.String({ pattern: '^TR-[0-9]+$' }),
  name: Type.String(),
  status: Type.String({ enum: [...RUN_STATUSES] }),
  agent_id: Uuid,
  agent_name: Type.String(),
  pass_rate: Type.Number({ description: '100 × passed / (passed + failed), 2 decimals; 0 when nothing was graded' }),
  passed_count: Type.Integer(),
  failed_count: Type.Integer(),
  error_count: Type.Integer(),
  reviewed_count: Type.Integer({ description: 'Scenario runs with at least one criterion a person reviewed (not reviews, not criteria)' }),
  total_scenarios: Type.Integer(),
  started_at: Timestamp,
  completed_at: Nullable(Timestamp),
  duration_seconds: Nullable(Type.Number()),
  test_suite_id: Nullable(Uuid),
  test_mode: Type.String({ enum: ['demo', 'full'] }),
  max_turns: Type.Integer(),
  created_at: Timestamp,
  error_message: Nullable(Type.String()),
  metrics: Nullable(RunMetrics),
  ...RunVerdictSchema,
  warnings: RunWarnings,
  timing_uncertainty_ms: Nullable(Type.Integer({ minimum: 0 }), {
    description: 'The largest amount (ms) by which Rehearsal\'s own load could have inflated a reply latency of this run: the worst event-loop lag '
      + 'of the thread that timed its replies while its conversations were in flight; null until a conversation has finished',
  }),
  repeats: Type.Integer({ minimum: 1, maximum: 10, description: 'How many times each selected scenario runs; total_scenarios = scenario_count × repeats' }),
  scenario_count: Type.Integer({ description: 'Distinct scenarios in the run' }),
  baseline_run_id: Nullable(Uuid, { description: 'The run this one is compared with by default (GET /runs/{id}/comparison)' }),
  stats: RunStatsSchema,
}, { $id: 'Run' });

type Row = typeof runs.$inferSelect;

export const testRunId = (seq: number) => `TR-${seq}`;

export function passRate(passed: number, failed: number): number {
  const graded = passed + failed;
  return graded === 0 ? 0 : Math.round((10000 * passed) / graded) / 100;
}

export function runView(r: Row, stats: RunStats) {
  return {
    id: r.id,
    test_run_id: testRunId(r.seq),
    name: r.name,
    status: r.status,
    agent_id: r.agentId,
    agent_name: r.agentName,
    pass_rate: passRate(r.passedCount, r.failedCount),
    passed_count: r.passedCount,
    failed_count: r.failedCount,
    error_count: r.errorCount,
    reviewed_count: r.reviewedCount,
    total_scenarios: r.totalScenarios,
    started_at: r.startedAt.toISOString(),
    completed_at: r.completedAt ? r.completedAt.toISOString() : null,
    duration_seconds: r.completedAt ? Math.round(r.completedAt.getTime() - r.startedAt.getTime()) / 1000 : null,
    test_suite_id: r.testSuiteId,
    test_mode: r.testMode,
    max_turns: r.maxTurns,
    created_at: r.createdAt.toISOString(),
    error_message: r.errorMessage,
    metrics: (r.metrics as any) ?? null,
    ...runVerdictFields(r),
    warnings: r.timingUncertaintyMs !== null && r.timingUncertaintyMs > TIMING_WARNING_MS
      ? [...(r.warnings ?? []), timingWarning(r.timingUncertaintyMs)] : r.warnings ?? [],
    timing_uncertainty_ms: r.timingUncertaintyMs,
    repeats: r.repeats,
    scenario_count: r.scenarioCount ?? r.totalScenarios,
    baseline_run_id: r.baselineRunId,
    stats,
  };
}
export type RunView = ReturnType<typeof runView>;

/** Views of runs with their stats, loaded in one query. */
export async function runViews(db: { orm: Orm }, rows: Row[]) {
  const stats = await loadRunStats(db, rows.map((r) => r.id));
  return rows.map((r) => runView(r, stats.get(r.id)!));
}
