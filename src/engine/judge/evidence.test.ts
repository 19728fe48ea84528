import { describe, expect, it } from 'vitest';
import type { TranscriptEntry } from '../types.js';
import { droppedNote, normalizeForQuote, verifyQuotes } from './evidence.js';

const ts = '2026-11-21T15:07:08.346Z';
const transcript: TranscriptEntry[] = [
  { role: 'assistant', content: 'Hello,   thanks for calling.\nHow can I help?', timestamp: ts },
  { role: 'user', content: "I'd like a \u201Crefund\u201D for order 42.", timestamp: ts },
  {
    role: 'assistant',
    content: 'Let me check.',
    timestamp: ts,
    tool_calls: [{ id: 'c', name: 'lookup_order', arguments: { order: 42 }, result: { status: 'shipped' } }],
  },
];

describe('verifyQuotes', () => {
  it('keeps verbatim quotes, tolerating whitespace and curly-vs-straight quotes', () => {
    const quotes = [
      { turn: 0, role: 'assistant', text: 'thanks for calling. How can I help?' },
      { turn: 1, role: 'user', text: 'I\u2019d like a "refund"' },
      { turn: 2, role: 'assistant', text: 'lookup_order({"order":42})' },
      { turn: 2, role: 'assistant', text: 'lookup_order({"order":42}) → {"status":"shipped"}' },
    ];
    expect(verifyQuotes(quotes, transcript)).toEqual({ kept: quotes, rejected: [], dropped: [] });
  });

  it('drops a fabricated or altered quote', () => {
    const r = verifyQuotes([{ turn: 0, role: 'assistant', text: 'Thanks for calling' }], transcript);
    expect(r.kept).toEqual([]);
    expect(r.dropped).toEqual(['not found in turn 0']);
  });

  it('drops a quote whose text is elsewhere in the transcript, not in the cited entry', () => {
    expect(verifyQuotes([{ turn: 2, role: 'assistant', text: 'How can I help?' }], transcript).dropped).toEqual(['not found in turn 2']);
  });

  it('drops a wrong role, a missing turn and an empty quote', () => {
    const r = verifyQuotes([
      { turn: 1, role: 'assistant', text: 'refund' },
      { turn: 9, role: 'user', text: 'x' },
      { turn: 0, role: 'assistant', text: '  ' },
    ], transcript);
    expect(r.kept).toEqual([]);
    expect(r.dropped).toEqual(['role mismatch in turn 1', 'turn 9 does not exist', 'empty quote for turn 0']);
    expect(r.rejected).toEqual([
      { turn: 1, role: 'assistant', text: 'refund', reason: 'role mismatch in turn 1' },
      { turn: 9, role: 'user', text: 'x', reason: 'turn 9 does not exist' },
      { turn: 0, role: 'assistant', text: '  ', reason: 'empty quote for turn 0' },
    ]);
  });

  it('keeps the good quotes and drops the bad among several', () => {
    const r = verifyQuotes([
      { turn: 0, role: 'assistant', text: 'Hello' },
      { turn: 0, role: 'assistant', text: 'We will refund you' },
    ], transcript);
    expect(r.kept).toEqual([{ turn: 0, role: 'assistant', text: 'Hello' }]);
    expect(r.dropped).toEqual(['not found in turn 0']);
  });
});

describe('droppedNote', () => {
  it('names what was dropped', () => {
    expect(droppedNote([])).toBeNull();
    expect(droppedNote(['not found in turn 3'])).toBe('1 quote dropped: not found in turn 3');
    expect(droppedNote(['not found in turn 3', 'turn 9 does not exist'])).toBe('2 quotes dropped: not found in turn 3; turn 9 does not exist');
  });
});

describe('normalizeForQuote', () => {
  it('changes only whitespace and typographic quotes', () => {
    expect(normalizeForQuote(' \u2018a\u2019  \u201Cb\u201D\n\tc ')).toBe('\'a\' "b" c');
    expect(normalizeForQuote('Case, Punctuation!')).toBe('Case, Punctuation!');
  });
});
