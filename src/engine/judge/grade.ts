import type { LlmClient } from '../../lib/llm-client.js';
import type { Check, Criterion, CriterionResult, TranscriptEntry } from '../types.js';
import { criterionResult, runCheck } from './checks.js';
import { JudgeError, judgeCriteria } from './llm.js';

export const NO_JUDGE_RATIONALE = 'no judge model configured';

export interface GradeOptions {
  criteria: readonly Criterion[];
  transcript: readonly TranscriptEntry[];
  judge: { client: LlmClient; model: string } | null;
  signal: AbortSignal;
}

export interface GradeResult {
  /** One result per criterion, in the template's order. */
  results: CriterionResult[];
  /** Set when the judge failed; its criteria are then UNSURE with the failure as rationale. */
  error: JudgeError | null;
}

const hasCheck = (c: Criterion): c is Criterion & { check: Check } => c.check !== null;

export async function gradeTranscript(opts: GradeOptions): Promise<GradeResult> {
  const judged = opts.criteria.filter((c) => !hasCheck(c));
  let judgedResults: CriterionResult[];
  let error: JudgeError | null = null;
  if (judged.length === 0) {
    judgedResults = [];
  } else if (!opts.judge) {
    judgedResults = judged.map((c) => criterionResult(c, 'UNSURE', NO_JUDGE_RATIONALE, [], 'judge'));
  } else {
    try {
      judgedResults = await judgeCriteria({ ...opts.judge, transcript: opts.transcript, criteria: judged, signal: opts.signal });
    } catch (err) {
      if (!(err instanceof JudgeError)) throw err;
      error = err;
      judgedResults = judged.map((c) => criterionResult(c, 'UNSURE', err.message, [], 'judge'));
    }
  }
  let j = 0;
  const results = opts.criteria.map((c) => (hasCheck(c) ? runCheck(c, opts.transcript) : judgedResults[j++]));
  return { results, error };
}
