import { startFakeOpenAi, type ChatBody, type FakeOpenAiServer, type FakeReply, type RecordedRequest, type WireMessage } from './openai-agent.js';

// The endpoint behind REHEARSAL_LLM_BASE_URL: one Chat Completions server that plays both the simulated
// tester and the judge, told apart by `model`, as a real shared endpoint would be.

export interface JudgePromptView {
  criteria: { id: number; text: string }[];
  /** First line of each transcript entry as shown to the judge. */
  transcript: { turn: number; role: 'user' | 'assistant'; text: string }[];
}

export interface JudgeView extends JudgePromptView {
  messages: WireMessage[];
  /** 1 for the first request of a grading, 2 for the retry after an invalid answer. */
  attempt: number;
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

/** Reads our judge prompt back: the criteria block and the `[n] role: text` transcript lines. */
export function parseJudgePrompt(messages: WireMessage[]): JudgePromptView {
  const prompt = messages.find((m) => m.role === 'user')?.content ?? '';
  const criteriaBlock = /<criteria>([\s\S]*?)<\/criteria>/.exec(prompt)?.[1] ?? '';
  const criteria = [...criteriaBlock.matchAll(/<criterion id="(\d+)">([\s\S]*?)<\/criterion>/g)].map((m) => ({ id: Number(m[1]), text: m[2] }));
  const transcriptBlock = /<transcript>\n([\s\S]*)\n<\/transcript>/.exec(prompt)?.[1] ?? '';
  const transcript = [...transcriptBlock.matchAll(/^\[(\d+)\] (user|assistant): (.*)$/gm)].map((m) => ({
    turn: Number(m[1]),
    role: m[2] as 'user' | 'assistant',
    text: m[3],
  }));
  return { criteria, transcript };
}

/** Every criterion MET, citing the first few words of the agent's first non-empty line, verbatim. */
export function defaultJudge(view: JudgePromptView) {
  const line = view.transcript.find((t) => t.role === 'assistant' && t.text.trim()) ?? view.transcript.find((t) => t.text.trim());
  const evidence = line ? [{ turn: line.turn, role: line.role, text: line.text.split(' ').slice(0, 6).join(' ') }] : [];
  return {
    results: view.criteria.map((c) => ({ id: c.id, decision: 'MET', rationale: `The transcript shows: ${c.text}`, evidence })),
  };
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
        const out = judge({ ...parseJudgePrompt(messages), messages, attempt });
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
