import { Type } from '@sinclair/typebox';
import type { runs } from '../../db/schema.js';
import { RunMetrics } from '../../engine/types.js';
import { Nullable, Timestamp, Uuid } from '../../http/common.js';
import { RUN_STATUSES } from './run-status.js';

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
}, { $id: 'Run' });

type Row = typeof runs.$inferSelect;

export const testRunId = (seq: number) => `TR-${seq}`;

export function passRate(passed: number, failed: number): number {
  const graded = passed + failed;
  return graded === 0 ? 0 : Math.round((10000 * passed) / graded) / 100;
}

export function runView(r: Row) {
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
  };
}
export type RunView = ReturnType<typeof runView>;
