import type { LlmClient } from '../../lib/llm-client.js';
import type { AgentTools, Check, Criterion, CriterionResult, TranscriptEntry } from '../types.js';
import { criterionResult, runCheck } from './checks.js';
import { JudgeError, judgeCriteria, type CallerJudgment, type JudgeContext } from './llm.js';

export const NO_JUDGE_RATIONALE = 'no judge model configured';

export interface GradeOptions {
  criteria: readonly Criterion[];
  transcript: readonly TranscriptEntry[];
  judge: { client: LlmClient; model: string; confirmations?: number } | null;
  signal: AbortSignal;
  /** What the judge is told about the scenario and how the conversation ended. */
  context?: JudgeContext;
  /** The agent's tools, for tool checks; unknown when absent (those checks are then UNSURE unless called). */
  tools?: AgentTools;
}

export interface GradeResult {
  /** One result per criterion, in the template's order. */
  results: CriterionResult[];
  /** Set when the judge failed; its criteria are then UNSURE with the failure as rationale. */
  error: JudgeError | null;
  /**
   * The judge's view of the simulated caller: set only when an LLM played it (`context.llmTester`) and the
   * judge answered. `followed_brief: false` means the caller left its brief, so the outcome says nothing
   * about the agent.
   */
  caller: CallerJudgment | null;
}

const hasCheck = (c: Criterion): c is Criterion & { check: Check } => c.check !== null;
const unvoted = (r: CriterionResult): CriterionResult => ({ ...r, votes: [], rejected_quotes: [] });

export async function gradeTranscript(opts: GradeOptions): Promise<GradeResult> {
  const judged = opts.criteria.filter((c) => !hasCheck(c));
  let judgedResults: CriterionResult[];
  let error: JudgeError | null = null;
  let caller: CallerJudgment | null = null;
  if (judged.length === 0) {
    judgedResults = [];
  } else if (!opts.judge) {
    judgedResults = judged.map((c) => unvoted(criterionResult(c, 'UNSURE', NO_JUDGE_RATIONALE, [], 'judge')));
  } else {
    try {
      const outcome = await judgeCriteria({ ...opts.judge, transcript: opts.transcript, criteria: judged, signal: opts.signal, context: opts.context });
      judgedResults = outcome.results;
      caller = outcome.caller;
    } catch (err) {
      if (!(err instanceof JudgeError)) throw err;
      error = err;
      judgedResults = judged.map((c) => unvoted(criterionResult(c, 'UNSURE', err.message, [], 'judge')));
    }
  }
  let j = 0;
  const results = opts.criteria.map((c) => {
    if (!hasCheck(c)) return judgedResults[j++];
    // A deterministic check is never re-asked: its one decision is its one vote.
    const r = runCheck(c, opts.transcript, opts.tools);
    return { ...r, votes: [r.decision], rejected_quotes: [] };
  });
  return { results, error, caller };
}
