import { ProviderError, type ProviderErrorKind, type SessionEndReason } from './provider.js';
import { JudgeError } from './judge/llm.js';
import type { ScoreOutcome } from './scoring.js';
import { TesterError } from './tester/types.js';

export const RUN_CANCELED = 'run canceled';
export const NO_TESTER_MESSAGE =
  'tester: this scenario has no script and no tester model is configured; set REHEARSAL_LLM_BASE_URL and REHEARSAL_TESTER_MODEL';

/** Why the conversation ended; null when it never started. */
export type EndReason = SessionEndReason;
/** Who is to blame for a scenario run's result: `agent` is the only fault that speaks about the agent under test. */
export type Fault = 'agent' | 'tester' | 'judge' | 'provider' | 'internal' | 'canceled';
/** The part that reported the failure; it is the prefix of the error message. */
export type ErrorSide = 'agent' | 'provider' | 'tester' | 'judge' | 'timeout' | 'canceled' | 'internal';

type Detail = { text?: string; ms?: number; provider?: string };
interface Row {
  status: 'passed' | 'failed' | 'error';
  fault: Fault | null;
  side: ErrorSide | null;
  /** The error_message users read; null for a graded verdict. */
  message: (d: Detail) => string | null;
}

const text = (d: Detail) => d.text ?? '';
const provider = (fault: Fault): Row => ({ status: 'error', fault, side: 'provider', message: text });

/**
 * Every outcome the engine can produce. Credentials and ids the provider rejects (401/403/404) are the agent's
 * configuration, not the platform's trouble; a timeout is the agent not answering within its timeout_ms.
 */
export const OUTCOMES = {
  passed: { status: 'passed', fault: null, side: null, message: () => null },
  failed: { status: 'failed', fault: 'agent', side: null, message: () => null },
  grading_inconclusive: { status: 'error', fault: 'judge', side: 'judge', message: text },
  // inconclusive because no judge model is configured: every attempt would leave the same criteria undecided
  inconclusive_without_judge: { status: 'error', fault: 'judge', side: 'judge', message: text },
  // the run's max_turns cut the conversation short: not the agent's doing, and another attempt would be cut the same
  cut_off: { status: 'error', fault: 'tester', side: 'tester', message: (d) => `tester: cut off at max_turns ${d.ms} with ${d.text} script lines left` },
  // the judge found the LLM caller drifted from the scenario's brief
  caller_left_brief: { status: 'error', fault: 'tester', side: 'tester', message: (d) => `tester: the caller left the scenario's brief (${d.text})` },
  // the tester ended before it said anything: there was nothing for the agent to answer
  tester_silent: { status: 'error', fault: 'tester', side: 'tester', message: () => 'tester: ended the conversation before it spoke' },
  no_reply: { status: 'error', fault: 'agent', side: 'agent', message: (d) => `agent: no reply to ${d.ms} caller messages` },
  not_answered: { status: 'error', fault: 'agent', side: 'agent', message: () => 'agent: did not answer the call' },
  judge_failed: { status: 'error', fault: 'judge', side: 'judge', message: text },
  judge_timeout: { status: 'error', fault: 'judge', side: 'judge', message: (d) => `judge: no answer within ${d.ms} ms` },
  tester_failed: { status: 'error', fault: 'tester', side: 'tester', message: text },
  no_tester: { status: 'error', fault: 'tester', side: 'tester', message: () => NO_TESTER_MESSAGE },
  provider_invalid_credentials: provider('agent'),
  provider_not_found: provider('agent'),
  provider_unreachable: provider('provider'),
  provider_timeout: provider('provider'),
  provider_rate_limited: provider('provider'),
  provider_error: provider('provider'),
  session_open_timeout: { status: 'error', fault: 'agent', side: 'timeout', message: (d) => `timeout: opening the session exceeded ${d.ms} ms` },
  conversation_timeout: { status: 'error', fault: 'agent', side: 'timeout', message: (d) => `timeout: conversation exceeded ${d.ms} ms` },
  canceled: { status: 'error', fault: 'canceled', side: 'canceled', message: () => RUN_CANCELED },
  internal: { status: 'error', fault: 'internal', side: 'internal', message: (d) => `internal: ${d.text}` },
  scenario_missing: { status: 'error', fault: 'internal', side: 'internal', message: () => 'internal: the scenario template no longer exists' },
  // deleting an agent cancels its runs; this is the conversation that raced that cancel
  agent_deleted: { status: 'error', fault: 'canceled', side: 'provider', message: () => 'provider: the agent was deleted' },
  no_adapter: { status: 'error', fault: 'internal', side: 'provider', message: (d) => `provider: no adapter for ${d.provider} in this build` },
} as const satisfies Record<string, Row>;

export type OutcomeKind = keyof typeof OUTCOMES;

/** Faults that say nothing about the agent: such a scenario run is attempted again with a fresh conversation. */
const RETRIED_FAULTS: readonly Fault[] = ['tester', 'judge', 'provider', 'internal'];
/** Outcomes another attempt would reproduce: the run's own configuration caused them. */
const NOT_RETRIED: readonly OutcomeKind[] = ['cut_off', 'inconclusive_without_judge', 'no_tester', 'scenario_missing', 'no_adapter'];
export const isRetried = (o: { fault: Fault | null; kind: OutcomeKind }) =>
  o.fault !== null && RETRIED_FAULTS.includes(o.fault) && !NOT_RETRIED.includes(o.kind);
export const OUTCOME_KINDS = Object.keys(OUTCOMES) as OutcomeKind[];

interface OutcomeBase {
  kind: OutcomeKind;
  end_reason: EndReason | null;
  /** Set when the rest of the run cannot succeed either: the provider rejected the credentials. */
  fatal: 'invalid_credentials' | null;
  /** The provider's HTTP status when a provider failure came with one. */
  provider_status: number | null;
}
export interface GradedOutcome extends OutcomeBase { status: 'passed' | 'failed'; fault: 'agent' | null; side: null; message: null }
export interface ErrorOutcome extends OutcomeBase { status: 'error'; fault: Fault; side: ErrorSide; message: string }
/** What became of a scenario run, as a record; `message` is its error_message. */
export type ScenarioOutcome = GradedOutcome | ErrorOutcome;

/** What happened, as the engine saw it; `decideOutcome` turns it into a ScenarioOutcome. */
export type OutcomeEvent =
  | { event: 'graded'; score: Pick<ScoreOutcome, 'status' | 'error_message'>; cut_off?: { max_turns: number; lines_left: number }; no_judge?: boolean }
  /** The conversation is over and the agent never replied: no grade. */
  | { event: 'silent'; caller_messages: number; tester_ended: boolean }
  | { event: 'caller_left_brief'; note: string }
  | { event: 'timeout'; phase: 'session_open' | 'conversation' | 'judge'; ms: number }
  | { event: 'canceled' }
  | { event: 'no_tester' }
  | { event: 'scenario_missing' }
  | { event: 'agent_deleted' }
  | { event: 'no_adapter'; provider: string }
  /** A failure of the provider, the tester, the judge or our own code, told apart by its class. */
  | { event: 'thrown'; error: unknown };
/** Everything but a grade is an error. */
export type FailureEvent = Exclude<OutcomeEvent, { event: 'graded' }>;

const PROVIDER_KINDS: Record<ProviderErrorKind, OutcomeKind> = {
  invalid_credentials: 'provider_invalid_credentials',
  not_found: 'provider_not_found',
  unreachable: 'provider_unreachable',
  timeout: 'provider_timeout',
  rate_limited: 'provider_rate_limited',
  provider_error: 'provider_error',
};

function classify(e: OutcomeEvent): { kind: OutcomeKind; detail: Detail; status?: number } {
  switch (e.event) {
    case 'graded':
      if (e.score.status !== 'error') return { kind: e.score.status, detail: {} };
      if (e.cut_off) return { kind: 'cut_off', detail: { ms: e.cut_off.max_turns, text: String(e.cut_off.lines_left) } };
      return { kind: e.no_judge ? 'inconclusive_without_judge' : 'grading_inconclusive', detail: { text: e.score.error_message ?? 'judge: grading inconclusive' } };
    case 'silent':
      if (e.caller_messages === 0) return { kind: e.tester_ended ? 'tester_silent' : 'not_answered', detail: {} };
      return { kind: 'no_reply', detail: { ms: e.caller_messages } };
    case 'caller_left_brief':
      return { kind: 'caller_left_brief', detail: { text: e.note } };
    case 'timeout':
      return { kind: `${e.phase}_timeout`, detail: { ms: e.ms } };
    case 'no_adapter':
      return { kind: 'no_adapter', detail: { provider: e.provider } };
    case 'thrown': {
      const err = e.error;
      if (err instanceof ProviderError) return { kind: PROVIDER_KINDS[err.kind], detail: { text: err.message }, status: err.status };
      if (err instanceof TesterError) return { kind: 'tester_failed', detail: { text: err.message } };
      if (err instanceof JudgeError) return { kind: 'judge_failed', detail: { text: err.message } };
      return { kind: 'internal', detail: { text: err instanceof Error ? err.message : String(err) } };
    }
    default:
      return { kind: e.event, detail: {} };
  }
}

/** The one place that decides a scenario run's status, fault and error_message. */
export function decideOutcome(e: FailureEvent, endReason?: EndReason | null): ErrorOutcome;
export function decideOutcome(e: OutcomeEvent, endReason?: EndReason | null): ScenarioOutcome;
export function decideOutcome(e: OutcomeEvent, endReason: EndReason | null = null): ScenarioOutcome {
  const { kind, detail, status } = classify(e);
  const row: Row = OUTCOMES[kind];
  return {
    status: row.status, fault: row.fault, side: row.side, message: row.message(detail), kind, end_reason: endReason,
    fatal: kind === 'provider_invalid_credentials' ? 'invalid_credentials' : null,
    provider_status: status ?? null,
  } as ScenarioOutcome;
}
