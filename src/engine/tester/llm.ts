import type { ChatMessage, LlmClient } from '../../lib/llm-client.js';
import type { ScenarioSpec, TranscriptEntry } from '../types.js';
import { checkTesterEnd, checkTesterMessage } from './guards.js';
import { TesterError, type Tester, type TesterTurn } from './types.js';

/** What the model answers to hang up. Text before it is said first; the call ends on the next turn. */
export const END_CALL = '[END_CALL]';
const END_CALL_RE = /\[\s*end[_ ]call\s*\]/i;
// Models often label their line although told not to; a caller label is harmless, so it is dropped.
const CALLER_LABEL_RE = /^\s*(caller|customer|user|me)\s*:\s*/i;

export interface LlmTesterOptions {
  client: LlmClient;
  model: string;
  scenario: ScenarioSpec;
  temperature?: number;
  maxCompletionTokens?: number;
}

export function buildTesterSystemPrompt(s: ScenarioSpec): string {
  const lines = [
    "You are role-playing a person who is calling a company's agent. You are the caller, never the agent.",
  ];
  if (s.persona) lines.push(`\nWho you are: ${s.persona}`);
  if (s.goal) lines.push(`\nYour goal in this call: ${s.goal}`);
  if (s.instructions) lines.push(`\nHow to behave: ${s.instructions}`);
  lines.push(
    '\nRules:',
    '- Write only what you say next, as the caller: one short, natural message in the first person.',
    '- No labels, no stage directions, no notes, no reasoning.',
    '- Never offer help, never act as the agent, never mention a test, a simulation, or being an AI.',
    "- Respond to what the agent just said; keep the caller's facts consistent.",
    `- When your goal is reached, or clearly cannot be reached, end the call: write your last words, then ${END_CALL}.`,
  );
  return lines.join('\n');
}

/** The model plays the caller, so the roles flip: the agent's lines are its "user" input. */
export function toTesterMessages(system: string, transcript: readonly TranscriptEntry[]): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: 'system', content: system }];
  if (transcript.length === 0 || transcript[0].role === 'user') {
    messages.push({ role: 'user', content: '(The call connects. You speak first.)' });
  }
  for (const e of transcript) {
    if (e.role === 'assistant') messages.push({ role: 'user', content: e.content.trim() || '(the agent says nothing)' });
    else messages.push({ role: 'assistant', content: e.content });
  }
  return messages;
}

export function createLlmTester(opts: LlmTesterOptions): Tester {
  const system = buildTesterSystemPrompt(opts.scenario);
  let spoke = false;
  let endAfterReply = false;

  return {
    model: opts.model,
    async next(transcript, signal): Promise<TesterTurn> {
      if (endAfterReply) {
        checkTesterEnd(transcript);
        return { kind: 'end', reason: 'tester ended the call' };
      }
      if (!spoke && opts.scenario.opening_message) {
        spoke = true;
        return { kind: 'message', content: opts.scenario.opening_message };
      }
      let content: string;
      try {
        const res = await opts.client.chat({
          model: opts.model,
          messages: toTesterMessages(system, transcript),
          temperature: opts.temperature ?? 0.7,
          max_completion_tokens: opts.maxCompletionTokens ?? 300,
          signal,
        });
        content = res.content ?? '';
      } catch (err) {
        if (signal.aborted) throw err;
        throw new TesterError(err instanceof Error ? err.message : String(err), { cause: err });
      }
      const end = END_CALL_RE.exec(content);
      const said = (end ? content.slice(0, end.index) : content).replace(CALLER_LABEL_RE, '').trim();
      if (end && said === '') {
        checkTesterEnd(transcript);
        return { kind: 'end', reason: 'tester ended the call' };
      }
      checkTesterMessage(said);
      spoke = true;
      if (end) endAfterReply = true;
      return { kind: 'message', content: said };
    },
  };
}
