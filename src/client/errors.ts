/** The service's error envelope: `{error, code, details?}` on every 4xx and 5xx. */
export interface ErrorBody {
  error: string;
  code: string;
  details?: Record<string, unknown>;
}

/**
 * Every failure the client reports. `status` is the HTTP status (0 when no response arrived), `code` the
 * service's machine-readable code (`RUN_NOT_FOUND`, `RATE_LIMITED`, …) or one of the client's own:
 * `NETWORK_ERROR`, `INVALID_RESPONSE`, `TIMEOUT`, `ABORTED`.
 */
export class RehearsalError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: Record<string, unknown> | null;
  /** The `x-request-id` of the failed response: quote it when reporting a problem. */
  readonly requestId: string | null;
  /** For 429: how long the service asked us to wait, in milliseconds. */
  readonly retryAfterMs: number | null;

  constructor(message: string, opts: { status: number; code: string; details?: Record<string, unknown> | null; requestId?: string | null; retryAfterMs?: number | null; cause?: unknown }) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'RehearsalError';
    this.status = opts.status;
    this.code = opts.code;
    this.details = opts.details ?? null;
    this.requestId = opts.requestId ?? null;
    this.retryAfterMs = opts.retryAfterMs ?? null;
  }
}

/** `waitForRun` gave up: the run was still not final. `lastRun` is what the last poll saw. */
export class RehearsalTimeoutError<R = unknown> extends RehearsalError {
  readonly lastRun: R | null;
  constructor(message: string, lastRun: R | null) {
    super(message, { status: 0, code: 'TIMEOUT' });
    this.name = 'RehearsalTimeoutError';
    this.lastRun = lastRun;
  }
}

const isErrorBody = (b: unknown): b is ErrorBody =>
  !!b && typeof b === 'object' && typeof (b as ErrorBody).error === 'string' && typeof (b as ErrorBody).code === 'string';

/** Builds the error for a non-2xx response from its body (JSON envelope or not). */
export function errorFromResponse(status: number, text: string, headers: Headers, retryAfterMs: number | null): RehearsalError {
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: a proxy or a server that is not Rehearsal answered
  }
  const requestId = headers.get('x-request-id');
  if (isErrorBody(body)) {
    return new RehearsalError(body.error, { status, code: body.code, details: body.details ?? null, requestId, retryAfterMs });
  }
  const snippet = text.trim().slice(0, 200);
  return new RehearsalError(`HTTP ${status}${snippet ? `: ${snippet}` : ''}`, { status, code: `HTTP_${status}`, requestId, retryAfterMs });
}

/** Retry-After: delta-seconds or an HTTP date (RFC 9110 §10.2.3); null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (!value) return null;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
