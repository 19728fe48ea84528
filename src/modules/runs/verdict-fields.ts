import { Type } from '@sinclair/typebox';
import { eq } from 'drizzle-orm';
import { type runs, scenarioRuns } from '../../db/schema.js';
import type { Fault } from '../../engine/outcome.js';
import { invalidField } from '../../http/errors.js';
import { Nullable, Timestamp } from '../../http/common.js';

/** Who a scenario run's result is owed to; `agent` is the only fault that speaks about the agent under test. */
export const FAULTS: readonly Fault[] = ['agent', 'tester', 'judge', 'provider', 'internal', 'canceled'];
export const END_REASONS = ['tester_ended', 'max_turns', 'agent_ended', 'timeout', 'canceled', 'error'] as const;

export const FaultField = Nullable(Type.String({
  enum: [...FAULTS],
  description: 'null while unfinished or when passed; agent: failed on decided criteria or errored by the agent\'s own behaviour; '
    + 'tester, judge, provider, internal: not the agent\'s doing (attempted again automatically); canceled',
}));

/** The fault and how the conversation ended: on scenario-run detail, list elements and results elements. */
export const VerdictFields = {
  fault: FaultField,
  end_reason: Nullable(Type.String({ enum: [...END_REASONS], description: 'How the conversation ended; null until it is over' })),
  agent_turns: Nullable(Type.Integer({ description: 'Assistant entries with content or a tool call; null until the conversation is over' })),
  decided_share: Nullable(Type.Number({ description: 'Σ max_points of decided criteria / Σ max_points (2 decimals); null when not graded' })),
};

export const AttemptEntry = Type.Object({
  attempt: Type.Integer({ minimum: 1 }), fault: Type.String({ enum: [...FAULTS] }), error_message: Nullable(Type.String()),
  started_at: Nullable(Timestamp), ended_at: Timestamp,
});

type SrRow = Pick<typeof scenarioRuns.$inferSelect, 'fault' | 'endReason' | 'agentTurns' | 'decidedShare'>;
export const verdictFields = (r: SrRow) => ({
  fault: r.fault as Fault | null, end_reason: r.endReason, agent_turns: r.agentTurns, decided_share: r.decidedShare,
});

/** The `fault` filter of results and scenario-run lists. */
export function faultFilter(fault: string | undefined) {
  if (fault === undefined) return undefined;
  if (!(FAULTS as readonly string[]).includes(fault)) throw invalidField('fault', `fault must be one of ${FAULTS.join(', ')}`, fault);
  return eq(scenarioRuns.fault, fault);
}

const pct = (num: number, den: number) => (den === 0 ? null : Math.round((10000 * num) / den) / 100);

type RunRow = Pick<typeof runs.$inferSelect, 'passedCount' | 'failedCount' | 'totalScenarios' | 'retriedCount'
  | 'faultAgent' | 'faultTester' | 'faultJudge' | 'faultProvider' | 'faultInternal' | 'faultCanceled'>;

/** A run's faults and the figures of what the agent caused. */
export function runVerdictFields(r: RunRow) {
  // failed scenario runs are fault agent too: the rest of fault agent are errors of the agent's own making
  const agentErrors = Math.max(0, r.faultAgent - r.failedCount);
  const covered = r.passedCount + r.failedCount + agentErrors;
  return {
    faults: { agent: r.faultAgent, tester: r.faultTester, judge: r.faultJudge, provider: r.faultProvider, internal: r.faultInternal, canceled: r.faultCanceled },
    retried_count: r.retriedCount,
    agent_error_count: agentErrors,
    strict_pass_rate: pct(r.passedCount, covered),
    coverage: pct(covered, r.totalScenarios) ?? 0,
  };
}

const Count = Type.Integer({ minimum: 0 });
export const RunVerdictSchema = {
  faults: Type.Object({ agent: Count, tester: Count, judge: Count, provider: Count, internal: Count, canceled: Count }, {
    description: 'Final scenario runs by fault',
  }),
  retried_count: Type.Integer({ description: 'Scenario runs with at least one attempt that did not count' }),
  agent_error_count: Type.Integer({ description: 'Final scenario runs in error with fault agent (timeouts, hang-ups, no reply, unusable answers)' }),
  strict_pass_rate: Nullable(Type.Number({ description: '100 × passed / (passed + failed + agent_error_count), 2 decimals; null when 0/0' })),
  coverage: Type.Number({ description: '100 × (passed + failed + agent_error_count) / total_scenarios, 2 decimals' }),
};
