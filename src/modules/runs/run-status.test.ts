import { describe, expect, it } from 'vitest';
import {
  FINAL_RUN_STATUSES, FINAL_SCENARIO_RUN_STATUSES, RUN_STATUSES, RUN_TRANSITIONS, runPredecessors,
  SCENARIO_RUN_STATUSES, SCENARIO_RUN_TRANSITIONS, scenarioRunPredecessors,
} from './run-status.js';

describe('run state machine', () => {
  it('final states never change again', () => {
    for (const s of FINAL_RUN_STATUSES) expect(RUN_TRANSITIONS[s]).toEqual([]);
    for (const s of FINAL_SCENARIO_RUN_STATUSES) expect(SCENARIO_RUN_TRANSITIONS[s]).toEqual([]);
  });

  it('follows pending → running → grading → completed, with failed and canceled from every active state', () => {
    expect(RUN_TRANSITIONS.pending).toContain('running');
    expect(RUN_TRANSITIONS.running).toContain('grading');
    expect(RUN_TRANSITIONS.grading).toContain('completed');
    for (const s of ['pending', 'running', 'grading'] as const) {
      expect(RUN_TRANSITIONS[s]).toContain('canceled');
      expect(RUN_TRANSITIONS[s]).toContain('failed');
    }
    expect(RUN_TRANSITIONS.pending).not.toContain('completed');
  });

  it('predecessors are the inverse of the table', () => {
    for (const to of RUN_STATUSES) {
      expect(runPredecessors(to).sort()).toEqual(RUN_STATUSES.filter((s) => RUN_TRANSITIONS[s].includes(to)).sort());
    }
    expect(runPredecessors('canceled').sort()).toEqual(['grading', 'pending', 'running']);
    expect(runPredecessors('pending')).toEqual([]);
    for (const to of SCENARIO_RUN_STATUSES) {
      expect(scenarioRunPredecessors(to).sort()).toEqual(SCENARIO_RUN_STATUSES.filter((s) => SCENARIO_RUN_TRANSITIONS[s].includes(to)).sort());
    }
  });

  it('a scenario run is graded only after its conversation, and only an active one can end', () => {
    expect(SCENARIO_RUN_TRANSITIONS.pending).not.toContain('grading');
    expect(SCENARIO_RUN_TRANSITIONS.pending).not.toContain('passed');
    expect(scenarioRunPredecessors('passed').sort()).toEqual(['grading', 'running']);
    expect(scenarioRunPredecessors('error').sort()).toEqual(['grading', 'pending', 'running']);
  });
});
