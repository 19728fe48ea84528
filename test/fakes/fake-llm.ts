import { startFakeOpenAi, type ChatBody, type FakeOpenAiServer, type FakeReply, type RecordedRequest, type WireMessage } from './openai-agent.js';

// The endpoint behind REHEARSAL_LLM_BASE_URL: one Chat Completions server that plays both the simulated
// tester and the judge, told apart by `model`, as a real shared endpoint would be.

export interface JudgePromptView {
  /** The criteria in the order shown (ids stay the criteria's own). */
  criteria: { id: number; text: string }[];
  /** Each transcript entry as shown to the judge: `text` is its first content line, `content` all of it. */
  transcript: { turn: number; role: 'user' | 'assistant'; text: string; content: string; tools: string[] }[];
  /** The per-call token the system prompt names; only lines carrying it start an entry or a tool call. */
  token: string;
  /** The `end_reason:` and `agent_turns:` lines, and the scenario's persona and goal. */
  endReason: string;
  agentTurns: number;
  persona: string;
  goal: string;
}

export interface JudgeView extends JudgePromptView {
  messages: WireMessage[];
  /** 1 for the first request of a judge call, 2 for the retry after an invalid answer. */
  attempt: number;
  /** The answer schema asks for caller_followed_brief (an LLM played the caller). */
  asksCaller: boolean;
}

/** An object is sent as JSON; a string is sent as the raw message content (for invalid output). */
export type JudgeFn = (view: JudgeView) => unknown;
export type TesterFn = (messages: WireMessage[], body: ChatBody) => string | FakeReply;

export interface FakeLlmOptions {
  testerModel?: string;
  judgeModel?: string;
  tester?: TesterFn;
  judge?: JudgeFn;
  apiKey?: string | null;
  latencyMs?: number;
}

export interface FakeLlm {
  baseUrl: string;
  apiKey: string | null;
  testerModel: string;
  judgeModel: string;
  server: FakeOpenAiServer;
  testerCalls(): RecordedRequest[];
  judgeCalls(): RecordedRequest[];
  setTester(fn: TesterFn): void;
  setJudge(fn: JudgeFn): void;
  close(): Promise<void>;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Reads our judge prompt back the way an obedient model would: the token from the system prompt, then only
 * lines carrying it start an entry (`<<entry TOKEN #n role>>`) or a tool call (`<<tool TOKEN>> …`).
 */
export function parseJudgePrompt(messages: WireMessage[]): JudgePromptView {
  const system = messages.find((m) => m.role === 'system')?.content ?? '';
  const prompt = messages.find((m) => m.role === 'user')?.content ?? '';
  const token = /Only lines carrying the token ([0-9a-f]+) /.exec(system)?.[1] ?? '';
  const criteriaBlock = /<criteria>([\s\S]*?)<\/criteria>/.exec(prompt)?.[1] ?? '';
  const criteria = [...criteriaBlock.matchAll(/<criterion id="(\d+)">([\s\S]*?)<\/criterion>/g)].map((m) => ({ id: Number(m[1]), text: m[2] }));
  const transcriptBlock = /<transcript>\n([\s\S]*)\n<\/transcript>$/.exec(prompt)?.[1] ?? '';
  const header = new RegExp(`^<<entry ${escapeRe(token)} #(\\d+) (user|assistant)>>$`);
  const tool = `<<tool ${token}>> `;
  const transcript: JudgePromptView['transcript'] = [];
  const lines: string[] = [];
  const close = () => {
    const last = transcript.at(-1);
    if (last) {
      last.content = lines.join('\n');
      last.text = lines[0] ?? '';
    }
    lines.length = 0;
  };
  for (const line of token ? transcriptBlock.split('\n') : []) {
    const h = header.exec(line);
    if (h) {
      close();
      transcript.push({ turn: Number(h[1]), role: h[2] as 'user' | 'assistant', text: '', content: '', tools: [] });
    } else if (line.startsWith(tool) && transcript.length > 0) {
      transcript.at(-1)!.tools.push(line.slice(tool.length));
    } else {
      lines.push(line);
    }
  }
  close();
  const field = (name: string) => new RegExp(`^${name}: (.*)$`, 'm').exec(prompt)?.[1] ?? '';
  return { criteria, transcript, token, endReason: field('end_reason'), agentTurns: Number(field('agent_turns')), persona: field('persona'), goal: field('goal') };
}

const asksForCaller = (body: ChatBody) =>
  JSON.stringify((body.response_format as { json_schema?: { schema?: unknown } } | undefined)?.json_schema?.schema ?? {}).includes('"caller_followed_brief"');

/** Every criterion MET, citing the first few words of the agent's first non-empty line, verbatim. */
export function defaultJudge(view: JudgePromptView & { asksCaller?: boolean }) {
  const line = view.transcript.find((t) => t.role === 'assistant' && t.text.trim()) ?? view.transcript.find((t) => t.text.trim());
  const evidence = line ? [{ turn: line.turn, role: line.role, text: line.text.split(' ').slice(0, 6).join(' ') }] : [];
  const results = view.criteria.map((c) => ({ id: c.id, rationale: `The transcript shows: ${c.text}`, evidence, decision: 'MET' }));
  return view.asksCaller ? { results, caller_note: 'The caller kept to its brief.', caller_followed_brief: true } : { results };
}

export const defaultTester: TesterFn = (messages) => `Caller line ${messages.filter((m) => m.role === 'assistant').length + 1}`;

export async function startFakeLlm(opts: FakeLlmOptions = {}): Promise<FakeLlm> {
  const testerModel = opts.testerModel ?? 'fake-tester';
  const judgeModel = opts.judgeModel ?? 'fake-judge';
  let tester = opts.tester ?? defaultTester;
  let judge: JudgeFn = opts.judge ?? defaultJudge;
  const server = await startFakeOpenAi({
    apiKey: opts.apiKey === undefined ? 'sk-llm' : opts.apiKey,
    latencyMs: opts.latencyMs,
    reply: (messages, body) => {
      if (body.model === testerModel) return tester(messages, body);
      if (body.model === judgeModel) {
        const attempt = messages.filter((m) => m.role === 'user').length;
        const out = judge({ ...parseJudgePrompt(messages), messages, attempt, asksCaller: asksForCaller(body) });
        return typeof out === 'string' ? out : JSON.stringify(out);
      }
      throw new Error(`unknown model ${body.model}`);
    },
  });
  const byModel = (model: string) => () => server.chatRequests().filter((r) => r.body?.model === model);
  return {
    baseUrl: server.baseUrl,
    apiKey: server.apiKey,
    testerModel,
    judgeModel,
    server,
    testerCalls: byModel(testerModel),
    judgeCalls: byModel(judgeModel),
    setTester: (fn) => {
      tester = fn;
    },
    setJudge: (fn) => {
      judge = fn;
    },
    close: () => server.close(),
  };
}
