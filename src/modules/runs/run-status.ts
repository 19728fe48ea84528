/**
 * The run and scenario-run state machines, as tables. Every state change in the code goes through
 * a conditional update `where status in (allowed predecessors)`, so races lose cleanly.
 */
export const RUN_STATUSES = ['pending', 'running', 'grading', 'completed', 'failed', 'canceled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export const FINAL_RUN_STATUSES: readonly RunStatus[] = ['completed', 'failed', 'canceled'];
export const ACTIVE_RUN_STATUSES: readonly RunStatus[] = ['pending', 'running', 'grading'];

export const RUN_TRANSITIONS: Record<RunStatus, readonly RunStatus[]> = {
  pending: ['running', 'failed', 'canceled'],
  running: ['grading', 'completed', 'failed', 'canceled'],
  // a conversation retried after a worker crash takes the run back to running
  grading: ['running', 'completed', 'failed', 'canceled'],
  completed: [],
  failed: [],
  canceled: [],
};

/** The states a run may be in for a move to `to` to be allowed. */
export function runPredecessors(to: RunStatus): RunStatus[] {
  return RUN_STATUSES.filter((s) => RUN_TRANSITIONS[s].includes(to));
}

export const SCENARIO_RUN_STATUSES = ['pending', 'running', 'grading', 'passed', 'failed', 'error'] as const;
export type ScenarioRunStatus = (typeof SCENARIO_RUN_STATUSES)[number];
export const FINAL_SCENARIO_RUN_STATUSES: readonly ScenarioRunStatus[] = ['passed', 'failed', 'error'];

export const SCENARIO_RUN_TRANSITIONS: Record<ScenarioRunStatus, readonly ScenarioRunStatus[]> = {
  pending: ['running', 'error'],
  // running → running: a retry after a crash restarts the conversation (attempts + 1)
  running: ['running', 'grading', 'passed', 'failed', 'error'],
  grading: ['running', 'passed', 'failed', 'error'],
  passed: [],
  failed: [],
  error: [],
};

export function scenarioRunPredecessors(to: ScenarioRunStatus): ScenarioRunStatus[] {
  return SCENARIO_RUN_STATUSES.filter((s) => SCENARIO_RUN_TRANSITIONS[s].includes(to));
}

export const isFinalRun = (s: string) => (FINAL_RUN_STATUSES as readonly string[]).includes(s);
export const isFinalScenarioRun = (s: string) => (FINAL_SCENARIO_RUN_STATUSES as readonly string[]).includes(s);

/** The states a move to every one of `tos` may start from. */
export function scenarioRunPredecessorsOfAll(tos: readonly ScenarioRunStatus[]): ScenarioRunStatus[] {
  return SCENARIO_RUN_STATUSES.filter((s) => tos.every((to) => SCENARIO_RUN_TRANSITIONS[s].includes(to)));
}

/** The states nothing moves into: where a row starts. */
export const INITIAL_RUN_STATUSES: readonly RunStatus[] = RUN_STATUSES.filter((s) => runPredecessors(s).length === 0);
export const INITIAL_SCENARIO_RUN_STATUSES: readonly ScenarioRunStatus[] = SCENARIO_RUN_STATUSES.filter((s) => scenarioRunPredecessors(s).length === 0);
