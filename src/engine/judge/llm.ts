import { Value } from '@sinclair/typebox/value';
import type { ChatMessage, LlmClient } from '../../lib/llm-client.js';
import type { Criterion, CriterionResult, EvidenceQuote, TranscriptEntry } from '../types.js';
import { criterionResult } from './checks.js';
import { verifyQuotes } from './evidence.js';
import { buildJudgeMessages, JudgeVerdict, JudgeVerdictWithCaller, responseFormat, type JudgeContext } from './prompt.js';
import { newEntryToken } from './render.js';
import { confirmationOrder, DEFAULT_CONFIRMATIONS, settle, type Vote } from './votes.js';

export { JUDGE_PROMPT_VERSION, JudgeVerdict, JudgeVerdictWithCaller, toStrictJsonSchema, type JudgeContext } from './prompt.js';

/** A failure of the judge model; the message is what the scenario run's error_message shows. */
export class JudgeError extends Error {
  constructor(message: string, opts?: { cause?: unknown }) {
    super(`judge: ${message}`, opts);
    this.name = 'JudgeError';
  }
}

type Answer = JudgeVerdict & { caller_followed_brief?: boolean; caller_note?: string };

/** Returns the verdict, or why the output is unusable. */
export function parseVerdict(raw: string | null, count: number, asksCaller = false): { verdict: Answer } | { invalid: string } {
  if (raw === null || raw.trim() === '') return { invalid: 'empty answer' };
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return { invalid: 'not JSON' };
  }
  const schema = asksCaller ? JudgeVerdictWithCaller : JudgeVerdict;
  if (!Value.Check(schema, json)) {
    const e = Value.Errors(schema, json).First();
    return { invalid: `does not match the schema${e ? ` at ${e.path || '/'}: ${e.message}` : ''}` };
  }
  const seen = new Set<number>();
  for (const r of json.results) {
    if (r.id < 1 || r.id > count) return { invalid: `unknown criterion id ${r.id}` };
    if (seen.has(r.id)) return { invalid: `criterion ${r.id} graded twice` };
    seen.add(r.id);
  }
  if (seen.size !== count) {
    const missing = Array.from({ length: count }, (_, i) => i + 1).filter((id) => !seen.has(id));
    return { invalid: `criteria ${missing.join(', ')} not graded` };
  }
  return { verdict: json };
}

/** The judge's view of the simulated caller (LLM tester only). `followed_brief: false` is the tester's fault. */
export interface CallerJudgment {
  followed_brief: boolean;
  note: string;
}

export interface JudgeOptions {
  client: LlmClient;
  model: string;
  transcript: readonly TranscriptEntry[];
  /** Only the judge-graded criteria: deterministic ones never reach the model. */
  criteria: readonly Criterion[];
  signal: AbortSignal;
  /** Extra calls that may confirm a NOT_MET or PARTIAL (or replace invented evidence); default 2, 0 = off. */
  confirmations?: number;
  context?: JudgeContext;
}

export interface JudgeOutcome {
  /** One per criterion, in the order given. */
  results: CriterionResult[];
  /** Null unless `context.llmTester`. */
  caller: CallerJudgment | null;
  /** Judge calls that produced a usable answer. */
  calls: number;
}

interface Call {
  order: readonly number[];
  asksCaller: boolean;
}

/** One judge call (a fresh conversation carrying no earlier answer), with one retry on invalid output. */
async function ask(opts: JudgeOptions, call: Call): Promise<{ answer: Answer; token: string }> {
  const token = newEntryToken(opts.transcript);
  const context = opts.context ?? {};
  const messages: ChatMessage[] = buildJudgeMessages({ transcript: opts.transcript, criteria: opts.criteria, order: call.order, token, context, asksCaller: call.asksCaller });
  const response_format = responseFormat(call.asksCaller);
  let lastProblem = '';
  // Told what was wrong: a second blind sample tends to repeat the mistake.
  for (let attempt = 0; attempt < 2; attempt++) {
    let raw: string | null;
    try {
      raw = (await opts.client.chat({ model: opts.model, messages, response_format, temperature: 0, signal: opts.signal })).content;
    } catch (err) {
      if (opts.signal.aborted) throw err;
      throw new JudgeError(err instanceof Error ? err.message : String(err), { cause: err });
    }
    const parsed = parseVerdict(raw, opts.criteria.length, call.asksCaller);
    if ('verdict' in parsed) return { answer: parsed.verdict, token };
    lastProblem = parsed.invalid;
    messages.push(
      { role: 'assistant', content: raw ?? '' },
      { role: 'user', content: `That answer was invalid (${parsed.invalid}). Answer again with JSON matching the schema, one result for each criterion id 1 to ${opts.criteria.length}.` },
    );
  }
  throw new JudgeError(`invalid output (${lastProblem})`);
}

/** A quote copied with its marker (`<<tool …>> name(…)`) still counts: the marker is ours, not the transcript's. */
function unmark(q: EvidenceQuote, token: string): EvidenceQuote {
  const text = q.text.replace(new RegExp(`^\\s*<<(?:entry ${token} #\\d+ \\w+|tool ${token})>>\\s*`), '');
  return text === q.text ? q : { ...q, text };
}

function toVote(r: Answer['results'][number], token: string, transcript: readonly TranscriptEntry[]): Vote {
  const { kept, rejected } = verifyQuotes(r.evidence.map((q) => unmark(q, token)), transcript);
  return { decision: r.decision, rationale: r.rationale, kept, rejected };
}

/**
 * Grades the criteria with the judge model. Quotes are verified against the transcript; a NOT_MET or
 * PARTIAL is confirmed, and a decision resting only on invented quotes re-asked, by fresh calls that show
 * the criteria in another order, at most `confirmations` of them.
 */
export async function judgeCriteria(opts: JudgeOptions): Promise<JudgeOutcome> {
  const n = opts.criteria.length;
  if (n === 0) return { results: [], caller: null, calls: 0 };
  const confirmations = opts.confirmations ?? DEFAULT_CONFIRMATIONS;
  const asksCaller = opts.context?.llmTester === true;

  const first = await ask(opts, { order: opts.criteria.map((_, i) => i), asksCaller });
  const votes: Vote[][] = opts.criteria.map((_, i) => [toVote(first.answer.results.find((r) => r.id === i + 1)!, first.token, opts.transcript)]);
  let calls = 1;
  for (let round = 1; round <= confirmations; round++) {
    const open = votes.map((v, i) => (settle(v, confirmations) === 'ask' ? i : -1)).filter((i) => i >= 0);
    if (open.length === 0) break;
    const { answer, token } = await ask(opts, { order: confirmationOrder(n, round), asksCaller: false });
    calls++;
    for (const i of open) votes[i].push(toVote(answer.results.find((r) => r.id === i + 1)!, token, opts.transcript));
  }

  const results = opts.criteria.map((c, i) => {
    const s = settle(votes[i], confirmations);
    // Unreachable: every criterion still asking had a call in every round, and rounds stop at the budget.
    if (s === 'ask') throw new Error('judge: a criterion was left unsettled');
    return { ...criterionResult(c, s.decision, s.rationale, s.evidence, 'judge'), votes: s.votes, rejected_quotes: s.rejected_quotes };
  });
  const caller = asksCaller ? { followed_brief: first.answer.caller_followed_brief!, note: first.answer.caller_note!.trim() } : null;
  return { results, caller, calls };
}
