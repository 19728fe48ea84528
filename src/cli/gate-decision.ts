import type { Run, ScenarioResult } from '../client/index.js';
import { EXIT } from './io.js';

// What `rehearsal run` exits with, as a pure function of the final run, its results and the flags. A pass is
// a claim about the agent, so it counts what the agent caused (its own errors are failures) and refuses thin
// evidence (too few scenario runs covered). The order of the rules below is the contract of docs/ci.md.

export type GateReason = 'met' | 'below_min_pass_rate' | 'regressed' | 'below_min_coverage' | 'run_failed' | 'run_canceled' | 'timed_out';

/** The run fields the gate reads; the strict figures come from the service when it sends them. */
export type GateRun = Pick<Run, 'status' | 'test_run_id' | 'error_message' | 'total_scenarios' | 'passed_count' | 'failed_count'> & {
  agent_error_count?: number;
  strict_pass_rate?: number | null;
  coverage?: number;
};

export type GateRow = Pick<ScenarioResult, 'status'> & { fault?: string | null };

export interface GateThresholds {
  minPassRate: number;
  /** 0 turns the coverage check off. */
  minCoverage: number;
  /** The gate gave up waiting (--timeout) and canceled the run. */
  timedOut: boolean;
  /** With --fail-on-regression and a `regressed` comparison: the regressed scenarios' names; otherwise null. */
  regressed?: string[] | null;
}

export interface GateDecision {
  exit_code: number;
  reason: GateReason;
  passed: boolean;
  strict_pass_rate: number | null;
  coverage: number;
  agent_error_count: number;
  /** Scenario runs neither graded nor errored on the agent's side, by fault ("not finished" for unfinished ones). */
  uncovered: Record<string, number>;
  message: string;
}

const round2 = (x: number) => Math.round(x * 100) / 100;
const FINAL = new Set(['passed', 'failed', 'error']);

function uncoveredByFault(rows: readonly GateRow[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of rows) {
    if (r.status === 'passed' || r.status === 'failed' || (r.status === 'error' && r.fault === 'agent')) continue;
    const key = !FINAL.has(r.status) ? 'not finished' : r.fault ?? 'unattributed';
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}

const describeUncovered = (u: Record<string, number>) => {
  const parts = Object.entries(u).sort(([a], [b]) => a.localeCompare(b)).map(([fault, n]) => `${fault} ${n}`);
  return parts.length ? ` (${parts.join(', ')})` : '';
};

export function decideGate(run: GateRun, rows: readonly GateRow[], t: GateThresholds): GateDecision {
  const total = run.total_scenarios;
  const agentErrors = run.agent_error_count ?? rows.filter((r) => r.status === 'error' && r.fault === 'agent').length;
  const covered = run.passed_count + run.failed_count + agentErrors;
  const strict = run.strict_pass_rate !== undefined ? run.strict_pass_rate : covered === 0 ? null : round2((100 * run.passed_count) / covered);
  const coverage = run.coverage ?? (total === 0 ? 0 : round2((100 * covered) / total));
  const uncovered = uncoveredByFault(rows);
  const uncoveredCount = Math.max(0, total - covered);
  // even if every scenario run that was not covered had passed
  const bestCase = total === 0 ? 0 : round2((100 * (run.passed_count + uncoveredCount)) / total);
  const strictShown = strict === null ? 'n/a' : `${strict}%`;
  const uncoveredText = `${uncoveredCount} of ${total} scenario runs not covered${describeUncovered(uncovered)}`;

  const decide = (exit_code: number, reason: GateReason, message: string): GateDecision => ({
    exit_code, reason, passed: exit_code === EXIT.OK, strict_pass_rate: strict, coverage, agent_error_count: agentErrors, uncovered, message,
  });

  if (t.timedOut) return decide(EXIT.RUN_FAILED, 'timed_out', `FAILED: run ${run.test_run_id} timed out and was canceled; ${uncoveredText}`);
  if (run.status === 'canceled') return decide(EXIT.RUN_FAILED, 'run_canceled', `FAILED: run ${run.test_run_id} was canceled; ${uncoveredText}`);
  if (bestCase < t.minPassRate) {
    return decide(EXIT.BELOW_THRESHOLD, 'below_min_pass_rate',
      `FAILED: the agent's own outcomes put the strict pass rate below the minimum of ${t.minPassRate}%: ${run.passed_count} passed, ${run.failed_count} failed, ` +
      `${agentErrors} errors of the agent's own (strict pass rate ${strictShown}, at most ${bestCase}% even if every uncovered scenario run had passed)`);
  }
  // a regression is the agent's doing too: decided with the step above, before anything can make it a 2
  if (t.regressed) {
    return decide(EXIT.BELOW_THRESHOLD, 'regressed', `FAILED: the run regressed against its baseline: ${t.regressed.join(', ') || 'the changed scenarios lean worse'}`);
  }
  if (run.status !== 'completed') {
    return decide(EXIT.RUN_FAILED, 'run_failed', `FAILED: run ${run.test_run_id} ended ${run.status}${run.error_message ? ` (${run.error_message})` : ''}; ${uncoveredText}`);
  }
  if (t.minCoverage > 0 && coverage < t.minCoverage) {
    return decide(EXIT.RUN_FAILED, 'below_min_coverage', `FAILED: coverage ${coverage}% is below the minimum of ${t.minCoverage}%: ${uncoveredText}`);
  }
  if ((strict ?? 0) < t.minPassRate) {
    return decide(EXIT.BELOW_THRESHOLD, 'below_min_pass_rate', `FAILED: strict pass rate ${strictShown} is below the minimum of ${t.minPassRate}%`);
  }
  return decide(EXIT.OK, 'met', `PASSED: strict pass rate ${strictShown} meets the minimum of ${t.minPassRate}% with coverage ${coverage}%`);
}
