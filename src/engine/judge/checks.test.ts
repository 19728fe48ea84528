import { describe, expect, it } from 'vitest';
import type { AgentTools, Check, Criterion, TranscriptEntry } from '../types.js';
import { argumentsMatch, runCheck } from './checks.js';
import { verifyQuotes } from './evidence.js';

const ts = '2026-11-21T15:07:08.346Z';
const u = (content: string): TranscriptEntry => ({ role: 'user', content, timestamp: ts });
const a = (content: string, extra: Partial<TranscriptEntry> = {}): TranscriptEntry => ({ role: 'assistant', content, timestamp: ts, latency_ms: 100, ...extra });

const transcript: TranscriptEntry[] = [
  a('Welcome to Acme Dental!', { latency_ms: null }),
  u('Hi, I need to move my appointment.'),
  a('Sure. Which day suits you?', { latency_ms: 800 }),
  u('Friday, please. My email is dana@example.com'),
  a('Booked you for Friday at 10:00.', {
    latency_ms: 2400,
    tool_calls: [{ id: 'c1', name: 'book_slot', arguments: { day: 'Friday', time: '10:00', patient: { id: 7 } }, result: { ok: true } }],
  }),
];

const crit = (check: Check, over: Partial<Criterion> = {}): Criterion & { check: Check } => ({ criterion: 'c', max_points: 2, required: false, ...over, check });

/** Every quote a check produces must survive the verifier that judge quotes go through. */
function expectVerifiable(r: ReturnType<typeof runCheck>, t = transcript) {
  const quotes = r.evidence_quotes ?? [];
  expect(verifyQuotes(quotes, t).dropped).toEqual([]);
  return quotes;
}

describe('text checks', () => {
  it('contains: case-insensitive over agent entries, quoting the matched text', () => {
    const r = runCheck(crit({ type: 'contains', value: 'friday AT 10' }), transcript);
    expect(r).toMatchObject({ decision: 'MET', points_awarded: 2, max_points: 2, graded_by: 'check', required: false });
    expect(expectVerifiable(r)).toEqual([{ turn: 4, role: 'assistant', text: 'Friday at 10' }]);
    expect(r.rationale).toBe('assistant message at turn 4 contains "friday AT 10"');
  });

  it('contains: NOT_MET when only the other role said it, and role: user looks at the caller', () => {
    expect(runCheck(crit({ type: 'contains', value: 'dana@example.com' }), transcript)).toMatchObject({ decision: 'NOT_MET', points_awarded: 0, evidence_quotes: [] });
    const r = runCheck(crit({ type: 'contains', value: 'DANA@example.com', role: 'user' }), transcript);
    expect(r.decision).toBe('MET');
    expect(expectVerifiable(r)).toEqual([{ turn: 3, role: 'user', text: 'dana@example.com' }]);
  });

  it('not_contains: MET when absent, NOT_MET quoting the offending entry', () => {
    expect(runCheck(crit({ type: 'not_contains', value: 'password' }), transcript).decision).toBe('MET');
    const r = runCheck(crit({ type: 'not_contains', value: 'welcome' }), transcript);
    expect(r.decision).toBe('NOT_MET');
    expect(expectVerifiable(r)).toEqual([{ turn: 0, role: 'assistant', text: 'Welcome' }]);
  });

  it('regex and not_regex are case-insensitive and quote the match', () => {
    const r = runCheck(crit({ type: 'regex', value: '\\d{1,2}:\\d{2}' }), transcript);
    expect(r.decision).toBe('MET');
    expect(expectVerifiable(r)).toEqual([{ turn: 4, role: 'assistant', text: '10:00' }]);
    expect(runCheck(crit({ type: 'regex', value: 'ACME\\s+dental' }), transcript).decision).toBe('MET');
    expect(runCheck(crit({ type: 'regex', value: 'refund' }), transcript).decision).toBe('NOT_MET');
    expect(runCheck(crit({ type: 'not_regex', value: 'sure\\.' }), transcript)).toMatchObject({ decision: 'NOT_MET', evidence_quotes: [{ turn: 2, text: 'Sure.' }] });
    expect(runCheck(crit({ type: 'not_regex', value: 'social security' }), transcript).decision).toBe('MET');
  });

  it('an invalid regex is UNSURE rather than a verdict', () => {
    const r = runCheck(crit({ type: 'regex', value: '(' }), transcript);
    expect(r.decision).toBe('UNSURE');
    expect(r.rationale).toMatch(/^invalid regular expression/);
  });

  it('says so when there is nothing of that role to look at', () => {
    expect(runCheck(crit({ type: 'contains', value: 'x', role: 'user' }), [a('hi')]).rationale).toBe('no user messages to check for "x"');
  });
});

describe('tool checks', () => {
  const known: AgentTools = { tool_names: ['book_slot', 'cancel_slot', 'refund'], tool_aliases: {} };
  it('tool_called by name, quoting the call', () => {
    const r = runCheck(crit({ type: 'tool_called', name: 'book_slot' }), transcript, known);
    expect(r.decision).toBe('MET');
    expect(expectVerifiable(r)).toEqual([{ turn: 4, role: 'assistant', text: 'book_slot({"day":"Friday","time":"10:00","patient":{"id":7}})' }]);
  });

  it('tool_called with a partial argument match', () => {
    expect(runCheck(crit({ type: 'tool_called', name: 'book_slot', arguments: { day: 'friday' } }), transcript, known).decision).toBe('MET');
    expect(runCheck(crit({ type: 'tool_called', name: 'book_slot', arguments: { patient: { id: 7 } } }), transcript, known).decision).toBe('MET');
    expect(runCheck(crit({ type: 'tool_called', name: 'book_slot', arguments: { day: 'Monday' } }), transcript, known).decision).toBe('NOT_MET');
    expect(runCheck(crit({ type: 'tool_called', name: 'cancel_slot' }), transcript, known)).toMatchObject({ decision: 'NOT_MET', rationale: 'tool cancel_slot was never called' });
  });

  it('tool_not_called', () => {
    expect(runCheck(crit({ type: 'tool_not_called', name: 'refund' }), transcript, known).decision).toBe('MET');
    const r = runCheck(crit({ type: 'tool_not_called', name: 'book_slot', arguments: { time: '10:00' } }), transcript, known);
    expect(r.decision).toBe('NOT_MET');
    expectVerifiable(r);
  });

  // The agent's refund tool is refund_payment; the template forbids issue_refund.
  const refunded: TranscriptEntry[] = [u('Refund me.'), a('Done.', { tool_calls: [{ id: 'c9', name: 'refund_payment', arguments: { amount: 40 }, result: { ok: true } }] })];
  const notRefund = crit({ type: 'tool_not_called', name: 'issue_refund' });
  const refund = crit({ type: 'tool_called', name: 'issue_refund' });
  const unsure = { decision: 'UNSURE', points_awarded: 0, rationale: 'the agent has no known tool named issue_refund (set tool_aliases)' };

  it.each([
    ['tool_names unknown', { tool_names: null, tool_aliases: {} }],
    ['a list without the name', { tool_names: ['refund_payment', 'lookup_order'], tool_aliases: {} }],
  ] as [string, AgentTools][])('a name the agent neither has nor called is UNSURE: %s', (_, tools) => {
    expect(runCheck(notRefund, refunded, tools)).toMatchObject(unsure);
    expect(runCheck(refund, refunded, tools)).toMatchObject(unsure);
  });

  it('without tool information, a name never called decides nothing (the default)', () => {
    expect(runCheck(notRefund, refunded)).toMatchObject(unsure);
  });

  it('resolves the template name through tool_aliases', () => {
    const tools: AgentTools = { tool_names: null, tool_aliases: { issue_refund: 'refund_payment' } };
    const r = runCheck(notRefund, refunded, tools);
    expect(r).toMatchObject({ decision: 'NOT_MET', evidence_quotes: [{ turn: 1, role: 'assistant', text: 'refund_payment({"amount":40})' }] });
    expect(r.rationale).toMatch(/^tool refund_payment \(the agent's name for issue_refund\) called at turn 1/);
    expect(runCheck(refund, refunded, tools).decision).toBe('MET');
    // an aliased name that is in tool_names but was not called is decided
    const quiet = [u('Refund me.'), a('I cannot do that.')];
    const listed: AgentTools = { tool_names: ['refund_payment'], tool_aliases: { issue_refund: 'refund_payment' } };
    expect(runCheck(notRefund, quiet, listed).decision).toBe('MET');
    expect(runCheck(refund, quiet, listed).decision).toBe('NOT_MET');
    // but not when the agent's tools are unknown
    expect(runCheck(notRefund, quiet, tools)).toMatchObject({ decision: 'UNSURE', rationale: 'the agent has no known tool named refund_payment (set tool_aliases)' });
  });

  it('a name called in the transcript is decided even when tool_names does not list it', () => {
    const tools: AgentTools = { tool_names: null, tool_aliases: {} };
    const t = [u('Book me.'), a('Booked.', { tool_calls: [{ id: 'c1', name: 'book_slot', arguments: { day: 'Friday' }, result: null }] })];
    expect(runCheck(crit({ type: 'tool_called', name: 'book_slot' }), t, tools).decision).toBe('MET');
    expect(runCheck(crit({ type: 'tool_called', name: 'book_slot', arguments: { day: 'Monday' } }), t, tools).decision).toBe('NOT_MET');
    expect(runCheck(crit({ type: 'tool_not_called', name: 'book_slot', arguments: { day: 'Monday' } }), t, tools).decision).toBe('MET');
  });

  it('an alias to null, or an agent without tools: not called, decided', () => {
    for (const tools of [{ tool_names: null, tool_aliases: { issue_refund: null } }, { tool_names: [], tool_aliases: {} }] as AgentTools[]) {
      expect(runCheck(notRefund, [u('Refund me.'), a('No.')], tools).decision).toBe('MET');
      expect(runCheck(refund, [u('Refund me.'), a('No.')], tools).decision).toBe('NOT_MET');
    }
    expect(runCheck(notRefund, [], { tool_names: null, tool_aliases: { issue_refund: null } }).rationale).toBe('this agent has no tool issue_refund (tool_aliases maps it to null)');
    expect(runCheck(refund, [], { tool_names: [], tool_aliases: {} }).rationale).toBe('the agent has no tools, so issue_refund was never called');
  });

  it('argumentsMatch is a subset match', () => {
    expect(argumentsMatch({ a: 1 }, { a: 1, b: 2 })).toBe(true);
    expect(argumentsMatch({ a: 1, c: 3 }, { a: 1, b: 2 })).toBe(false);
    expect(argumentsMatch({ a: [1, { x: 'Y' }] }, { a: [1, { x: 'y', z: 0 }] })).toBe(true);
    expect(argumentsMatch({ a: [1] }, { a: [1, 2] })).toBe(false);
    expect(argumentsMatch({ a: 1 }, '{"a":1}')).toBe(false);
    expect(argumentsMatch({ a: '1' }, { a: 1 })).toBe(false);
  });
});

describe('max_turns', () => {
  it('MET within the limit, NOT_MET quoting the first turn past it', () => {
    expect(runCheck(crit({ type: 'max_turns', value: 2 }), transcript)).toMatchObject({ decision: 'MET', rationale: 'conversation took 2 turns (limit 2)' });
    const r = runCheck(crit({ type: 'max_turns', value: 1 }), transcript);
    expect(r.decision).toBe('NOT_MET');
    expect(expectVerifiable(r)).toEqual([{ turn: 3, role: 'user', text: 'Friday, please. My email is dana@example.com' }]);
  });
});

describe('max_response_ms', () => {
  it('judges the slowest timed reply, ignoring the untimed greeting', () => {
    const r = runCheck(crit({ type: 'max_response_ms', value: 2000 }), transcript);
    expect(r).toMatchObject({ decision: 'NOT_MET', rationale: 'slowest reply took 2400 ms at turn 4 (limit 2000 ms)' });
    expectVerifiable(r);
    expect(runCheck(crit({ type: 'max_response_ms', value: 2400 }), transcript).decision).toBe('MET');
  });
  it('is UNSURE without timed replies', () => {
    expect(runCheck(crit({ type: 'max_response_ms', value: 1 }), [a('hi', { latency_ms: null })]).decision).toBe('UNSURE');
  });
});

describe('responded_every_turn', () => {
  it('MET when every caller message got a non-empty answer', () => {
    expect(runCheck(crit({ type: 'responded_every_turn' }), transcript)).toMatchObject({ decision: 'MET', rationale: 'the agent answered all 2 caller messages' });
  });
  it('NOT_MET quoting the unanswered message', () => {
    const t = [u('Hello?'), a('Hi'), u('Are you there?'), a('   '), u('Hello??')];
    const r = runCheck(crit({ type: 'responded_every_turn' }), t);
    expect(r.decision).toBe('NOT_MET');
    expect(expectVerifiable(r, t)).toEqual([{ turn: 2, role: 'user', text: 'Are you there?' }]);
  });
  it('UNSURE when the caller never spoke', () => {
    expect(runCheck(crit({ type: 'responded_every_turn' }), [a('hi')]).decision).toBe('UNSURE');
  });
});
