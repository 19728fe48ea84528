import type { Clock } from '../lib/clock.js';
import type { LagProbe } from '../lib/loop-lag.js';
import { createLlmClient, type LlmClient } from '../lib/llm-client.js';
import { conversationTimeoutMs, type ProviderAdapter, type ProviderSession } from './provider.js';
import { linkDeadline, raceAbort, runConversation } from './conversation.js';
import { gradeTranscript, type GradeResult } from './judge/grade.js';
import { JUDGE_PROMPT_VERSION } from './judge/llm.js';
import { DEFAULT_CONFIRMATIONS } from './judge/votes.js';
import { conversationMetrics } from './metrics.js';
import { decideOutcome, type EndReason, type FailureEvent, type ScenarioOutcome } from './outcome.js';
import { scoreCriteria } from './scoring.js';
import { createLlmTester } from './tester/llm.js';
import { createScriptedTester } from './tester/scripted.js';
import type { Tester } from './tester/types.js';
import type { AgentTools, CriterionResult, ScenarioMetrics, ScenarioSpec, TranscriptEntry } from './types.js';

export { NO_TESTER_MESSAGE } from './outcome.js';

export const DEFAULT_JUDGE_TIMEOUT_MS = 120_000;

export interface LlmSettings {
  baseUrl?: string | null;
  apiKey?: string | null;
  testerModel?: string | null;
  judgeModel?: string | null;
  /** `<provider>/<model>` of the caller in calls the platform runs itself (Vapi `mode: "call"`). */
  voiceTesterModel?: string | null;
  /** Extra judge calls that may confirm a NOT_MET or PARTIAL; default 2, 0 = off. */
  judgeConfirmations?: number;
  /** A shared client for the endpoint (one per process is enough); built from baseUrl/apiKey otherwise. */
  client?: LlmClient;
}

export interface RunScenarioOptions {
  scenario: ScenarioSpec;
  /** The run's max_turns; the scenario's own max_turns caps it. */
  maxTurns: number;
  adapter: ProviderAdapter;
  config: unknown;
  llm: LlmSettings;
  clock: Clock;
  signal: AbortSignal;
  onEntry?: (entry: TranscriptEntry, index: number) => Promise<void> | void;
  /** Called once the conversation is over and grading starts (the scenario run's `grading` state). */
  onGrading?: () => Promise<void> | void;
  ids: { runId: string; scenarioRunId: string };
  judgeTimeoutMs?: number;
  /** The agent's tool names and aliases, which tool checks resolve their names through. */
  tools?: AgentTools;
  /** This thread's event-loop lag, the uncertainty of reply latencies timed here. */
  lag?: LagProbe;
  onReplyTimed?: (uncertaintyMs: number) => void;
}

export interface ScenarioRunResult {
  /** What became of the scenario run; status, error_message, fatal and end_reason below are read from it. */
  outcome: ScenarioOutcome;
  status: 'passed' | 'failed' | 'error';
  passed: boolean | null;
  /** Null when the scenario was not graded (the conversation or the judge failed). */
  grade_summary: string | null;
  score: number | null;
  criteria_results: CriterionResult[];
  transcript: TranscriptEntry[];
  error_message: string | null;
  duration_ms: number;
  metrics: ScenarioMetrics;
  turn_durations_ms: number[];
  tester_model: string | null;
  judge_model: string | null;
  /** Digest of the judge prompt template; null when no judge model was configured. */
  judge_prompt_version: string | null;
  end_reason: EndReason | null;
  /** Assistant entries with content or a tool call; null when no conversation took place. */
  agent_turns: number | null;
  /** Σ max_points of decided criteria / Σ max_points; null when not graded. */
  decided_share: number | null;
  fatal: 'invalid_credentials' | null;
  /** How much our own lag could have inflated a reply latency of the conversation (ms); 0 without one. */
  timing_uncertainty_ms: number;
}

/** Assistant entries with non-empty content or a tool call. */
export const agentTurns = (t: readonly TranscriptEntry[]) =>
  t.filter((e) => e.role === 'assistant' && (e.content.trim() !== '' || (e.tool_calls?.length ?? 0) > 0)).length;

const NO_METRICS: ScenarioMetrics = { time_to_first_response_ms: null, average_turn_duration_ms: null, total_duration_ms: null, cost_usd: null, turn_count: 0 };

/** The result of a scenario run that never got to a conversation (it failed before runScenario could start one). */
export function resultWithoutConversation(outcome: ScenarioOutcome, durationMs: number): ScenarioRunResult {
  return {
    outcome, status: outcome.status, passed: null, grade_summary: null, score: null, criteria_results: [], transcript: [],
    error_message: outcome.message, duration_ms: Math.max(0, durationMs), metrics: NO_METRICS,
    turn_durations_ms: [], tester_model: null, judge_model: null, judge_prompt_version: null, end_reason: outcome.end_reason, fatal: outcome.fatal,
    timing_uncertainty_ms: 0,
    agent_turns: null, decided_share: null,
  };
}

export async function runScenario(opts: RunScenarioOptions): Promise<ScenarioRunResult> {
  const { scenario, clock, signal, llm } = opts;
  const t0 = clock.now();
  const hasEndpoint = Boolean(llm.client || llm.baseUrl);
  let testerModel = hasEndpoint && llm.testerModel ? llm.testerModel : null;
  const judgeModel = hasEndpoint && llm.judgeModel ? llm.judgeModel : null;
  const maxTurns = scenario.max_turns ? Math.min(opts.maxTurns, scenario.max_turns) : opts.maxTurns;

  let transcript: TranscriptEntry[] = [];
  let durations: number[] = [];
  let conversationMs: number | null = null;
  let cost: number | null = null;
  let uncertainty = 0;
  let endReason: EndReason | null = null;
  let conversed = false;

  const finish = (outcome: ScenarioOutcome, r: Partial<Pick<ScenarioRunResult, 'passed' | 'grade_summary' | 'score' | 'criteria_results' | 'decided_share'>> = {}): ScenarioRunResult => ({
    passed: null,
    grade_summary: null,
    score: null,
    criteria_results: [],
    decided_share: null,
    ...r,
    outcome,
    status: outcome.status,
    error_message: outcome.message,
    fatal: outcome.fatal,
    transcript,
    duration_ms: clock.now() - t0,
    metrics: conversationMetrics({ transcript, durationMs: conversationMs, costUsd: cost }),
    turn_durations_ms: durations,
    tester_model: testerModel,
    judge_model: judgeModel,
    judge_prompt_version: judgeModel ? JUDGE_PROMPT_VERSION : null,
    end_reason: endReason,
    agent_turns: conversed ? agentTurns(transcript) : null,
    timing_uncertainty_ms: uncertainty,
  });
  const fail = (e: FailureEvent, criteria_results: CriterionResult[] = []) => finish(decideOutcome(e, endReason), { criteria_results });

  try {
    if (signal.aborted) return fail({ event: 'canceled' });
    if (!testerModel && scenario.script.length === 0) return fail({ event: 'no_tester' });
    const client = llm.client ?? (llm.baseUrl && (testerModel || judgeModel) ? createLlmClient({ baseUrl: llm.baseUrl, apiKey: llm.apiKey, clock }) : null);
    const tester: Tester = testerModel && client ? createLlmTester({ client, model: testerModel, scenario }) : createScriptedTester(scenario.script);

    // Opening the session counts against the same budget as the conversation it starts.
    const timeoutMs = conversationTimeoutMs(opts.config);
    const openDeadline = linkDeadline(signal, timeoutMs, clock, `timeout: opening the session exceeded ${timeoutMs} ms`);
    let session: ProviderSession;
    try {
      const opening = opts.adapter.openSession({
        config: opts.config, scenario, ...opts.ids, signal: openDeadline.signal, clock, maxTurns, voiceTesterModel: llm.voiceTesterModel ?? undefined,
      });
      // A session that opens after we gave up must still be ended at the provider.
      opening.then(
        (s) => (openDeadline.signal.aborted ? s.close(signal.aborted ? 'canceled' : 'error').catch(() => undefined) : undefined),
        () => undefined,
      );
      session = await raceAbort(opening, openDeadline.signal);
    } catch (err) {
      if (signal.aborted) return fail({ event: 'canceled' });
      if (openDeadline.timedOut()) return fail({ event: 'timeout', phase: 'session_open', ms: timeoutMs });
      return fail({ event: 'thrown', error: err });
    } finally {
      openDeadline.dispose();
    }

    // a caller the platform plays itself is what produced the caller's lines
    if (session.testerModel) testerModel = session.testerModel;
    const conv = await runConversation({ session, tester, maxTurns, timeoutMs, clock, signal, lag: opts.lag, onReplyTimed: opts.onReplyTimed, onEntry: opts.onEntry });
    uncertainty = conv.timing_uncertainty_ms;
    transcript = conv.transcript;
    durations = conv.turn_durations_ms;
    conversationMs = conv.duration_ms;
    cost = conv.cost_usd;
    endReason = conv.end_reason;
    conversed = true;
    if (conv.error) return finish(conv.error);
    // the platform's own record says the call ran out of time (a call the platform ran as one step)
    if (endReason === 'timeout') return fail({ event: 'timeout', phase: 'conversation', ms: timeoutMs });
    // no reply, no grade: "never does X" is vacuously true of silence
    if (agentTurns(transcript) === 0) {
      const callerMessages = transcript.filter((e) => e.role === 'user').length;
      return fail({ event: 'silent', caller_messages: callerMessages, tester_ended: endReason === 'tester_ended' });
    }

    await opts.onGrading?.();
    const confirmations = llm.judgeConfirmations ?? DEFAULT_CONFIRMATIONS;
    // Confirmations are calls made one after another: each gets the budget one call had.
    const judgeTimeoutMs = opts.judgeTimeoutMs ?? DEFAULT_JUDGE_TIMEOUT_MS * (1 + confirmations);
    const gradeDeadline = linkDeadline(signal, judgeTimeoutMs, clock, `judge: no answer within ${judgeTimeoutMs} ms`);
    let graded: GradeResult;
    try {
      graded = await raceAbort(
        gradeTranscript({
          criteria: scenario.criteria,
          transcript,
          judge: judgeModel && client ? { client, model: judgeModel, confirmations } : null,
          signal: gradeDeadline.signal,
          context: {
            persona: scenario.persona, goal: scenario.goal, instructions: scenario.instructions, llmTester: Boolean(testerModel),
            endReason, maxTurns, linesLeft: testerModel ? null : Math.max(0, scenario.script.length - transcript.filter((e) => e.role === 'user').length),
          },
          tools: opts.tools,
        }),
        gradeDeadline.signal,
      );
    } catch (err) {
      if (signal.aborted) return fail({ event: 'canceled' });
      if (gradeDeadline.timedOut()) return fail({ event: 'timeout', phase: 'judge', ms: judgeTimeoutMs });
      throw err;
    } finally {
      gradeDeadline.dispose();
    }
    if (graded.error) return fail({ event: 'thrown', error: graded.error }, graded.results);
    // a caller that drifted from its brief says nothing about the agent: a tester fault, attempted again
    if (graded.caller && !graded.caller.followed_brief) return fail({ event: 'caller_left_brief', note: graded.caller.note }, graded.results);

    const score = scoreCriteria(graded.results, scenario.pass_threshold);
    const linesLeft = tester.remaining?.() ?? Math.max(0, scenario.script.length - transcript.filter((e) => e.role === 'user').length);
    const cutOff = endReason === 'max_turns' ? { max_turns: maxTurns, lines_left: linesLeft } : undefined;
    const noJudge = !(judgeModel && client);
    return finish(decideOutcome({ event: 'graded', score, cut_off: cutOff, no_judge: noJudge }, endReason), {
      passed: score.status === 'error' ? null : score.passed,
      grade_summary: score.grade_summary,
      score: score.score,
      criteria_results: graded.results,
      decided_share: score.decided_share,
    });
  } catch (err) {
    if (signal.aborted) return fail({ event: 'canceled' });
    return fail({ event: 'thrown', error: err });
  }
}
