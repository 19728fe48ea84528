import type { TranscriptEntry } from '../types.js';
import { TesterError } from './types.js';

// Simulated callers fail in a few well-known ways; each one silently poisons the grade (the agent gets
// judged against a conversation no human would have), so we stop the scenario instead of grading it.
// The patterns favour precision: a false positive turns a good run into an error, so each one matches
// phrasing a caller would not use.

const ROLE_FLIP: [RegExp, string][] = [
  [/^\s*[*_]*\s*(agent|assistant|ai|bot|support|representative|receptionist)\s*[*_]*\s*:/i, 'speaks with an agent label'],
  [/\bhow (can|may|could) i (help|assist) you\b/i, 'offers help like the agent'],
  [/\bwhat can i do for you\b/i, 'offers help like the agent'],
  [/\bis there anything else (that )?i (can|could|may) (help|assist|do)\b/i, 'offers help like the agent'],
  [/\b(thank you|thanks) for (calling|contacting us)\b/i, 'thanks the caller like the agent'],
  [/\bi('d| would) be (happy|glad) to (help|assist) you\b/i, 'offers help like the agent'],
  [/\b(let me|i'll|i will) (look (that|this|it) up|check (that|this|it)) for you\b/i, 'offers service like the agent'],
];

const LEAKED_REASONING: [RegExp, string][] = [
  [/<\/?(think|thinking|reasoning|scratchpad)>/i, 'reasoning tags'],
  [/\bas an ai( language model| assistant)?\s*,/i, 'speaks as an AI'],
  [/\bas an ai (language model|assistant)\b/i, 'speaks as an AI'],
  [/\bas a (large )?language model\b/i, 'speaks as an AI'],
  [/\bi('m| am) (just |only )?an ai\b/i, 'speaks as an AI'],
  [/\bas the (simulated|simulation|role-?played|test|testing) (caller|user|customer|tester|persona)\b/i, 'mentions the simulation'],
  [/\b(simulated|role-?played) (caller|user|customer)\b/i, 'mentions the simulation'],
  [/\b(i am|i'm) (role-?playing|playing the role|simulating)\b/i, 'mentions the simulation'],
  [/\b(stay(ing)? in|break(ing)?|out of) character\b/i, 'mentions the simulation'],
  [/\bmy (persona|instructions|system prompt)\b/i, 'mentions its instructions'],
  [/^\s*[*_]*(thought|thoughts|thinking|reasoning|analysis|internal monologue|inner monologue|note to self)[*_]*\s*:/im, 'chain-of-thought marker'],
  [/\blet('s| me) think (this through|step by step|about (how|what) to (say|respond|reply))\b/i, 'chain-of-thought marker'],
  [/\bthe (agent|assistant)\b[^.?!]{0,80}, so i (should|will|need to)\b/i, 'reasons about the agent in the third person'],
  [/\bmy next (message|line|reply|response)\b/i, 'reasons about its own next message'],
];

export function detectEmpty(text: string): string | null {
  return text.trim() === '' ? 'sent an empty message' : null;
}

export function detectRoleFlip(text: string): string | null {
  for (const [re, why] of ROLE_FLIP) if (re.test(text)) return `role flip (${why})`;
  return null;
}

export function detectLeakedReasoning(text: string): string | null {
  for (const [re, why] of LEAKED_REASONING) if (re.test(text)) return `leaked reasoning (${why})`;
  return null;
}

const quoteOf = (text: string) => JSON.stringify(text.length > 120 ? `${text.slice(0, 120)}…` : text);

/** Throws a TesterError when a generated caller message shows one of the known failure modes. */
export function checkTesterMessage(text: string): void {
  const empty = detectEmpty(text);
  if (empty) throw new TesterError(empty);
  const problem = detectRoleFlip(text) ?? detectLeakedReasoning(text);
  if (problem) throw new TesterError(`${problem}: ${quoteOf(text)}`);
}

/** A caller that hangs up before the agent answered anything it said never tested the agent. */
export function checkTesterEnd(transcript: readonly TranscriptEntry[]): void {
  let askedAt = -1;
  for (let i = 0; i < transcript.length; i++) {
    if (transcript[i].role === 'user' && askedAt < 0) askedAt = i;
    else if (transcript[i].role === 'assistant' && askedAt >= 0) return;
  }
  throw new TesterError('ended the conversation before the agent replied');
}
