import type { CriterionResult, Decision } from './types.js';

// decisions §7, exactly: MET = max_points, PARTIAL = half, NOT_MET = 0, UNSURE = 0 and left out of the
// denominator; pass iff every required criterion is MET and score ≥ pass_threshold.

export function pointsFor(decision: Decision, maxPoints: number): number {
  if (decision === 'MET') return maxPoints;
  if (decision === 'PARTIAL') return maxPoints / 2;
  return 0;
}

export interface ScoreOutcome {
  status: 'passed' | 'failed' | 'error';
  passed: boolean | null;
  /** awarded / possible over decided criteria; null when nothing was decided. */
  score: number | null;
  awarded: number;
  possible: number;
  grade_summary: string;
  error_message: string | null;
}

// Float sums of halves can land a hair under a threshold they meet exactly (e.g. 0.7499999…).
const EPSILON = 1e-9;
const MAX_NAME = 100;

const named = (r: CriterionResult) => {
  const text = r.criterion.length > MAX_NAME ? `${r.criterion.slice(0, MAX_NAME - 1)}…` : r.criterion;
  return `${JSON.stringify(text)}${r.required ? ' (required)' : ''}`;
};

export function scoreCriteria(results: readonly CriterionResult[], passThreshold: number): ScoreOutcome {
  let awarded = 0;
  let possible = 0;
  let met = 0;
  const notMet: CriterionResult[] = [];
  const partial: CriterionResult[] = [];
  const unsure: CriterionResult[] = [];
  for (const r of results) {
    if (r.decision === 'UNSURE') {
      unsure.push(r);
      continue;
    }
    awarded += pointsFor(r.decision, r.max_points);
    possible += r.max_points;
    if (r.decision === 'MET') met++;
    else if (r.decision === 'PARTIAL') partial.push(r);
    else notMet.push(r);
  }

  const tail: string[] = [];
  if (notMet.length) tail.push(`not met: ${notMet.map(named).join(', ')}`);
  if (partial.length) tail.push(`partially met: ${partial.map(named).join(', ')}`);
  if (unsure.length) tail.push(`unsure: ${unsure.map(named).join(', ')}`);

  if (possible === 0) {
    return {
      status: 'error',
      passed: null,
      score: null,
      awarded: 0,
      possible: 0,
      grade_summary: [`0 of ${results.length} criteria decided (grading inconclusive)`, ...tail].join('; '),
      error_message: 'grading inconclusive',
    };
  }
  const score = awarded / possible;
  const requiredOk = results.every((r) => !r.required || r.decision === 'MET');
  const passed = requiredOk && score >= passThreshold - EPSILON;
  return {
    status: passed ? 'passed' : 'failed',
    passed,
    score,
    awarded,
    possible,
    grade_summary: [`${met} of ${results.length} criteria met (score ${score.toFixed(2)})`, ...tail].join('; '),
    error_message: null,
  };
}
