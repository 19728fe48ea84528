import { describe, expect, it } from 'vitest';
import { pointsFor, scoreCriteria } from './scoring.js';
import type { CriterionResult, Decision } from './types.js';

const r = (criterion: string, decision: Decision, max_points = 1, required = false): CriterionResult => ({
  criterion, decision, max_points, required, points_awarded: pointsFor(decision, max_points), rationale: '',
});

describe('pointsFor', () => {
  it('MET full, PARTIAL half, NOT_MET and UNSURE nothing', () => {
    expect([pointsFor('MET', 4), pointsFor('PARTIAL', 4), pointsFor('NOT_MET', 4), pointsFor('UNSURE', 4)]).toEqual([4, 2, 0, 0]);
  });
});

describe('scoreCriteria', () => {
  it('matches the spec example line', () => {
    const out = scoreCriteria([r('Greets', 'MET'), r('Names', 'MET'), r('Polite', 'MET'), r('Confirms the booking date', 'PARTIAL')], 0.75);
    expect(out).toMatchObject({ status: 'passed', passed: true, score: 0.875, awarded: 3.5, possible: 4 });
    expect(out.grade_summary).toBe('3 of 4 criteria met (score 0.88); partially met: "Confirms the booking date"');
  });

  it('fails under the threshold and names what was not met', () => {
    const out = scoreCriteria([r('A', 'MET'), r('B', 'NOT_MET'), r('C', 'NOT_MET')], 0.75);
    expect(out).toMatchObject({ status: 'failed', passed: false });
    expect(out.score).toBeCloseTo(1 / 3);
    expect(out.grade_summary).toBe('1 of 3 criteria met (score 0.33); not met: "B", "C"');
  });

  it('passes at exactly the threshold', () => {
    expect(scoreCriteria([r('A', 'MET'), r('B', 'MET'), r('C', 'MET'), r('D', 'NOT_MET')], 0.75).passed).toBe(true);
  });

  it('weights by max_points', () => {
    const out = scoreCriteria([r('A', 'MET', 3), r('B', 'NOT_MET', 1)], 0.75);
    expect(out).toMatchObject({ score: 0.75, passed: true });
  });

  it('leaves UNSURE out of the denominator', () => {
    const out = scoreCriteria([r('A', 'MET'), r('B', 'UNSURE', 5), r('C', 'MET')], 0.75);
    expect(out).toMatchObject({ status: 'passed', score: 1, awarded: 2, possible: 2 });
    expect(out.grade_summary).toBe('2 of 3 criteria met (score 1.00); unsure: "B"');
  });

  it('fails when a required criterion is not MET, whatever the score', () => {
    const many = Array.from({ length: 9 }, (_, i) => r(`ok ${i}`, 'MET'));
    const partial = scoreCriteria([...many, r('Never shares data', 'PARTIAL', 1, true)], 0.75);
    expect(partial).toMatchObject({ status: 'failed', passed: false });
    expect(partial.score).toBeCloseTo(0.95);
    expect(partial.grade_summary).toContain('partially met: "Never shares data" (required)');
    expect(scoreCriteria([...many, r('Never shares data', 'UNSURE', 1, true)], 0.75).passed).toBe(false);
    expect(scoreCriteria([...many, r('Never shares data', 'MET', 1, true)], 0.75).passed).toBe(true);
  });

  it('is an error, never a pass, when nothing could be decided', () => {
    const out = scoreCriteria([r('A', 'UNSURE'), r('B', 'UNSURE')], 0.75);
    expect(out).toMatchObject({ status: 'error', passed: null, score: null, error_message: 'grading inconclusive' });
    expect(out.grade_summary).toBe('0 of 2 criteria decided (grading inconclusive); unsure: "A", "B"');
    expect(scoreCriteria([], 0.75).status).toBe('error');
  });

  it('a threshold of 0 still needs a decided criterion', () => {
    expect(scoreCriteria([r('A', 'NOT_MET')], 0)).toMatchObject({ status: 'passed', score: 0 });
  });
});
