import type { TSchema, Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { Clock } from '../lib/clock.js';
import { networkError, type HttpFetch } from '../lib/llm-client.js';
import { defaultClassify, parseRetryAfter, withRetry, type RetryDecision } from './retry.js';
import { kindForStatus, ProviderError, type ValidateResult } from './types.js';

// The JSON-over-HTTP client the hosted-platform adapters (Vapi, Retell, ElevenLabs) share: one request helper
// that turns every failure into a `ProviderError` (`provider: <status> <provider's message>`), retries per
// decisions §9 through `withRetry`, and never lets a credential reach an error message.

/** Pulls the provider's own message (and error code, when it has one) out of an error body. */
export type ErrorReader = (body: unknown) => { message: string | null; code?: string | null };

export interface JsonClientOptions {
  baseUrl: string;
  /** Auth and any fixed headers; their values are redacted from every error message. */
  headers: Record<string, string>;
  fetch: HttpFetch;
  clock: Clock;
  readError: ErrorReader;
  retrySchedule?: readonly number[];
  onRetry?: (info: { attempt: number; delayMs: number; error: unknown }) => void;
}

export interface RequestOptions {
  body?: unknown;
  signal: AbortSignal;
  /** false: a single attempt (validate, and hang-ups that must not hold a worker). Default true. */
  retry?: boolean;
  /** Which failures to retry; defaults to decisions §9. */
  classify?: (err: unknown) => RetryDecision;
}

export interface JsonClient {
  /** Resolves with the parsed body (null for an empty 2xx such as 204); rejects with a ProviderError. */
  request<T = unknown>(method: string, path: string, opts: RequestOptions): Promise<T | null>;
}

const snippet = (s: string) => (s.length > 200 ? `${s.slice(0, 200)}…` : s);

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** JSON strings (tool arguments, tool results) become values; anything else is kept verbatim. */
export function parseMaybeJson(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const t = v.trim();
  if (!(t.startsWith('{') || t.startsWith('[') || t.startsWith('"'))) return v;
  const parsed = parseJson(t);
  return parsed === undefined ? v : parsed;
}

/** Checks a 2xx body against its (lenient) TypeBox schema; a body of another shape is the provider's fault. */
export function decode<S extends TSchema>(schema: S, value: unknown, what: string): Static<S> {
  if (Value.Check(schema, value)) return value;
  const first = Value.Errors(schema, value).First();
  throw new ProviderError('provider_error', `malformed ${what}: ${first ? `${first.path || '/'} ${first.message}` : 'unexpected shape'}`);
}

/** Hang-up and post-call requests run after the conversation's signal is gone: a real-time bound keeps a
 * provider that never answers from holding a socket (the engine stops waiting for close() anyway). */
export const closeSignal = (ms = 5000) => AbortSignal.timeout(ms);

export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s.length >= 4) out = out.split(s).join('***');
  return out;
}

export function createJsonClient(opts: JsonClientOptions): JsonClient {
  const base = opts.baseUrl.replace(/\/+$/, '');
  // Header values are what a careless error body could echo back; the bearer token without its scheme too.
  const secrets = Object.values(opts.headers).flatMap((v) => [v, v.replace(/^Bearer\s+/i, '')]);

  async function once(method: string, url: string, body: string | undefined, signal: AbortSignal): Promise<unknown> {
    let res: Awaited<ReturnType<HttpFetch>>;
    let text: string;
    try {
      const headers = body === undefined ? { accept: 'application/json', ...opts.headers } : { accept: 'application/json', 'content-type': 'application/json', ...opts.headers };
      res = await opts.fetch(url, { method, headers, body, signal });
      text = await res.text();
    } catch (err) {
      if (signal.aborted) throw err;
      const ne = networkError(err);
      throw new ProviderError('unreachable', redact(ne.detail, secrets), { cause: ne });
    }
    if (!res.ok) {
      const parsed = parseJson(text);
      const { message, code } = parsed === undefined ? { message: null, code: null } : opts.readError(parsed);
      const detail = message ?? (text.trim() ? snippet(text.trim()) : res.statusText || 'no error message');
      throw new ProviderError(kindForStatus(res.status), redact(detail, secrets), {
        status: res.status,
        code: code ?? null,
        retryAfterMs: parseRetryAfter(res.headers, opts.clock.now()),
      });
    }
    if (text.trim() === '') return null;
    const parsed = parseJson(text);
    if (parsed === undefined) throw new ProviderError('provider_error', `malformed response from ${method} ${new URL(url).pathname} (not JSON): ${redact(snippet(text), secrets)}`);
    return parsed;
  }

  return {
    async request<T>(method: string, path: string, r: RequestOptions): Promise<T | null> {
      const url = `${base}${path}`;
      const body = r.body === undefined ? undefined : JSON.stringify(r.body);
      if (r.retry === false) return (await once(method, url, body, r.signal)) as T | null;
      return (await withRetry(() => once(method, url, body, r.signal), {
        clock: opts.clock,
        signal: r.signal,
        schedule: opts.retrySchedule,
        onRetry: opts.onRetry,
        classify: r.classify ?? defaultClassify,
      })) as T | null;
    },
  };
}

const VALIDATE_TIMEOUT_MS = 10_000;

/**
 * The cheapest credential check (providers.md §9): one GET, no retries, mapped to decisions §4 codes.
 * `notFound` lists the statuses the platform uses for an unknown agent id.
 */
export async function validateWithGet(
  client: JsonClient,
  path: string,
  opts: { signal: AbortSignal; clock: Clock; notFound: readonly number[]; timeoutMs?: number },
): Promise<ValidateResult> {
  const ac = new AbortController();
  let timedOut = false;
  const onAbort = () => ac.abort(opts.signal.reason);
  if (opts.signal.aborted) onAbort();
  else opts.signal.addEventListener('abort', onAbort, { once: true });
  const timeoutMs = Math.min(opts.timeoutMs ?? VALIDATE_TIMEOUT_MS, VALIDATE_TIMEOUT_MS);
  opts.clock.sleep(timeoutMs, ac.signal).then(() => {
    timedOut = true;
    ac.abort(new Error('timeout'));
  }, () => undefined);
  const fail = (error_code: string, message: string, extra: Record<string, unknown> = {}): ValidateResult =>
    ({ valid: false, message, details: { error_code, ...extra } });
  try {
    await client.request('GET', path, { signal: ac.signal, retry: false });
    return { valid: true, message: 'credentials accepted', details: {} };
  } catch (err) {
    if (timedOut) return fail('timeout', `provider: no answer within ${timeoutMs} ms`);
    if (opts.signal.aborted) throw err;
    if (!(err instanceof ProviderError)) throw err;
    if (err.status === undefined) return fail(err.kind === 'unreachable' ? 'unreachable' : 'provider_error', err.message);
    const details = { status: err.status, ...(err.code ? { provider_code: err.code } : {}) };
    if (err.status === 401 || err.status === 403) return fail('invalid_credentials', err.message, details);
    if (opts.notFound.includes(err.status)) return fail('not_found', err.message, details);
    return fail('provider_error', err.message, details);
  } finally {
    opts.signal.removeEventListener('abort', onAbort);
    ac.abort(); // stops the timeout's sleep
  }
}

/**
 * Ends a provider-side session without ever throwing or holding the caller: a hang-up that fails changes
 * nothing about what the agent said, and the engine bounds close() anyway.
 */
export async function bestEffort(fn: () => Promise<unknown>): Promise<void> {
  try {
    await fn();
  } catch {
    // deliberately ignored: see above
  }
}
