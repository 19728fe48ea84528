import type { Clock } from '../lib/clock.js';
import type { FailureKind } from '../lib/http.js';
import type { ScenarioSpec, ToolCall, TranscriptEntry } from './types.js';

/** The platforms an agent under test can run on, by the names the code uses. */
export const PLATFORMS = ['vapi', 'livekit', 'pipecat', 'openai_compatible', 'retell', 'elevenlabs'] as const;
export type Platform = (typeof PLATFORMS)[number];

/**
 * The neutral provider values of the API and the database. They name no vendor; the code says the platform
 * and translates at the API edge and the database with these two maps.
 */
export const PROVIDER_IDS = ['provider_1', 'provider_2', 'provider_3', 'provider_4', 'provider_5', 'provider_6'] as const;
export type ProviderId = (typeof PROVIDER_IDS)[number];

export const PROVIDER_ID_OF: Readonly<Record<Platform, ProviderId>> = {
  vapi: 'provider_1',
  livekit: 'provider_2',
  pipecat: 'provider_3',
  openai_compatible: 'provider_4',
  retell: 'provider_5',
  elevenlabs: 'provider_6',
};

export const PLATFORM_OF: Readonly<Record<ProviderId, Platform>> = Object.fromEntries(
  PLATFORMS.map((p) => [PROVIDER_ID_OF[p], p]),
) as Record<ProviderId, Platform>;

export function isProviderId(value: unknown): value is ProviderId {
  return typeof value === 'string' && (PROVIDER_IDS as readonly string[]).includes(value);
}

/** One answer of the agent under test. */
export interface AgentReply {
  content: string;
  tool_calls: ToolCall[];
  /** The agent hung up: the conversation ends after this reply. */
  ended: boolean;
  /**
   * Set by adapters that time their requests off the main thread (lib/http-thread.ts): how much of the time
   * the engine saw for this turn was our own overhead (subtracted from the reply latency), and the timing
   * thread's largest lag meanwhile (the latency's uncertainty). Absent: the engine's own clock is the measure.
   */
  timing?: { overhead_ms: number; lag_ms: number } | null;
}

export interface OpenSessionOptions {
  config: unknown;
  scenario: ScenarioSpec;
  runId: string;
  scenarioRunId: string;
  signal: AbortSignal;
  clock: Clock;
  /** The run's max_turns, for a caller the platform plays itself. */
  maxTurns?: number;
  /** `<provider>/<model>` for a caller the platform plays itself (REHEARSAL_VOICE_TESTER_MODEL). */
  voiceTesterModel?: string;
}

/** How a conversation ended, as the engine names it (engine/outcome.ts EndReason). */
export type SessionEndReason = 'max_turns' | 'tester_ended' | 'agent_ended' | 'timeout' | 'canceled' | 'error';

export interface ProviderSession {
  /** The agent may speak first; null when it does not. */
  greeting(signal: AbortSignal): Promise<AgentReply | null>;
  send(text: string, signal: AbortSignal): Promise<AgentReply>;
  /** Ends the provider-side session. Must be safe to call more than once. */
  close(reason: 'completed' | 'canceled' | 'error'): Promise<void>;
  /** The provider's reported (or configured-price) cost so far; null when unknown. */
  costUsd(): number | null;
  /**
   * Optional. Called once after close() with the transcript the engine built from the replies; returns the
   * transcript to keep instead, or null to keep the live one. For providers whose own record is more complete
   * than what the live exchange showed (tool arguments and results only in the post-call record) or the only
   * record there is (a voice call run as one step). Entries keep the engine's shape; `latency_ms` on the
   * returned entries becomes the turn durations.
   */
  transcriptOverride?(live: readonly TranscriptEntry[]): TranscriptEntry[] | null;
  /**
   * Optional. How long close('completed') may take, for providers that read a post-call record after hanging
   * up (the engine's default bound is CLOSE_TIMEOUT_MS). Cancel and error closes keep the default bound.
   */
  closeTimeoutMs?: number;
  /**
   * Optional. Where the platform runs the whole call itself, how its own record says the call ended (read after
   * close); null to keep the engine's reason.
   */
  endReason?(): SessionEndReason | null;
  /** Optional. What played the caller when the platform plays it (e.g. `vapi:openai/gpt-4o-mini`). */
  readonly testerModel?: string | null;
}

export interface ValidateResult {
  valid: boolean;
  message: string;
  details: Record<string, unknown>;
}

export interface ProviderAdapter {
  platform: Platform;
  openSession(opts: OpenSessionOptions): Promise<ProviderSession>;
  validate(config: unknown, opts: { signal: AbortSignal; clock: Clock }): Promise<ValidateResult>;
}

export type ProviderErrorKind = FailureKind;

/**
 * A failure on the provider's side. The message is what a user reads in a scenario run's error_message,
 * so it is always `provider: <status> <provider's message>` (status left out when there was no response).
 */
export class ProviderError extends Error {
  readonly kind: ProviderErrorKind;
  readonly status?: number;
  /** The provider's own error code, e.g. OpenAI `insufficient_quota`; read by the retry policy. */
  readonly code: string | null;
  /** How long the provider asked us to wait (Retry-After / retry-after-ms), read by the retry policy. */
  readonly retryAfterMs: number | null;

  constructor(
    kind: ProviderErrorKind,
    providerMessage: string,
    opts: { status?: number; code?: string | null; retryAfterMs?: number | null; cause?: unknown } = {},
  ) {
    super(`provider: ${opts.status !== undefined ? `${opts.status} ` : ''}${providerMessage}`, { cause: opts.cause });
    this.name = 'ProviderError';
    this.kind = kind;
    this.status = opts.status;
    this.code = opts.code ?? null;
    this.retryAfterMs = opts.retryAfterMs ?? null;
  }
}

export const DEFAULT_CONVERSATION_TIMEOUT_MS = 120_000;

/** Every provider config accepts `timeout_ms`, which bounds one conversation as a whole. */
export function conversationTimeoutMs(config: unknown): number {
  const t = (config as { timeout_ms?: unknown } | null | undefined)?.timeout_ms;
  return typeof t === 'number' && Number.isFinite(t) && t > 0 ? t : DEFAULT_CONVERSATION_TIMEOUT_MS;
}
