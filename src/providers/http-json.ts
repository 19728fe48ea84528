import type { TSchema, Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { Clock } from '../lib/clock.js';
import { networkError, type HttpFetch } from '../lib/llm-client.js';
import { parseRetryAfter, withRetry, type RetryDecision } from './retry.js';
import { kindForStatus, ProviderError, type ValidateResult } from './types.js';

// The JSON-over-HTTP plumbing every HTTP provider adapter shares: one request → `ProviderError` with
// `provider: <status> <provider's message>`, retried per decisions §9 through `withRetry`, credentials kept out of
// every message, and the credential-check mapping of decisions §4. Everything goes through an injectable
// `HttpFetch` so tests can point at fakes on 127.0.0.1.
//
// Two ways in, over one request path: `createJsonClient` (Vapi, Retell, ElevenLabs: a base URL with fixed auth
// headers) and `requestJson` / `callJson` (LiveKit, Pipecat: per-request URL, headers and secrets, since LiveKit
// signs a fresh JWT per call). They word their errors differently (see `Wording`) because the adapters' stored
// messages and tests were written against each.

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

// A JWT anywhere in a message: LiveKit's auth middleware has echoed the bearer token back in its 401 text.
const JWT_PATTERN = /eyJ[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]*){0,2}/g;

/** What `redact` puts in place of a removed credential; `token: null` leaves JWT-looking text alone. */
export interface RedactionMarks {
  secret: string;
  token: string | null;
}

const TOKEN_MARKS: RedactionMarks = { secret: '[redacted]', token: '[redacted token]' };
// createJsonClient's marks: its adapters' messages have always shown `***`, and none of them carries a JWT.
const PLATFORM_MARKS: RedactionMarks = { secret: '***', token: null };

/** Removes credentials from text that will be stored as an error message. */
export function redact(text: string, secrets: readonly string[] = [], marks: RedactionMarks = TOKEN_MARKS): string {
  let out = marks.token === null ? text : text.replace(JWT_PATTERN, marks.token);
  // Very short "secrets" would shred the message.
  for (const s of secrets) if (s.length >= 4) out = out.split(s).join(marks.secret);
  return out;
}

export interface JsonResponse {
  status: number;
  json: unknown;
}

/** A request ready to send: the body serialized once, so every retry sends the same bytes. */
interface Prepared {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | undefined;
}

/** How one way in words its errors; every returned message is already free of credentials. */
interface Wording {
  /** Cleans text that may echo a credential (a connection error's detail). */
  redact(text: string): string;
  /** The message and error code of a non-2xx answer. */
  failure(status: number, text: string, statusText: string): { message: string; code: string | null };
  /** The message for a 2xx answer whose body is not JSON. */
  malformed(req: Prepared, text: string): string;
}

function prepare(method: string, url: string, extraHeaders: Record<string, string>, body: unknown): Prepared {
  const headers: Record<string, string> = { accept: 'application/json', ...extraHeaders };
  if (body === undefined) return { method, url, headers, body: undefined };
  headers['content-type'] = 'application/json';
  return { method, url, headers, body: JSON.stringify(body) };
}

/** One attempt: a network failure becomes `unreachable` (its socket code stays in the cause chain for the retry policy). */
async function sendOnce(req: Prepared, ctx: { fetch: HttpFetch; clock: Clock; signal: AbortSignal }, wording: Wording): Promise<JsonResponse> {
  let res: Awaited<ReturnType<HttpFetch>>;
  let text: string;
  try {
    res = await ctx.fetch(req.url, { method: req.method, headers: req.headers, body: req.body, signal: ctx.signal });
    text = await res.text();
  } catch (err) {
    // An abort is the caller's decision, not the provider's failure: it surfaces as the signal's reason.
    if (ctx.signal.aborted) throw ctx.signal.reason ?? err;
    const ne = networkError(err);
    throw new ProviderError('unreachable', wording.redact(ne.detail), { cause: ne });
  }
  if (!res.ok) {
    const { message, code } = wording.failure(res.status, text, res.statusText);
    throw new ProviderError(kindForStatus(res.status), message, {
      status: res.status,
      code,
      retryAfterMs: parseRetryAfter(res.headers, ctx.clock.now()),
    });
  }
  if (text.trim() === '') return { status: res.status, json: null };
  const json = parseJson(text);
  if (json === undefined) throw new ProviderError('provider_error', wording.malformed(req, text));
  return { status: res.status, json };
}

// ---- createJsonClient: a base URL with fixed auth headers (Vapi, Retell, ElevenLabs) ----

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

export function createJsonClient(opts: JsonClientOptions): JsonClient {
  const base = opts.baseUrl.replace(/\/+$/, '');
  // Header values are what a careless error body could echo back; the bearer token without its scheme too.
  const secrets = Object.values(opts.headers).flatMap((v) => [v, v.replace(/^Bearer\s+/i, '')]);
  const clean = (text: string) => redact(text, secrets, PLATFORM_MARKS);
  const wording: Wording = {
    redact: clean,
    // The reader's message is kept whole (these platforms' messages are short and specific); only a raw body is cut.
    failure(_status, text, statusText) {
      const parsed = parseJson(text);
      const { message, code } = parsed === undefined ? { message: null, code: null } : opts.readError(parsed);
      return { message: clean(message ?? (text.trim() ? snippet(text.trim()) : statusText || 'no error message')), code: code ?? null };
    },
    // The route names which of the several calls of a conversation answered garbage.
    malformed: (req, text) => `malformed response from ${req.method} ${new URL(req.url).pathname} (not JSON): ${clean(snippet(text))}`,
  };

  return {
    async request<T>(method: string, path: string, r: RequestOptions): Promise<T | null> {
      const req = prepare(method, `${base}${path}`, opts.headers, r.body);
      const once = () => sendOnce(req, { fetch: opts.fetch, clock: opts.clock, signal: r.signal }, wording);
      const res = r.retry === false
        ? await once()
        : await withRetry(once, { clock: opts.clock, signal: r.signal, schedule: opts.retrySchedule, onRetry: opts.onRetry, classify: r.classify });
      return res.json as T | null;
    },
  };
}

// ---- requestJson / callJson: one self-contained request (LiveKit, Pipecat) ----

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

export interface CallContext {
  fetch: HttpFetch;
  clock: Clock;
  signal: AbortSignal;
  retrySchedule?: readonly number[];
}

function requestWording(req: JsonRequest): Wording {
  const clean = (text: string) => redact(text, req.secrets);
  return {
    redact: clean,
    // Cut after redacting, so a credential straddling the cut cannot leave a piece of itself behind.
    failure(status, text, statusText) {
      const parsed = req.parseError(status, text, statusText);
      return { message: snippet(clean(parsed.message)), code: parsed.code };
    },
    malformed: (_req, text) => `malformed response (not JSON): ${snippet(clean(text))}`,
  };
}

/** One attempt, no retry (credential checks, and callers that must not repeat a request). */
// async: a body that cannot be serialized rejects like every other failure instead of throwing at the call.
export async function requestJson(req: JsonRequest, ctx: Pick<CallContext, 'fetch' | 'clock' | 'signal'>): Promise<JsonResponse> {
  return sendOnce(prepare(req.method, req.url, req.headers, req.body), ctx, requestWording(req));
}

/** `requestJson` under the retry policy (429 / 5xx / connection resets after 2, 4, 8 s; Retry-After honoured). */
export async function callJson(req: JsonRequest, ctx: CallContext): Promise<JsonResponse> {
  const prepared = prepare(req.method, req.url, req.headers, req.body);
  const wording = requestWording(req);
  return withRetry(() => sendOnce(prepared, ctx, wording), { clock: ctx.clock, signal: ctx.signal, schedule: ctx.retrySchedule });
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

// ---- credential checks (providers.md §9, decisions §4) ----

/** The longest a credential check may take: a user is waiting for the answer. */
export const VALIDATE_TIMEOUT_MS = 10_000;

export const validateFailure = (error_code: string, message: string, extra: Record<string, unknown> = {}): ValidateResult =>
  ({ valid: false, message, details: { error_code, ...extra } });

/** decisions §4 by kind: what `requestJson` made of the status decides the code. */
function failureByKind(err: unknown): ValidateResult {
  if (!(err instanceof ProviderError)) return validateFailure('provider_error', `provider: ${err instanceof Error ? err.message : String(err)}`);
  const details = err.status === undefined ? {} : { status: err.status };
  switch (err.kind) {
    case 'invalid_credentials':
    case 'not_found':
    case 'unreachable':
      return validateFailure(err.kind, err.message, details);
    default:
      return validateFailure('provider_error', err.message, details);
  }
}

/**
 * decisions §4 by HTTP status: 401/403 are bad credentials, `notFound` lists the statuses the platform uses for
 * an unknown agent id (some answer 422), anything else is the provider's error.
 */
export function statusFailure(status: number, message: string, notFound: readonly number[], code: string | null = null): ValidateResult {
  const details = { status, ...(code ? { provider_code: code } : {}) };
  if (status === 401 || status === 403) return validateFailure('invalid_credentials', message, details);
  if (notFound.includes(status)) return validateFailure('not_found', message, details);
  return validateFailure('provider_error', message, details);
}

/**
 * Runs one credential-check request with its own time limit (at most VALIDATE_TIMEOUT_MS) and maps a failure
 * with `onError` (by default decisions §4 by error kind); a check that outlives the limit is `timeout`. The
 * caller's signal (the HTTP request going away) still aborts with an exception, as in the reference adapter.
 */
export async function validateWith(
  opts: { signal: AbortSignal; clock: Clock; timeoutMs?: number },
  check: (signal: AbortSignal) => Promise<ValidateResult>,
  onError: (err: unknown) => ValidateResult = failureByKind,
): Promise<ValidateResult> {
  const timeoutMs = Math.min(opts.timeoutMs ?? VALIDATE_TIMEOUT_MS, VALIDATE_TIMEOUT_MS);
  const ac = new AbortController();
  let timedOut = false;
  const onAbort = () => ac.abort(opts.signal.reason);
  if (opts.signal.aborted) onAbort();
  else opts.signal.addEventListener('abort', onAbort, { once: true });
  opts.clock.sleep(timeoutMs, ac.signal).then(() => {
    timedOut = true;
    ac.abort(new Error('timeout'));
  }, () => undefined);
  try {
    return await check(ac.signal);
  } catch (err) {
    if (timedOut) return validateFailure('timeout', `provider: no answer within ${timeoutMs} ms`);
    if (opts.signal.aborted) throw err;
    return onError(err);
  } finally {
    opts.signal.removeEventListener('abort', onAbort);
    ac.abort(); // ends the timeout's sleep
  }
}

/** The cheapest credential check of a `JsonClient` platform: one GET, no retries, mapped by status. */
export function validateWithGet(
  client: JsonClient,
  path: string,
  opts: { signal: AbortSignal; clock: Clock; notFound: readonly number[]; timeoutMs?: number },
): Promise<ValidateResult> {
  return validateWith(
    opts,
    async (signal) => {
      await client.request('GET', path, { signal, retry: false });
      return { valid: true, message: 'credentials accepted', details: {} };
    },
    (err) => {
      if (!(err instanceof ProviderError)) throw err;
      if (err.status === undefined) return validateFailure(err.kind === 'unreachable' ? 'unreachable' : 'provider_error', err.message);
      return statusFailure(err.status, err.message, opts.notFound, err.code);
    },
  );
}
