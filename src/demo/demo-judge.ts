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
  /** What was said: the entry's content, without its tool calls. */
  text: string;
  /** Its tool calls as shown, `name(arguments) → result`. */
  tools: string[];
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

/**
 * Entries as the judge prompt renders them: a `<<entry TOKEN #3 assistant>>` header, the content verbatim,
 * then `<<tool TOKEN>> …` lines. Only lines carrying the call's token count, as the system prompt says.
 */
export function parseTranscript(block: string, token: string): Entry[] {
  const out: Entry[] = [];
  const header = /^<<entry ([0-9a-f]+) #(\d+) (user|assistant)>>$/;
  const tool = `<<tool ${token}>> `;
  let lines: string[] = [];
  const close = () => {
    if (out.length > 0) out[out.length - 1].text = lines.join('\n').replace(/\n+$/, '');
    lines = [];
  };
  for (const line of block.split('\n')) {
    const h = header.exec(line);
    if (h && h[1] === token) {
      close();
      out.push({ turn: Number(h[2]), role: h[3] as Entry['role'], text: '', tools: [] });
    } else if (line.startsWith(tool) && out.length > 0) {
      out[out.length - 1].tools.push(line.slice(tool.length));
    } else {
      lines.push(line);
    }
  }
  close();
  return out;
}

export function parseJudgePrompt(system: string, content: string): { criteria: { id: number; text: string }[]; transcript: Entry[] } {
  const token = /Only lines carrying the token ([0-9a-f]+) /.exec(system)?.[1] ?? '';
  const block = /<criteria>([\s\S]*?)<\/criteria>/.exec(content)?.[1] ?? '';
  const criteria = [...block.matchAll(/<criterion id="(\d+)">([\s\S]*?)<\/criterion>/g)].map((m) => ({ id: Number(m[1]), text: m[2] }));
  const t = /<transcript>\n([\s\S]*)\n<\/transcript>$/.exec(content);
  return { criteria, transcript: token ? parseTranscript(t?.[1] ?? '', token) : [] };
}

export function gradeCriteria(criteria: string[], transcript: Entry[]): Verdict[] {
  return criteria.map((c) => {
    const rule = DEMO_JUDGE_RULES.find((r) => c.toLowerCase().includes(r.match));
    return rule ? rule.grade(transcript) : { decision: 'UNSURE', rationale: 'the rule-based demo judge has no rule for this criterion', evidence: [] };
  });
}

export function completeJudge(req: WireRequest): { content: string } {
  const prompt = [...req.messages].reverse().find((m) => m.role === 'user' && m.content?.includes('<criteria>'));
  const system = req.messages.find((m) => m.role === 'system');
  const { criteria, transcript } = parseJudgePrompt(system?.content ?? '', prompt?.content ?? '');
  const verdicts = gradeCriteria(criteria.map((c) => c.text), transcript);
  const results = verdicts.map((v, i) => ({ id: criteria[i].id, rationale: v.rationale, evidence: v.evidence, decision: v.decision }));
  // Rules about the agent's replies cannot tell whether a simulated caller kept to its brief.
  const asksCaller = JSON.stringify(req.response_format ?? {}).includes('"caller_followed_brief"');
  const answer = asksCaller ? { results, caller_note: 'not assessed by the rule-based demo judge', caller_followed_brief: true } : { results };
  return { content: JSON.stringify(answer) };
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
