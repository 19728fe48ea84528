import { randomBytes } from 'node:crypto';
import { startChatServer, type WireRequest } from './openai-wire.js';
import { DEMO_JUDGE_RULES } from './demo-judge-rules.js';

// The demo's stand-in for an LLM judge: when no REHEARSAL_LLM_* endpoint is configured, `rehearsal demo`
// points the service's judge at this local endpoint so the built-in scenarios' judge criteria get decided
// instead of staying UNSURE (a required UNSURE criterion fails its scenario, which would make the demo
// meaningless). It answers the real judge protocol (criteria + transcript in, schema-shaped JSON out) with
// keyword rules written for the 20 demo scenarios; its quotes go through the same verbatim verification.
// Every scenario run names it as judge_model, so nobody mistakes it for a model.

export const DEMO_JUDGE_MODEL = 'rehearsal-demo-judge (rule-based, no LLM)';

export interface Entry {
  turn: number;
  role: 'user' | 'assistant';
  text: string;
}

export interface Verdict {
  decision: 'MET' | 'PARTIAL' | 'NOT_MET' | 'UNSURE';
  rationale: string;
  evidence: { turn: number; role: 'user' | 'assistant'; text: string }[];
}

export interface JudgeRule {
  /** A distinctive, lower-case piece of the criterion's text. */
  match: string;
  grade(transcript: Entry[]): Verdict;
}

/** Entries as rendered by the judge prompt: "[3] assistant: text" (tool calls follow on their own lines). */
export function parseTranscript(block: string): Entry[] {
  const out: Entry[] = [];
  const re = /^\[(\d+)\] (user|assistant): /gm;
  const heads = [...block.matchAll(re)];
  heads.forEach((h, i) => {
    const start = h.index! + h[0].length;
    const end = i + 1 < heads.length ? heads[i + 1].index! : block.length;
    out.push({ turn: Number(h[1]), role: h[2] as Entry['role'], text: block.slice(start, end).replace(/\n+$/, '') });
  });
  return out;
}

export function parseJudgePrompt(content: string): { criteria: string[]; transcript: Entry[] } {
  const criteria = [...content.matchAll(/<criterion id="\d+">([\s\S]*?)<\/criterion>/g)].map((m) => m[1]);
  const t = /<transcript>\n([\s\S]*)\n<\/transcript>/.exec(content);
  return { criteria, transcript: parseTranscript(t?.[1] ?? '') };
}

export function gradeCriteria(criteria: string[], transcript: Entry[]): Verdict[] {
  return criteria.map((c) => {
    const rule = DEMO_JUDGE_RULES.find((r) => c.toLowerCase().includes(r.match));
    return rule ? rule.grade(transcript) : { decision: 'UNSURE', rationale: 'the rule-based demo judge has no rule for this criterion', evidence: [] };
  });
}

export function completeJudge(req: WireRequest): { content: string } {
  const prompt = [...req.messages].reverse().find((m) => m.role === 'user' && m.content?.includes('<criteria>'));
  const { criteria, transcript } = parseJudgePrompt(prompt?.content ?? '');
  const verdicts = gradeCriteria(criteria, transcript);
  return { content: JSON.stringify({ results: verdicts.map((v, i) => ({ id: i + 1, ...v })) }) };
}

export interface DemoJudge {
  baseUrl: string;
  apiKey: string;
  model: string;
  close(): Promise<void>;
}

export async function startDemoJudge(): Promise<DemoJudge> {
  const apiKey = `sk-demo-judge-${randomBytes(12).toString('hex')}`;
  const server = await startChatServer({ apiKey, models: [DEMO_JUDGE_MODEL], complete: completeJudge });
  return { baseUrl: server.baseUrl, apiKey, model: DEMO_JUDGE_MODEL, close: server.close };
}
