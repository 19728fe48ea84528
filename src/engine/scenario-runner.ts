import type { Clock } from '../lib/clock.js';
import { createLlmClient, type LlmClient } from '../lib/llm-client.js';
import { ProviderError, conversationTimeoutMs, type ProviderAdapter, type ProviderSession } from '../providers/types.js';
import { describeError, linkDeadline, raceAbort, RUN_CANCELED, runConversation, type EndReason } from './conversation.js';
import { gradeTranscript } from './judge/grade.js';
import { conversationMetrics } from './metrics.js';
import { scoreCriteria } from './scoring.js';
import { createLlmTester } from './tester/llm.js';
import { createScriptedTester } from './tester/scripted.js';
import type { Tester } from './tester/types.js';
import type { CriterionResult, ScenarioMetrics, ScenarioSpec, TranscriptEntry } from './types.js';

export const NO_TESTER_MESSAGE =
  'tester: this scenario has no script and no tester model is configured; set REHEARSAL_LLM_BASE_URL and REHEARSAL_TESTER_MODEL';
export const DEFAULT_JUDGE_TIMEOUT_MS = 120_000;

export interface LlmSettings {
  baseUrl?: string | null;
  apiKey?: string | null;
  testerModel?: string | null;
  judgeModel?: string | null;
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
}

export interface ScenarioRunResult {
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
  end_reason: EndReason | null;
  /** Set when the rest of the run cannot succeed either: the provider rejected the credentials (decisions §9). */
  fatal: 'invalid_credentials' | null;
}

const isFatal = (err: unknown): ScenarioRunResult['fatal'] =>
  err instanceof ProviderError && err.kind === 'invalid_credentials' ? 'invalid_credentials' : null;

export async function runScenario(opts: RunScenarioOptions): Promise<ScenarioRunResult> {
  const { scenario, clock, signal, llm } = opts;
  const t0 = clock.now();
  const hasEndpoint = Boolean(llm.client || llm.baseUrl);
  const testerModel = hasEndpoint && llm.testerModel ? llm.testerModel : null;
  const judgeModel = hasEndpoint && llm.judgeModel ? llm.judgeModel : null;
  const maxTurns = scenario.max_turns ? Math.min(opts.maxTurns, scenario.max_turns) : opts.maxTurns;

  let transcript: TranscriptEntry[] = [];
  let durations: number[] = [];
  let conversationMs: number | null = null;
  let cost: number | null = null;
  let endReason: EndReason | null = null;

  const finish = (r: Partial<ScenarioRunResult> & Pick<ScenarioRunResult, 'status'>): ScenarioRunResult => ({
    passed: null,
    grade_summary: null,
    score: null,
    criteria_results: [],
    error_message: null,
    fatal: null,
    ...r,
    transcript,
    duration_ms: clock.now() - t0,
    metrics: conversationMetrics({ transcript, durationMs: conversationMs, costUsd: cost }),
    turn_durations_ms: durations,
    tester_model: testerModel,
    judge_model: judgeModel,
    end_reason: endReason,
  });
  const fail = (message: string, fatal: ScenarioRunResult['fatal'] = null, criteria_results: CriterionResult[] = []) =>
    finish({ status: 'error', error_message: message, fatal, criteria_results });

  try {
    if (signal.aborted) return fail(RUN_CANCELED);
    if (!testerModel && scenario.script.length === 0) return fail(NO_TESTER_MESSAGE);
    const client = llm.client ?? (llm.baseUrl && (testerModel || judgeModel) ? createLlmClient({ baseUrl: llm.baseUrl, apiKey: llm.apiKey, clock }) : null);
    const tester: Tester = testerModel && client ? createLlmTester({ client, model: testerModel, scenario }) : createScriptedTester(scenario.script);

    // Opening the session counts against the same budget as the conversation it starts.
    const timeoutMs = conversationTimeoutMs(opts.config);
    const openDeadline = linkDeadline(signal, timeoutMs, clock, `timeout: opening the session exceeded ${timeoutMs} ms`);
    let session: ProviderSession;
    try {
      const opening = opts.adapter.openSession({ config: opts.config, scenario, ...opts.ids, signal: openDeadline.signal, clock });
      // A session that opens after we gave up must still be ended at the provider.
      opening.then(
        (s) => (openDeadline.signal.aborted ? s.close(signal.aborted ? 'canceled' : 'error').catch(() => undefined) : undefined),
        () => undefined,
      );
      session = await raceAbort(opening, openDeadline.signal);
    } catch (err) {
      if (signal.aborted) return fail(RUN_CANCELED);
      if (openDeadline.timedOut()) return fail(`timeout: opening the session exceeded ${timeoutMs} ms`);
      return fail(describeError(err).message, isFatal(err));
    } finally {
      openDeadline.dispose();
    }

    const conv = await runConversation({ session, tester, maxTurns, timeoutMs, clock, signal, onEntry: opts.onEntry });
    transcript = conv.transcript;
    durations = conv.turn_durations_ms;
    conversationMs = conv.duration_ms;
    cost = conv.cost_usd;
    endReason = conv.end_reason;
    if (conv.error) return fail(conv.error.message, isFatal(conv.error.cause));

    await opts.onGrading?.();
    const judgeTimeoutMs = opts.judgeTimeoutMs ?? DEFAULT_JUDGE_TIMEOUT_MS;
    const gradeDeadline = linkDeadline(signal, judgeTimeoutMs, clock, `judge: no answer within ${judgeTimeoutMs} ms`);
    let graded;
    try {
      graded = await raceAbort(
        gradeTranscript({
          criteria: scenario.criteria,
          transcript,
          judge: judgeModel && client ? { client, model: judgeModel } : null,
          signal: gradeDeadline.signal,
        }),
        gradeDeadline.signal,
      );
    } catch (err) {
      if (signal.aborted) return fail(RUN_CANCELED);
      if (gradeDeadline.timedOut()) return fail(`judge: no answer within ${judgeTimeoutMs} ms`);
      throw err;
    } finally {
      gradeDeadline.dispose();
    }
    if (graded.error) return fail(graded.error.message, null, graded.results);

    const outcome = scoreCriteria(graded.results, scenario.pass_threshold);
    return finish({
      status: outcome.status,
      passed: outcome.passed,
      grade_summary: outcome.grade_summary,
      score: outcome.score,
      criteria_results: graded.results,
      error_message: outcome.error_message,
    });
  } catch (err) {
    if (signal.aborted) return fail(RUN_CANCELED);
    return fail(describeError(err).message);
  }
}
