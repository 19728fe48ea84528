import {
  ACTIVE_RUN_STATUSES, FINAL_RUN_STATUSES, FINAL_SCENARIO_RUN_STATUSES, INITIAL_RUN_STATUSES, INITIAL_SCENARIO_RUN_STATUSES,
  runPredecessors, scenarioRunPredecessors, scenarioRunPredecessorsOfAll, type ScenarioRunStatus,
} from '../run-status.js';

/**
 * The `where status in (…)` of every statement of the run store, read from the state tables in run-status.ts:
 * a change to a table changes the statements with it.
 */

/** Not started yet: pending, never claimed. */
export const NOT_STARTED = INITIAL_SCENARIO_RUN_STATUSES;
/** In a worker's hands, from its claim until its result is recorded: the states every final state may follow. */
export const HELD = scenarioRunPredecessorsOfAll(FINAL_SCENARIO_RUN_STATUSES);
/** A claim takes a scenario run that has not started, or a held one whose worker's lease ran out. */
export const CLAIMABLE = scenarioRunPredecessors('running');
export const TO_GRADING = scenarioRunPredecessors('grading');
/** The conversation is not over yet: states before grading. */
export const CONVERSATION_NOT_OVER: readonly ScenarioRunStatus[] = [...NOT_STARTED, ...TO_GRADING];
/** Failing a run fast ends every scenario run that is not final. */
export const TO_ERROR = scenarioRunPredecessors('error');

export const RUN_ACTIVE = ACTIVE_RUN_STATUSES;
export const RUN_FINAL = FINAL_RUN_STATUSES;
/** A claim starts a run that has not started; a run already grading stays so while a retaken conversation runs. */
export const RUN_STARTS_FROM = runPredecessors('running').filter((s) => INITIAL_RUN_STATUSES.includes(s));
export const RUN_TO_GRADING = runPredecessors('grading');
export const RUN_TO_CANCELED = runPredecessors('canceled');

/** A status list as SQL literals, for statements written as text (the values are our own constants). */
export const sqlList = (statuses: readonly string[]) => statuses.map((s) => `'${s}'`).join(', ');
