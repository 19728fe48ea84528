import type { Clock } from '../lib/clock.js';
import { networkError } from '../lib/llm-client.js';
import { kindForStatus, snippet, type HttpFetch } from '../lib/http.js';
import { parseRetryAfter, withRetry, type RetryDecision } from '../lib/retry.js';
import { ProviderError } from '../engine/provider.js';
import { parseJson, redact } from './json-values.js';

// The JSON-over-HTTP plumbing every HTTP provider adapter shares: one request → `ProviderError` with
// `provider: <status> <provider's message>`, retried through `withRetry` (429, 5xx and resets; never other 4xx),
// credentials kept out of every message (credential checks map these errors in credential-check.ts). Everything goes
// through an injectable `HttpFetch` so tests can point at fakes on 127.0.0.1.
//
// Two ways in, over one request path: `createJsonClient` (Vapi, Retell, ElevenLabs: a base URL with fixed auth
// headers) and `requestJson` / `callJson` (LiveKit, Pipecat: per-request URL, headers and secrets, since LiveKit
// signs a fresh JWT per call). They word their errors differently (see `Wording`) because the adapters' stored
// messages and tests were written against each.

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
  /** Which failures to retry; defaults to `defaultClassify` (429, 5xx and resets; never other 4xx). */
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
  const clean = (text: string) => redact(text, secrets);
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
