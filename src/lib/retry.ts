import type { Clock } from './clock.js';

/** Attempts 1–3 are retried after 2 s, 4 s and 8 s (longer when the far side's Retry-After asks for more). */
export const DEFAULT_RETRY_SCHEDULE: readonly number[] = [2000, 4000, 8000];

/**
 * A Retry-After longer than this is not waited out: the caller is better served by the error now than by
 * a worker slot held for minutes (the conversation timeout would cut the wait anyway).
 */
export const DEFAULT_MAX_RETRY_DELAY_MS = 60_000;

export interface RetryDecision {
  retry: boolean;
  retryAfterMs: number | null;
}

export interface RetryOptions {
  clock: Clock;
  signal: AbortSignal;
  schedule?: readonly number[];
  maxDelayMs?: number;
  onRetry?: (info: { attempt: number; delayMs: number; error: unknown }) => void;
  classify?: (error: unknown) => RetryDecision;
}

const RETRYABLE_STATUS = new Set([408, 429, 500, 502, 503, 504]);
const QUOTA_CODES = new Set(['insufficient_quota']);
/** Connection-level failures worth another attempt; DNS failures (ENOTFOUND) are not among them. */
const RETRYABLE_NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ECONNABORTED', 'UND_ERR_SOCKET']);

interface ErrorShape {
  status?: unknown;
  code?: unknown;
  type?: unknown;
  retryAfterMs?: unknown;
  cause?: unknown;
}

function networkCode(err: unknown): string | null {
  // The socket error sits at the bottom of a cause chain: ProviderError → LlmError → TypeError('fetch failed') → { code }.
  let cur: unknown = err;
  for (let depth = 0; depth < 8 && cur && typeof cur === 'object'; depth++) {
    const code = (cur as ErrorShape).code;
    if (typeof code === 'string' && RETRYABLE_NETWORK_CODES.has(code)) return code;
    cur = (cur as ErrorShape).cause;
  }
  return null;
}

/**
 * The retry policy, read from the fields our HTTP clients put on their errors: 408, 429 (unless it means the
 * quota is exhausted), 500/502/503/504 and connection resets are retried; other 4xx never are.
 */
export function defaultClassify(err: unknown): RetryDecision {
  const e = (err ?? {}) as ErrorShape;
  const retryAfterMs = typeof e.retryAfterMs === 'number' ? e.retryAfterMs : null;
  if (typeof e.status === 'number') {
    if (!RETRYABLE_STATUS.has(e.status)) return { retry: false, retryAfterMs };
    // A 429 that means "quota exhausted" will not heal in seconds; retrying only burns the schedule.
    if (e.status === 429 && (QUOTA_CODES.has(String(e.code)) || QUOTA_CODES.has(String(e.type)))) {
      return { retry: false, retryAfterMs };
    }
    return { retry: true, retryAfterMs };
  }
  return { retry: networkCode(err) !== null, retryAfterMs: null };
}

/**
 * Milliseconds the server asked us to wait: `retry-after-ms`, else `Retry-After` as seconds or an HTTP date.
 * Null when absent or unparseable.
 */
export function parseRetryAfter(headers: { get(name: string): string | null }, nowMs: number): number | null {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '') {
    const n = Number(ms);
    if (Number.isFinite(n) && n >= 0) return n;
  }
  const ra = headers.get('retry-after');
  if (ra === null || ra.trim() === '') return null;
  const secs = Number(ra);
  if (Number.isFinite(secs)) return secs >= 0 ? secs * 1000 : null;
  const at = Date.parse(ra);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}

/**
 * Runs `fn`, retrying per the schedule. Waits max(schedule[i], what the server asked for). The signal
 * interrupts both the attempt (fn receives it via closure) and the wait between attempts.
 */
export async function withRetry<T>(fn: (attempt: number) => Promise<T>, opts: RetryOptions): Promise<T> {
  const schedule = opts.schedule ?? DEFAULT_RETRY_SCHEDULE;
  const classify = opts.classify ?? defaultClassify;
  const maxDelay = opts.maxDelayMs ?? DEFAULT_MAX_RETRY_DELAY_MS;
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (err) {
      if (opts.signal.aborted || attempt >= schedule.length) throw err;
      const decision = classify(err);
      if (!decision.retry) throw err;
      const delayMs = Math.max(schedule[attempt], decision.retryAfterMs ?? 0);
      if (delayMs > maxDelay) throw err;
      opts.onRetry?.({ attempt: attempt + 1, delayMs, error: err });
      await opts.clock.sleep(delayMs, opts.signal);
    }
  }
}
