import type { CriterionResult, Decision } from './types.js';

// MET = max_points, PARTIAL = half, NOT_MET = 0; UNSURE = 0. `score` is awarded / possible over the decided
// criteria. The verdict is three-way: a scenario passes only if it would pass with every UNSURE criterion counted
// NOT_MET, fails only if it would fail with every UNSURE criterion counted MET, and is inconclusive otherwise —
// a verdict the undecided criteria could flip is no verdict.

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
  /** Σ max_points of decided criteria / Σ max_points, 2 decimals; null without criteria. */
  decided_share: number | null;
  /** Σ max_points of the UNSURE criteria. */
  undecided_points: number;
  grade_summary: string;
  /** `judge: grading inconclusive: …` when the undecided criteria could flip the verdict; null otherwise. */
  error_message: string | null;
}

// Float sums of halves can land a hair under a threshold they meet exactly (e.g. 0.7499999…).
const EPSILON = 1e-9;
const MAX_NAME = 100;

const named = (r: CriterionResult) => {
  const text = r.criterion.length > MAX_NAME ? `${r.criterion.slice(0, MAX_NAME - 1)}…` : r.criterion;
  return `${JSON.stringify(text)}${r.required ? ' (required)' : ''}`;
};
const round2 = (n: number) => Math.round(n * 100) / 100;
const pts = (n: number) => String(round2(n));

export function scoreCriteria(results: readonly CriterionResult[], passThreshold: number): ScoreOutcome {
  let awarded = 0;
  let possible = 0;
  let undecided = 0;
  let met = 0;
  const notMet: CriterionResult[] = [];
  const partial: CriterionResult[] = [];
  const unsure: CriterionResult[] = [];
  for (const r of results) {
    if (r.decision === 'UNSURE') {
      unsure.push(r);
      undecided += r.max_points;
      continue;
    }
    awarded += pointsFor(r.decision, r.max_points);
    possible += r.max_points;
    if (r.decision === 'MET') met++;
    else if (r.decision === 'PARTIAL') partial.push(r);
    else notMet.push(r);
  }
  const total = possible + undecided;

  const tail: string[] = [];
  if (notMet.length) tail.push(`not met: ${notMet.map(named).join(', ')}`);
  if (partial.length) tail.push(`partially met: ${partial.map(named).join(', ')}`);
  if (unsure.length) tail.push(`unsure: ${unsure.map(named).join(', ')}`);

  const score = possible > 0 ? awarded / possible : null;
  const head = score === null
    ? `0 of ${results.length} criteria decided`
    : `${met} of ${results.length} criteria met (score ${score.toFixed(2)})`;

  // With every UNSURE counted NOT_MET (kept in the denominator): does it still pass?
  const passesAtWorst = possible > 0
    && results.every((r) => !r.required || r.decision === 'MET')
    && awarded / total >= passThreshold - EPSILON;
  // With every UNSURE counted MET: does it still fail? A required UNSURE alone never fails it.
  const failsAtBest = results.some((r) => r.required && (r.decision === 'NOT_MET' || r.decision === 'PARTIAL'))
    || (total > 0 && (awarded + undecided) / total < passThreshold - EPSILON);

  const base = { score, awarded, possible, decided_share: total > 0 ? round2(possible / total) : null, undecided_points: undecided };
  if (passesAtWorst || failsAtBest) {
    const passed = passesAtWorst;
    return { ...base, status: passed ? 'passed' : 'failed', passed, grade_summary: [head, ...tail].join('; '), error_message: null };
  }
  const which = unsure.length ? ` (${unsure.map(named).join(', ')})` : '';
  return {
    ...base,
    status: 'error',
    passed: null,
    grade_summary: [`${head} (grading inconclusive)`, ...tail].join('; '),
    error_message: `judge: grading inconclusive: ${pts(undecided)} of ${pts(total)} points undecided${which}`,
  };
}
