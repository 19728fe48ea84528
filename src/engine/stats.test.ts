import { describe, expect, it } from 'vitest';
import { clusteredWilson, fisherOneSided, holm, intraClusterCorrelation, signTest, wilson, wilsonPercent } from './stats.js';

// Every expected value below is worked out by hand from the textbook formula (noted beside it).
describe('wilson', () => {
  it('matches hand values, including 0 and n successes and n = 1', () => {
    // p = .5, z² = 3.8415: centre .5, half-width 1.41601 · √(.025 + .0096) = .26341
    expect(wilson(5, 10)!.low).toBeCloseTo(0.23659, 5);
    expect(wilson(5, 10)!.high).toBeCloseTo(0.76341, 5);
    // 0 of 10: [0, 2 · .19207 / 1.38415] = [0, .27753]
    expect(wilson(0, 10)).toEqual({ low: 0, high: expect.closeTo(0.27753, 5) });
    expect(wilson(10, 10)).toEqual({ low: expect.closeTo(0.72247, 5), high: 1 });
    // 1 of 1: centre 2.9207 / 4.8415 = .60327, half .40483 · .97998 = .39672
    expect(wilson(1, 1)).toEqual({ low: expect.closeTo(0.20655, 5), high: 1 });
    expect(wilson(0, 1)).toEqual({ low: 0, high: expect.closeTo(0.79345, 5) });
    expect(wilson(0, 0)).toBeNull();
  });
  it('in percent rounds outwards to 2 decimals', () => {
    expect(wilsonPercent(5, 10)).toEqual({ low: 23.65, high: 76.35 });
    expect(wilsonPercent(10, 10)).toEqual({ low: 72.24, high: 100 });
    expect(wilsonPercent(0, 0)).toBeNull();
  });
});

describe('fisherOneSided', () => {
  it('matches the hypergeometric tail by hand', () => {
    // 10/10 → 5/10: only the observed table is as extreme: C(10,5)·C(10,10) / C(20,15) = 252 / 15504
    expect(fisherOneSided(10, 10, 5, 10, 'lower')).toBeCloseTo(252 / 15504, 12);
    // 9/10 → 3/10: (C(10,2)·C(10,10) + C(10,3)·C(10,9)) / C(20,12) = (45 + 1200) / 125970
    expect(fisherOneSided(9, 10, 3, 10, 'lower')).toBeCloseTo(1245 / 125970, 12);
    // the mirror image in the other direction gives the same p
    expect(fisherOneSided(3, 10, 9, 10, 'higher')).toBeCloseTo(1245 / 125970, 12);
    // n = 1 on each side: 1/1 → 0/1 is one of two equally likely tables
    expect(fisherOneSided(1, 1, 0, 1, 'lower')).toBeCloseTo(0.5, 12);
    // ties: 5/10 vs 5/10, P(X ≤ 5) = (1 + C(10,5)² / C(20,10)) / 2
    expect(fisherOneSided(5, 10, 5, 10, 'lower')).toBeCloseTo((1 + 63504 / 184756) / 2, 12);
    // 0 and n successes on both sides: nothing can differ
    expect(fisherOneSided(0, 3, 0, 3, 'lower')).toBe(1);
    expect(fisherOneSided(3, 3, 3, 3, 'higher')).toBe(1);
  });
});

describe('holm', () => {
  it('steps down and keeps the input order', () => {
    // sorted .01·3 = .03, .03·2 = .06, .04·1 = .04 → max so far .06
    const adj = holm([0.01, 0.04, 0.03]);
    expect(adj[0]).toBeCloseTo(0.03, 12);
    expect(adj[1]).toBeCloseTo(0.06, 12);
    expect(adj[2]).toBeCloseTo(0.06, 12);
    expect(holm([0.02, 0.02]).map((p) => +p.toFixed(12))).toEqual([0.04, 0.04]);
    expect(holm([0.7, 0.9])).toEqual([1, 1]);
    expect(holm([0.3])).toEqual([0.3]);
    expect(holm([])).toEqual([]);
  });
});

describe('signTest', () => {
  it('is the upper binomial tail at ½', () => {
    expect(signTest(5, 5)).toBeCloseTo(1 / 32, 12);
    expect(signTest(4, 5)).toBeCloseTo(6 / 32, 12);
    expect(signTest(2, 4)).toBeCloseTo(11 / 16, 12);
    expect(signTest(1, 1)).toBeCloseTo(0.5, 12);
    expect(signTest(0, 3)).toBe(1);
    expect(signTest(0, 0)).toBe(1);
  });
});

describe('clusteredWilson', () => {
  it('estimates the intra-cluster correlation by one-way ANOVA', () => {
    // scenarios that always agree with themselves: MSW 0 → ICC 1
    expect(intraClusterCorrelation([{ passed: 2, graded: 2 }, { passed: 0, graded: 2 }])).toBe(1);
    // identical mixed scenarios: MSB 0, MSW .5 → negative, clamped to 0
    expect(intraClusterCorrelation([{ passed: 1, graded: 2 }, { passed: 1, graded: 2 }])).toBe(0);
    // one repetition each: no within-cluster information, independent
    expect(intraClusterCorrelation([{ passed: 1, graded: 1 }, { passed: 0, graded: 1 }])).toBe(0);
    expect(intraClusterCorrelation([{ passed: 3, graded: 5 }])).toBe(1);
  });
  it('is Wilson on n / design effect', () => {
    // ICC 1, mean cluster size 2 → design effect 2 → Wilson(1 of 2)
    expect(clusteredWilson([{ passed: 2, graded: 2 }, { passed: 0, graded: 2 }])).toEqual(wilson(1, 2));
    // ICC 0 → plain Wilson over every repetition
    expect(clusteredWilson([{ passed: 1, graded: 2 }, { passed: 1, graded: 2 }])).toEqual(wilson(2, 4));
    // a single scenario counts as one observation: Wilson(.6 of 1)
    expect(clusteredWilson([{ passed: 3, graded: 5 }])).toEqual(wilson(0.6, 1));
    expect(clusteredWilson([{ passed: 0, graded: 0 }])).toBeNull();
    const ci = clusteredWilson([{ passed: 3, graded: 3 }, { passed: 1, graded: 3 }, { passed: 0, graded: 3 }, { passed: 3, graded: 3 }])!;
    expect(ci.low).toBeLessThanOrEqual(7 / 12);
    expect(ci.high).toBeGreaterThanOrEqual(7 / 12);
    expect(ci.high - ci.low).toBeGreaterThan(wilson(7, 12)!.high - wilson(7, 12)!.low);
  });
});
