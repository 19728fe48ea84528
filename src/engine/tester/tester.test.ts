import { describe, expect, it } from 'vitest';
import { LlmError, type ChatRequest, type LlmClient } from '../../lib/llm-client.js';
import type { ScenarioSpec, TranscriptEntry } from '../types.js';
import { createLlmTester, END_CALL } from './llm.js';
import { createScriptedTester } from './scripted.js';

const signal = new AbortController().signal;
const ts = '2026-11-21T15:07:08.346Z';
const u = (content: string): TranscriptEntry => ({ role: 'user', content, timestamp: ts });
const a = (content: string): TranscriptEntry => ({ role: 'assistant', content, timestamp: ts, latency_ms: 5 });

const scenario = (over: Partial<ScenarioSpec> = {}): ScenarioSpec => ({
  id: 's', name: 'Reschedule', persona: 'Dana, 42, busy nurse', goal: 'Move the appointment to Friday',
  instructions: 'Be brief.', opening_message: null, script: [], criteria: [], pass_threshold: 0.75, max_turns: null, ...over,
});

function stubClient(answers: (string | Error)[]) {
  const requests: ChatRequest[] = [];
  const client: LlmClient = {
    async chat(req) {
      requests.push(req);
      const next = answers.shift();
      if (next instanceof Error) throw next;
      return { content: next ?? '', tool_calls: [], usage: null, finish_reason: 'stop' };
    },
  };
  return { client, requests };
}

describe('scripted tester', () => {
  it('plays the lines in order and ends when exhausted', async () => {
    const t = createScriptedTester(['one', 'two']);
    expect(t.model).toBeNull();
    expect(await t.next([], signal)).toEqual({ kind: 'message', content: 'one' });
    expect(await t.next([], signal)).toEqual({ kind: 'message', content: 'two' });
    expect(await t.next([], signal)).toEqual({ kind: 'end', reason: 'script exhausted' });
  });
});

describe('llm tester', () => {
  it('briefs the model with the scenario and flips the roles', async () => {
    const { client, requests } = stubClient(['I need Friday instead.']);
    const t = createLlmTester({ client, model: 'tester-m', scenario: scenario() });
    const turn = await t.next([a('Acme clinic, how can I help?')], signal);
    expect(turn).toEqual({ kind: 'message', content: 'I need Friday instead.' });
    const [req] = requests;
    expect(req.model).toBe('tester-m');
    expect(req.messages[0].role).toBe('system');
    expect(req.messages[0].content).toContain('Dana, 42, busy nurse');
    expect(req.messages[0].content).toContain('Move the appointment to Friday');
    expect(req.messages[0].content).toContain(END_CALL);
    expect(req.messages.slice(1)).toEqual([{ role: 'user', content: 'Acme clinic, how can I help?' }]);
  });

  it('asks the model to open when the agent did not greet, and maps its own past lines to assistant', async () => {
    const { client, requests } = stubClient(['Hello?', 'Friday please.']);
    const t = createLlmTester({ client, model: 'm', scenario: scenario() });
    await t.next([], signal);
    expect(requests[0].messages.slice(1).map((m) => m.role)).toEqual(['user']);
    await t.next([u('Hello?'), a('Hi, who is this?')], signal);
    expect(requests[1].messages.slice(1).map((m) => [m.role, m.content])).toEqual([
      ['user', '(The call connects. You speak first.)'],
      ['assistant', 'Hello?'],
      ['user', 'Hi, who is this?'],
    ]);
  });

  it('uses the opening message verbatim without calling the model', async () => {
    const { client, requests } = stubClient([]);
    const t = createLlmTester({ client, model: 'm', scenario: scenario({ opening_message: 'Hi, it is Dana.' }) });
    expect(await t.next([], signal)).toEqual({ kind: 'message', content: 'Hi, it is Dana.' });
    expect(requests).toHaveLength(0);
  });

  it('ends on the sentinel, saying the last words first', async () => {
    const { client, requests } = stubClient([`Great, thanks, bye! ${END_CALL}`]);
    const t = createLlmTester({ client, model: 'm', scenario: scenario() });
    const history = [u('Friday?'), a('Done, Friday at 10.')];
    expect(await t.next(history, signal)).toEqual({ kind: 'message', content: 'Great, thanks, bye!' });
    expect(await t.next([...history, u('Great, thanks, bye!'), a('Bye!')], signal)).toEqual({ kind: 'end', reason: 'tester ended the call' });
    expect(requests).toHaveLength(1);
  });

  it('ends at once on a bare sentinel once the agent has replied', async () => {
    const { client } = stubClient(['[end_call]']);
    const t = createLlmTester({ client, model: 'm', scenario: scenario() });
    expect(await t.next([u('Friday?'), a('Done.')], signal)).toEqual({ kind: 'end', reason: 'tester ended the call' });
  });

  it('refuses to end before the agent replied', async () => {
    const { client } = stubClient([END_CALL]);
    const t = createLlmTester({ client, model: 'm', scenario: scenario() });
    await expect(t.next([a('Hello')], signal)).rejects.toThrow(/^tester: ended the conversation before the agent replied/);
  });

  it('drops a caller label but rejects a role flip or leaked reasoning', async () => {
    const { client } = stubClient(['Caller: Friday works.', 'How can I help you today?', '<think>hmm</think> ok']);
    const t = createLlmTester({ client, model: 'm', scenario: scenario() });
    const h = [u('x'), a('y')];
    expect(await t.next(h, signal)).toEqual({ kind: 'message', content: 'Friday works.' });
    await expect(t.next(h, signal)).rejects.toThrow(/^tester: role flip/);
    await expect(t.next(h, signal)).rejects.toThrow(/^tester: leaked reasoning/);
  });

  it('prefixes endpoint failures with tester:', async () => {
    const { client } = stubClient([new LlmError('rate_limited', 'You exceeded your current quota', { status: 429 })]);
    const t = createLlmTester({ client, model: 'm', scenario: scenario() });
    await expect(t.next([], signal)).rejects.toThrow('tester: 429 You exceeded your current quota');
  });
});
