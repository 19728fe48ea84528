import type { Clock } from '../lib/clock.js';
import { networkError, type HttpFetch } from '../lib/llm-client.js';
import { parseRetryAfter, withRetry } from './retry.js';
import { kindForStatus, ProviderError, type ValidateResult } from './types.js';

// The HTTP plumbing shared by the provider_2 and provider_3 adapters: one JSON request → ProviderError with
// `provider: <status> <provider's message>`, wrapped in the retry policy of decisions §9, plus the
// validate-call mapping of decisions §4. Everything goes through an injectable `HttpFetch` so tests can
// point at fakes on 127.0.0.1.

export interface ProviderErrorBody {
  message: string;
  code: string | null;
}

export interface JsonRequest {
  method: 'GET' | 'POST' | 'DELETE';
  url: string;
  headers: Record<string, string>;
  body?: unknown;
  /** Reads the provider's message (and code) out of an error response body. */
  parseError: (status: number, text: string, statusText: string) => ProviderErrorBody;
  /** Strings that must never reach an error message (keys, secrets, tokens). */
  secrets?: readonly string[];
}

export interface JsonResponse {
  status: number;
  json: unknown;
}

export interface CallContext {
  fetch: HttpFetch;
  clock: Clock;
  signal: AbortSignal;
  retrySchedule?: readonly number[];
}

const snippet = (s: string) => (s.length > 200 ? `${s.slice(0, 200)}…` : s);
// A JWT anywhere in a message: LiveKit's auth middleware has echoed the bearer token back in its 401 text.
const JWT_PATTERN = /eyJ[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]*){0,2}/g;

/** Removes credentials from text that will be stored as an error message. */
export function redact(text: string, secrets: readonly string[] = []): string {
  let out = text.replace(JWT_PATTERN, '[redacted token]');
  for (const s of secrets) if (s && s.length >= 4) out = out.split(s).join('[redacted]');
  return out;
}

/** One attempt: a network failure becomes `unreachable` (its socket code stays in the cause chain for the retry policy). */
export async function requestJson(req: JsonRequest, ctx: Pick<CallContext, 'fetch' | 'clock' | 'signal'>): Promise<JsonResponse> {
  const headers: Record<string, string> = { accept: 'application/json', ...req.headers };
  let body: string | undefined;
  if (req.body !== undefined) {
    body = JSON.stringify(req.body);
    headers['content-type'] = 'application/json';
  }
  let res: Awaited<ReturnType<HttpFetch>>;
  let text: string;
  try {
    res = await ctx.fetch(req.url, { method: req.method, headers, body, signal: ctx.signal });
    text = await res.text();
  } catch (err) {
    if (ctx.signal.aborted) throw ctx.signal.reason ?? err;
    const n = networkError(err);
    throw new ProviderError('unreachable', redact(n.detail, req.secrets), { cause: err });
  }
  if (!res.ok) {
    const parsed = req.parseError(res.status, text, res.statusText);
    throw new ProviderError(kindForStatus(res.status), snippet(redact(parsed.message, req.secrets)), {
      status: res.status,
      code: parsed.code,
      retryAfterMs: parseRetryAfter(res.headers, ctx.clock.now()),
    });
  }
  if (text.trim() === '') return { status: res.status, json: null };
  try {
    return { status: res.status, json: JSON.parse(text) };
  } catch {
    throw new ProviderError('provider_error', `malformed response (not JSON): ${snippet(redact(text, req.secrets))}`);
  }
}

/** `requestJson` under the retry policy (429 / 5xx / connection resets after 2, 4, 8 s; Retry-After honoured). */
export function callJson(req: JsonRequest, ctx: CallContext): Promise<JsonResponse> {
  return withRetry(() => requestJson(req, ctx), { clock: ctx.clock, signal: ctx.signal, schedule: ctx.retrySchedule });
}

/** Reads `{error, code}` (Pipecat Cloud), `{msg, code}` (Twirp) or `{message}` bodies; anything else verbatim. */
export function genericErrorBody(status: number, text: string, statusText: string): ProviderErrorBody {
  try {
    const o = JSON.parse(text) as Record<string, unknown>;
    if (o && typeof o === 'object') {
      const message = [o.error, o.msg, o.message].find((v) => typeof v === 'string' && v.trim() !== '') as string | undefined;
      const code = typeof o.code === 'string' ? o.code : null;
      if (message) return { message, code };
    }
  } catch {
    // not JSON: fall through to the raw text
  }
  return { message: text.trim() || statusText || `HTTP ${status}`, code: null };
}

export const VALIDATE_TIMEOUT_MS = 10_000;

/**
 * Runs one credential-check request with its own time limit and maps the outcome to decisions §4:
 * `invalid_credentials`, `not_found`, `unreachable`, `timeout`, `provider_error`. The caller's signal (the
 * HTTP request going away) still aborts with an exception, as in the reference adapter.
 */
export async function validateWith(
  opts: { signal: AbortSignal; clock: Clock; timeoutMs?: number },
  check: (signal: AbortSignal) => Promise<ValidateResult>,
): Promise<ValidateResult> {
  const timeoutMs = opts.timeoutMs ?? VALIDATE_TIMEOUT_MS;
  const ac = new AbortController();
  let timedOut = false;
  const onAbort = () => ac.abort(opts.signal.reason);
  if (opts.signal.aborted) onAbort();
  else opts.signal.addEventListener('abort', onAbort, { once: true });
  opts.clock.sleep(timeoutMs, ac.signal).then(() => {
    timedOut = true;
    ac.abort(new Error('timeout'));
  }, () => undefined);
  const fail = (error_code: string, message: string, extra: Record<string, unknown> = {}): ValidateResult =>
    ({ valid: false, message, details: { error_code, ...extra } });
  try {
    return await check(ac.signal);
  } catch (err) {
    if (timedOut) return fail('timeout', `provider: no answer within ${timeoutMs} ms`);
    if (opts.signal.aborted) throw err;
    if (!(err instanceof ProviderError)) return fail('provider_error', `provider: ${err instanceof Error ? err.message : String(err)}`);
    const details = err.status === undefined ? {} : { status: err.status };
    switch (err.kind) {
      case 'invalid_credentials':
      case 'not_found':
      case 'unreachable':
        return fail(err.kind, err.message, details);
      default:
        return fail('provider_error', err.message, details);
    }
  } finally {
    opts.signal.removeEventListener('abort', onAbort);
    ac.abort(); // ends the timeout's sleep
  }
}
