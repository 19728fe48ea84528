import { describe, expect, it } from 'vitest';
import type { Decision } from '../types.js';
import { confirmationOrder, DISAGREED, NO_EVIDENCE, settle, type Vote } from './votes.js';

const real = (decision: Decision): Vote => ({ decision, rationale: decision, kept: [{ turn: 0, role: 'assistant', text: 'x' }], rejected: [] });
const bare = (decision: Decision): Vote => ({ decision, rationale: decision, kept: [], rejected: [] });
const invented = (decision: Decision): Vote => ({ decision, rationale: decision, kept: [], rejected: [{ turn: 9, role: 'assistant', text: 'y', reason: 'turn 9 does not exist' }] });
const outcome = (votes: Vote[], n: number) => {
  const s = settle(votes, n);
  return s === 'ask' ? 'ask' : [s.decision, s.rationale];
};

describe('settle', () => {
  it('asks again only for NOT_MET, PARTIAL or invented evidence, while calls are left', () => {
    expect(outcome([bare('MET')], 2)).toEqual(['MET', 'MET']);
    expect(outcome([bare('UNSURE')], 2)).toEqual(['UNSURE', 'UNSURE']);
    expect(outcome([bare('NOT_MET')], 2)).toBe('ask');
    expect(outcome([real('PARTIAL')], 2)).toBe('ask');
    expect(outcome([invented('MET')], 2)).toBe('ask');
    expect(outcome([invented('UNSURE')], 2)).toEqual(['UNSURE', 'UNSURE (1 quote dropped: turn 9 does not exist)']);
  });

  it('stops at a majority of the planned votes, and gives up once none is reachable', () => {
    expect(outcome([bare('NOT_MET'), bare('NOT_MET')], 2)).toEqual(['NOT_MET', 'NOT_MET']);
    expect(outcome([bare('NOT_MET'), bare('MET')], 2)).toBe('ask');
    expect(outcome([bare('NOT_MET'), bare('MET'), bare('PARTIAL')], 4)).toBe('ask'); // 2 left, 3 needed: reachable
    expect(outcome([bare('NOT_MET'), bare('MET'), bare('PARTIAL'), bare('UNSURE')], 4)).toEqual(['UNSURE', DISAGREED]);
  });

  it('does not count invented evidence towards a majority', () => {
    expect(outcome([real('NOT_MET'), invented('NOT_MET')], 2)).toBe('ask');
    expect(outcome([real('NOT_MET'), invented('NOT_MET'), invented('NOT_MET')], 2)).toEqual(['UNSURE', NO_EVIDENCE]);
    expect(outcome([invented('NOT_MET'), real('NOT_MET')], 1)).toEqual(['UNSURE', NO_EVIDENCE]);
    expect(outcome([invented('NOT_MET'), invented('MET')], 2)).toEqual(['UNSURE', NO_EVIDENCE]);
    expect(outcome([invented('NOT_MET'), real('MET')], 2)).toEqual(['MET', 'MET']);
  });

  it('takes evidence from an agreeing vote that has some', () => {
    const s = settle([bare('NOT_MET'), bare('MET'), real('NOT_MET')], 2);
    expect(s).toMatchObject({ decision: 'NOT_MET', votes: ['NOT_MET', 'MET', 'NOT_MET'], evidence: [{ turn: 0, role: 'assistant', text: 'x' }] });
  });
});

describe('confirmationOrder', () => {
  it('never repeats the first call\'s order when there are two or more criteria', () => {
    for (let n = 2; n <= 7; n++) {
      const identity = Array.from({ length: n }, (_, i) => i);
      for (let round = 1; round <= 10; round++) {
        const order = confirmationOrder(n, round);
        expect([...order].sort((a, b) => a - b)).toEqual(identity);
        expect(order).not.toEqual(identity);
      }
    }
    expect(confirmationOrder(1, 1)).toEqual([0]);
  });
});
