import { describe, expect, it } from 'vitest';
import { cohenKappa } from './stats-kappa.js';

const CATS = ['MET', 'PARTIAL', 'NOT_MET', 'UNSURE'] as const;
type C = (typeof CATS)[number];
const rep = (n: number, p: readonly [C, C]) => Array.from({ length: n }, () => p);

describe('cohenKappa', () => {
  it('null without pairs', () => {
    expect(cohenKappa([], CATS)).toBeNull();
  });

  it('a 2×2 table computed by hand: 20 MET/MET, 5 MET/NOT_MET, 10 NOT_MET/MET, 15 NOT_MET/NOT_MET', () => {
    // p_o = 35/50 = 0.7; judge MET 25/50, review MET 30/50; p_e = 0.5·0.6 + 0.5·0.4 = 0.5; κ = 0.2 / 0.5 = 0.4
    const pairs = [...rep(20, ['MET', 'MET']), ...rep(5, ['MET', 'NOT_MET']), ...rep(10, ['NOT_MET', 'MET']), ...rep(15, ['NOT_MET', 'NOT_MET'])];
    expect(cohenKappa(pairs, CATS)).toBeCloseTo(0.4, 12);
  });

  it('three categories with a judge UNSURE, computed by hand', () => {
    // pairs: MET/MET ×3, PARTIAL/PARTIAL ×1, NOT_MET/NOT_MET ×2, UNSURE/MET ×1, MET/NOT_MET ×1 (n = 8)
    // p_o = 6/8 = 0.75; judge: MET 4, PARTIAL 1, NOT_MET 2, UNSURE 1; review: MET 4, PARTIAL 1, NOT_MET 3, UNSURE 0
    // p_e = (4·4 + 1·1 + 2·3 + 1·0) / 64 = 23/64; κ = (0.75 − 23/64) / (1 − 23/64) = (25/64) / (41/64) = 25/41
    const pairs = [...rep(3, ['MET', 'MET']), ['PARTIAL', 'PARTIAL'], ...rep(2, ['NOT_MET', 'NOT_MET']), ['UNSURE', 'MET'], ['MET', 'NOT_MET']] as Array<[C, C]>;
    expect(cohenKappa(pairs, CATS)).toBeCloseTo(25 / 41, 12);
  });

  it('perfect agreement is 1, systematic disagreement is negative', () => {
    expect(cohenKappa([['MET', 'MET'], ['NOT_MET', 'NOT_MET'], ['PARTIAL', 'PARTIAL']], CATS)).toBe(1);
    // p_o = 0; p_e = 0.5·0.5 + 0.5·0.5 = 0.5; κ = −0.5 / 0.5 = −1
    expect(cohenKappa([['MET', 'NOT_MET'], ['NOT_MET', 'MET']], CATS)).toBeCloseTo(-1, 12);
  });

  it('one label used by both raters throughout is perfect agreement, not 0/0', () => {
    expect(cohenKappa(rep(4, ['MET', 'MET']), CATS)).toBe(1);
  });

  it('agreement at chance level is 0', () => {
    // judge always MET, review half MET: p_o = 0.5, p_e = 1·0.5 = 0.5
    expect(cohenKappa([['MET', 'MET'], ['MET', 'NOT_MET']], CATS)).toBe(0);
  });

  it('rejects a label outside the categories', () => {
    expect(() => cohenKappa([['MET', 'MAYBE' as C]], CATS)).toThrow(RangeError);
  });
});
