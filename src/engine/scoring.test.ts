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

  it('scores over decided criteria, but keeps UNSURE in the denominator of the verdict', () => {
    const out = scoreCriteria([r('A', 'MET'), r('B', 'UNSURE', 5), r('C', 'MET')], 0.75);
    expect(out).toMatchObject({ status: 'error', passed: null, score: 1, awarded: 2, possible: 2, decided_share: 0.29, undecided_points: 5 });
    expect(out.error_message).toBe('judge: grading inconclusive: 5 of 7 points undecided ("B")');
    expect(out.grade_summary).toBe('2 of 3 criteria met (score 1.00) (grading inconclusive); unsure: "B"');
  });

  it('fails when a required criterion is NOT_MET or PARTIAL, whatever the score; a required UNSURE alone is no failure', () => {
    const many = Array.from({ length: 9 }, (_, i) => r(`ok ${i}`, 'MET'));
    const partial = scoreCriteria([...many, r('Never shares data', 'PARTIAL', 1, true)], 0.75);
    expect(partial).toMatchObject({ status: 'failed', passed: false });
    expect(partial.score).toBeCloseTo(0.95);
    expect(partial.grade_summary).toContain('partially met: "Never shares data" (required)');
    const unsure = scoreCriteria([...many, r('Never shares data', 'UNSURE', 1, true)], 0.75);
    expect(unsure).toMatchObject({ status: 'error', passed: null, decided_share: 0.9 });
    expect(unsure.error_message).toBe('judge: grading inconclusive: 1 of 10 points undecided ("Never shares data" (required))');
    expect(scoreCriteria([...many, r('Never shares data', 'MET', 1, true)], 0.75).passed).toBe(true);
  });

  it('is an error, never a pass, when nothing could be decided', () => {
    const out = scoreCriteria([r('A', 'UNSURE'), r('B', 'UNSURE')], 0.75);
    expect(out).toMatchObject({ status: 'error', passed: null, score: null, decided_share: 0 });
    expect(out.error_message).toBe('judge: grading inconclusive: 2 of 2 points undecided ("A", "B")');
    expect(out.grade_summary).toBe('0 of 2 criteria decided (grading inconclusive); unsure: "A", "B"');
    expect(scoreCriteria([r('A', 'UNSURE')], 0)).toMatchObject({ status: 'error' });
    expect(scoreCriteria([], 0.75)).toMatchObject({ status: 'error', decided_share: null, error_message: 'judge: grading inconclusive: 0 of 0 points undecided' });
  });

  it('a required UNSURE with decided failures is a failure', () => {
    const out = scoreCriteria([r('Req', 'UNSURE', 1, true), r('A', 'NOT_MET', 3), r('B', 'MET')], 0.75);
    expect(out).toMatchObject({ status: 'failed', passed: false }); // (1 + 1) / 5 < 0.75 even with Req MET
    expect(scoreCriteria([r('Req', 'UNSURE', 1, true), r('Other req', 'NOT_MET', 1, true), r('B', 'MET', 5)], 0.5).status).toBe('failed');
  });

  // [case, decisions (name:decision:points:required), threshold, status]
  const TABLE: Array<[string, string[], number, 'passed' | 'failed' | 'error']> = [
    ['all decided, above threshold', ['MET:1', 'MET:1', 'NOT_MET:1'], 0.6, 'passed'],
    ['all decided, below threshold', ['MET:1', 'NOT_MET:1', 'NOT_MET:1'], 0.6, 'failed'],
    ['undecided cannot lift it to the threshold', ['MET:1', 'NOT_MET:3', 'UNSURE:1'], 0.75, 'failed'],
    ['undecided cannot drop it below the threshold', ['MET:4', 'UNSURE:1'], 0.75, 'passed'],
    ['undecided could flip it', ['MET:2', 'UNSURE:2'], 0.75, 'error'],
    ['exactly at the threshold with U counted NOT_MET', ['MET:3', 'UNSURE:1'], 0.75, 'passed'],
    ['exactly at the threshold with U counted MET', ['MET:2', 'NOT_MET:1', 'UNSURE:1'], 0.75, 'error'],
    ['just under the threshold with U counted MET', ['MET:2', 'NOT_MET:2', 'UNSURE:0.5'], 0.75, 'failed'],
    ['exactly at the threshold, all decided', ['MET:3', 'NOT_MET:1'], 0.75, 'passed'],
    ['required MET, rest undecided enough', ['MET:1:req', 'MET:3', 'UNSURE:1'], 0.75, 'passed'],
    ['required NOT_MET with undecided', ['NOT_MET:1:req', 'MET:3', 'UNSURE:1'], 0.5, 'failed'],
    ['required PARTIAL', ['PARTIAL:1:req', 'MET:9'], 0.5, 'failed'],
    ['required UNSURE, decided pass otherwise', ['UNSURE:1:req', 'MET:9'], 0.5, 'error'],
    ['required UNSURE, decided below the threshold at best', ['UNSURE:1:req', 'NOT_MET:9'], 0.5, 'failed'],
    ['all UNSURE', ['UNSURE:1', 'UNSURE:2:req'], 0.5, 'error'],
    ['all UNSURE, threshold 0', ['UNSURE:1'], 0, 'error'],
    ['PARTIAL counts half', ['PARTIAL:2', 'MET:1', 'UNSURE:1'], 0.5, 'passed'],
    ['halves at the threshold', ['PARTIAL:1', 'PARTIAL:1', 'MET:1', 'NOT_MET:1'], 0.5, 'passed'],
  ];
  it.each(TABLE)('%s', (_name, spec, threshold, status) => {
    const results = spec.map((d, i) => {
      const [decision, points, req] = d.split(':');
      return r(`c${i}`, decision as Decision, Number(points), req === 'req');
    });
    const out = scoreCriteria(results, threshold);
    expect(out.status).toBe(status);
    expect(out.passed).toBe(status === 'error' ? null : status === 'passed');
    expect(out.error_message === null).toBe(status !== 'error');
    const total = results.reduce((a, x) => a + x.max_points, 0);
    const undecided = results.filter((x) => x.decision === 'UNSURE').reduce((a, x) => a + x.max_points, 0);
    expect(out.decided_share).toBe(Math.round(((total - undecided) / total) * 100) / 100);
  });

  it('a threshold of 0 still needs a decided criterion', () => {
    expect(scoreCriteria([r('A', 'NOT_MET')], 0)).toMatchObject({ status: 'passed', score: 0 });
  });
});
