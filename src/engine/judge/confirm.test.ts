import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLlmClient } from '../../lib/llm-client.js';
import { FakeClock } from '../../../test/fakes/fake-clock.js';
import { startFakeLlm, type FakeLlm, type JudgeView } from '../../../test/fakes/fake-llm.js';
import type { Criterion, Decision, TranscriptEntry } from '../types.js';
import { judgeCriteria } from './llm.js';
import { DISAGREED, NO_EVIDENCE } from './votes.js';

// Confirmed judgments and fabricated evidence, against the fake judge endpoint: every judge call is a real
// request, so the calls counted here are the calls a real model would be billed for.

const ts = '2026-11-21T15:07:08.346Z';
const transcript: TranscriptEntry[] = [
  { role: 'assistant', content: 'Acme Dental, this is Sam speaking.', timestamp: ts },
  { role: 'user', content: 'Can I move my cleaning to Friday?', timestamp: ts },
  { role: 'assistant', content: 'Friday is full, sorry.', timestamp: ts },
];
const crit = (criterion: string): Criterion => ({ criterion, max_points: 1, required: false, check: null });
const signal = new AbortController().signal;

let llm: FakeLlm;
let calls: JudgeView[];
beforeEach(async () => {
  llm = await startFakeLlm();
  calls = [];
});
afterEach(() => llm.close());

type Answer = { decision: Decision; evidence?: { turn: number; role: 'user' | 'assistant'; text: string }[]; rationale?: string };
/** A judge whose answer for criterion `id` on call `k` (0-based) is `script(id, k)`. */
function scripted(script: (id: number, k: number) => Answer) {
  llm.setJudge((v) => {
    const k = calls.push(v) - 1;
    return {
      results: v.criteria.map((c) => {
        const a = script(c.id, k);
        return { id: c.id, rationale: a.rationale ?? `call ${k + 1} says ${a.decision}`, evidence: a.evidence ?? [], decision: a.decision };
      }),
    };
  });
}
const run = (criteria: Criterion[], confirmations?: number) =>
  judgeCriteria({ client: createLlmClient({ baseUrl: llm.baseUrl, apiKey: llm.apiKey, clock: new FakeClock() }), model: llm.judgeModel, transcript, criteria, signal, confirmations });
const seq = (...d: Decision[]) => (_id: number, k: number): Answer => ({ decision: d[k] });

const FAKE_QUOTE = { turn: 2, role: 'assistant' as const, text: 'I moved you to Friday at 10.' };
const REAL_QUOTE = { turn: 2, role: 'assistant' as const, text: 'Friday is full, sorry.' };

describe('confirmed judgments', () => {
  it('a MET or UNSURE stands at once: one call, one vote', async () => {
    scripted((id) => ({ decision: id === 1 ? 'MET' : 'UNSURE' }));
    const { results, calls: n } = await run([crit('A'), crit('B')]);
    expect(results.map((r) => [r.decision, r.votes])).toEqual([['MET', ['MET']], ['UNSURE', ['UNSURE']]]);
    expect(n).toBe(1);
    expect(llm.judgeCalls()).toHaveLength(1);
  });

  it('a NOT_MET confirmed by the next call stops there (two of three votes)', async () => {
    scripted((_id, k) => ({ decision: 'NOT_MET', evidence: [REAL_QUOTE], rationale: `no slot, call ${k + 1}` }));
    const { results } = await run([crit('Offers another day')]);
    expect(results[0]).toMatchObject({ decision: 'NOT_MET', votes: ['NOT_MET', 'NOT_MET'], evidence_quotes: [REAL_QUOTE], rationale: 'no slot, call 1' });
    expect(llm.judgeCalls()).toHaveLength(2);
  });

  it('a judge that flips: the majority decides, with evidence from a vote that agrees', async () => {
    scripted((_id, k) => (k === 0 ? { decision: 'NOT_MET', evidence: [REAL_QUOTE] } : { decision: 'MET', evidence: [{ turn: 0, role: 'assistant', text: 'Acme Dental' }] }));
    const { results } = await run([crit('Greets the caller')]);
    expect(results[0]).toMatchObject({ decision: 'MET', votes: ['NOT_MET', 'MET', 'MET'], points_awarded: 1, rationale: 'call 2 says MET' });
    expect(results[0].evidence_quotes).toEqual([{ turn: 0, role: 'assistant', text: 'Acme Dental' }]);
    expect(llm.judgeCalls()).toHaveLength(3);
  });

  it('a judge that splits three ways: UNSURE, "the judge did not agree with itself"', async () => {
    scripted(seq('NOT_MET', 'MET', 'PARTIAL'));
    const { results } = await run([crit('A')]);
    expect(results[0]).toMatchObject({ decision: 'UNSURE', rationale: DISAGREED, votes: ['NOT_MET', 'MET', 'PARTIAL'], evidence_quotes: [], points_awarded: 0 });
  });

  it('confirmations 0 turns it off; 1 needs both votes to agree', async () => {
    scripted(seq('PARTIAL', 'MET'));
    expect((await run([crit('A')], 0)).results[0]).toMatchObject({ decision: 'PARTIAL', votes: ['PARTIAL'] });
    calls = [];
    expect((await run([crit('A')], 1)).results[0]).toMatchObject({ decision: 'UNSURE', rationale: DISAGREED, votes: ['PARTIAL', 'MET'] });
  });

  it('confirmation rounds show every criterion in another order and take only the ones being confirmed', async () => {
    // criterion 2 is NOT_MET on the first call only; 1 and 3 are MET throughout
    scripted((id, k) => ({ decision: id === 2 && k === 0 ? 'NOT_MET' : 'MET' }));
    const { results } = await run([crit('A'), crit('B'), crit('C')], 4);
    expect(calls.map((c) => c.criteria.map((x) => x.id))).toEqual([[1, 2, 3], [3, 2, 1], [2, 1, 3], [1, 3, 2]]);
    expect(calls.map((c) => c.criteria.map((x) => x.text))).toEqual([['A', 'B', 'C'], ['C', 'B', 'A'], ['B', 'A', 'C'], ['A', 'C', 'B']]);
    // 5 planned votes: MET needs 3, reached on the fourth call; A and C never took another vote
    expect(results.map((r) => r.votes)).toEqual([['MET'], ['NOT_MET', 'MET', 'MET', 'MET'], ['MET']]);
    expect(results[1].decision).toBe('MET');
    // a fresh call each time: no earlier answer is carried
    expect(llm.judgeCalls().every((c) => c.body!.messages.length === 2)).toBe(true);
  });

  it('with a single judge criterion there is only one order', async () => {
    scripted(seq('NOT_MET', 'NOT_MET'));
    await run([crit('A')]);
    expect(calls.map((c) => c.criteria.map((x) => x.id))).toEqual([[1], [1]]);
  });

  it('never makes more than 1 + confirmations calls, whatever the judge answers', async () => {
    const decisions: Decision[] = ['MET', 'PARTIAL', 'NOT_MET', 'UNSURE'];
    for (const confirmations of [0, 1, 2, 3, 4]) {
      for (let seed = 0; seed < 6; seed++) {
        calls = [];
        const before = llm.judgeCalls().length;
        // a judge that keeps changing its mind, and sometimes invents its quotes
        scripted((id, k) => ({ decision: decisions[(id * 7 + k * (seed + 1) + 2) % 4], evidence: (id + k + seed) % 3 === 0 ? [FAKE_QUOTE] : [] }));
        const { results, calls: n } = await run([crit('A'), crit('B'), crit('C'), crit('D')], confirmations);
        expect(llm.judgeCalls().length - before).toBe(n);
        expect(n).toBeLessThanOrEqual(1 + confirmations);
        for (const r of results) expect(r.votes!.length).toBeLessThanOrEqual(1 + confirmations);
      }
    }
  });
});

describe('fabricated evidence', () => {
  it('a decision citing only quotes that are not in the transcript is re-asked once, then UNSURE with the rejected quotes', async () => {
    scripted(() => ({ decision: 'MET', evidence: [FAKE_QUOTE] }));
    const { results } = await run([crit('Books the new date')]);
    expect(results[0]).toMatchObject({ decision: 'UNSURE', rationale: NO_EVIDENCE, votes: ['MET', 'MET'], evidence_quotes: [], points_awarded: 0 });
    expect(results[0].rejected_quotes).toEqual([{ ...FAKE_QUOTE, reason: 'not found in turn 2' }]);
    expect(llm.judgeCalls()).toHaveLength(2);
  });

  it('a re-ask that finds real evidence decides', async () => {
    scripted((_id, k) => (k === 0 ? { decision: 'MET', evidence: [FAKE_QUOTE] } : { decision: 'NOT_MET', evidence: [REAL_QUOTE] }));
    const { results } = await run([crit('Books the new date')]);
    // the re-ask's NOT_MET is itself confirmed by the last planned call
    expect(results[0]).toMatchObject({ decision: 'NOT_MET', votes: ['MET', 'NOT_MET', 'NOT_MET'], evidence_quotes: [REAL_QUOTE] });
    expect(results[0].rejected_quotes).toEqual([{ ...FAKE_QUOTE, reason: 'not found in turn 2' }]);
  });

  it('with confirmations off, it is UNSURE at once', async () => {
    scripted(() => ({ decision: 'NOT_MET', evidence: [FAKE_QUOTE] }));
    const { results } = await run([crit('A')], 0);
    expect(results[0]).toMatchObject({ decision: 'UNSURE', rationale: NO_EVIDENCE, votes: ['NOT_MET'] });
    expect(llm.judgeCalls()).toHaveLength(1);
  });

  it('a decision with no quote at all stands', async () => {
    scripted(() => ({ decision: 'MET', rationale: 'Never offered a transfer.' }));
    const { results } = await run([crit('Does not offer a transfer')]);
    expect(results[0]).toMatchObject({ decision: 'MET', votes: ['MET'], evidence_quotes: [], rejected_quotes: [], rationale: 'Never offered a transfer.' });
    expect(llm.judgeCalls()).toHaveLength(1);
  });

  it('a decision with one verified quote among invented ones stands', async () => {
    scripted(() => ({ decision: 'MET', evidence: [FAKE_QUOTE, REAL_QUOTE] }));
    const { results } = await run([crit('A')]);
    expect(results[0]).toMatchObject({ decision: 'MET', votes: ['MET'], evidence_quotes: [REAL_QUOTE], rejected_quotes: [{ ...FAKE_QUOTE, reason: 'not found in turn 2' }] });
  });

  it('accepts a tool-call quote copied with its marker', async () => {
    const withTool: TranscriptEntry[] = [
      { role: 'user', content: 'Refund order 42', timestamp: ts },
      { role: 'assistant', content: 'Done.', timestamp: ts, tool_calls: [{ id: 'c', name: 'refund', arguments: { order: 42 }, result: { ok: true } }] },
    ];
    llm.setJudge((v) => ({ results: [{ id: 1, rationale: 'refunded', evidence: [{ turn: 1, role: 'assistant', text: `<<tool ${v.token}>> ${v.transcript[1].tools[0]}` }], decision: 'MET' }] }));
    const { results } = await judgeCriteria({
      client: createLlmClient({ baseUrl: llm.baseUrl, apiKey: llm.apiKey, clock: new FakeClock() }), model: llm.judgeModel, transcript: withTool, criteria: [crit('Refunds')], signal,
    });
    expect(results[0]).toMatchObject({ decision: 'MET', evidence_quotes: [{ turn: 1, role: 'assistant', text: 'refund({"order":42}) → {"ok":true}' }], rejected_quotes: [] });
  });
});
