import type { Clock } from '../lib/clock.js';
import type { ScenarioSpec, ToolCall, TranscriptEntry } from '../engine/types.js';

export type ProviderId = 'provider_1' | 'provider_2' | 'provider_3' | 'provider_4' | 'provider_5' | 'provider_6';

/** One answer of the agent under test. */
export interface AgentReply {
  content: string;
  tool_calls: ToolCall[];
  /** The agent hung up: the conversation ends after this reply. */
  ended: boolean;
}

export interface OpenSessionOptions {
  config: unknown;
  scenario: ScenarioSpec;
  runId: string;
  scenarioRunId: string;
  signal: AbortSignal;
  clock: Clock;
}

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
}

export interface ValidateResult {
  valid: boolean;
  message: string;
  details: Record<string, unknown>;
}

export interface ProviderAdapter {
  provider: ProviderId;
  openSession(opts: OpenSessionOptions): Promise<ProviderSession>;
  validate(config: unknown, opts: { signal: AbortSignal; clock: Clock }): Promise<ValidateResult>;
}

export type ProviderErrorKind =
  | 'invalid_credentials'
  | 'not_found'
  | 'unreachable'
  | 'timeout'
  | 'provider_error'
  | 'rate_limited';

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

/** Maps an HTTP status to the error kind a caller acts on (401/403 → fail the run fast). */
export function kindForStatus(status: number): ProviderErrorKind {
  if (status === 401 || status === 403) return 'invalid_credentials';
  if (status === 404) return 'not_found';
  if (status === 408) return 'timeout';
  if (status === 429) return 'rate_limited';
  return 'provider_error';
}
