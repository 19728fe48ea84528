import http from 'node:http';
import https from 'node:https';
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { Clock } from './clock.js';
import { parseRetryAfter, withRetry } from '../providers/retry.js';
import { kindForStatus, type ProviderErrorKind } from '../providers/types.js';

// A deliberately small OpenAI Chat Completions client over fetch. No SDK: SDK retries would multiply with
// ours (decisions §9), and any compatible base URL (or a fake on 127.0.0.1) must work unchanged.

const WireToolCallSchema = Type.Object({
  id: Type.Optional(Type.String()),
  type: Type.Optional(Type.String()),
  function: Type.Object({
    name: Type.String(),
    // Some compatible servers send the arguments as an object rather than a JSON string.
    arguments: Type.Optional(Type.Union([Type.String(), Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
  }),
});

const UsageSchema = Type.Object({
  prompt_tokens: Type.Number(),
  completion_tokens: Type.Number(),
});

const ChatCompletionSchema = Type.Object({
  choices: Type.Array(
    Type.Object({
      message: Type.Object({
        content: Type.Optional(Type.Union([Type.String(), Type.Null()])),
        tool_calls: Type.Optional(Type.Union([Type.Array(WireToolCallSchema), Type.Null()])),
      }),
      finish_reason: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    }),
    { minItems: 1 },
  ),
  usage: Type.Optional(Type.Union([UsageSchema, Type.Null()])),
});

const ErrorBodySchema = Type.Object({
  error: Type.Object({
    message: Type.String(),
    type: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    code: Type.Optional(Type.Union([Type.String(), Type.Number(), Type.Null()])),
  }),
});

export interface WireToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type ChatMessage =
  | { role: 'system' | 'developer' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: WireToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

export type Usage = Static<typeof UsageSchema>;

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  tools?: unknown[];
  response_format?: unknown;
  temperature?: number;
  max_completion_tokens?: number;
  signal: AbortSignal;
}

export interface ChatResult {
  content: string | null;
  tool_calls: WireToolCall[];
  usage: Usage | null;
  finish_reason: string | null;
}

/** The part of fetch this client uses; the global fetch satisfies it. */
export type HttpFetch = (url: string, init: { method?: string; headers?: Record<string, string>; body?: string; signal?: AbortSignal }) => Promise<{
  ok: boolean;
  status: number;
  statusText: string;
  headers: { get(name: string): string | null };
  text(): Promise<string>;
}>;

// The default transport. Measured on the performance workload (performance.md), undici's fetch costs
// ~1.1–1.6 ms CPU per request (WHATWG streams, per-request signals, GC) — the whole per-request budget —
// where node:http on keep-alive agents costs ~0.5 ms and less memory. Shared agents: one pool per process.
const agents = { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) };

export const nodeHttpFetch: HttpFetch = (url, init) =>
  new Promise((resolve, reject) => {
    const signal = init.signal;
    if (signal?.aborted) return reject(signal.reason);
    const u = new URL(url);
    const proto = u.protocol === 'https:' ? 'https:' : 'http:';
    const body = init.body;
    const headers = body === undefined ? { ...init.headers } : { ...init.headers, 'content-length': String(Buffer.byteLength(body)) };
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      fn();
    };
    const req = (proto === 'https:' ? https : http).request(u, { method: init.method ?? 'GET', headers, agent: agents[proto] }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', (err) => settle(() => reject(new TypeError('fetch failed', { cause: err }))));
      // 'end' comes before 'close' on a complete body, so this only fires for a response cut short.
      res.on('close', () => settle(() => reject(new TypeError('fetch failed', { cause: Object.assign(new Error('response closed before its end'), { code: 'ECONNRESET' }) }))));
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        const text = Buffer.concat(chunks).toString('utf8');
        settle(() =>
          resolve({
            ok: status >= 200 && status < 300,
            status,
            statusText: res.statusMessage ?? '',
            headers: { get: (name) => { const v = res.headers[name.toLowerCase()]; return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v; } },
            text: async () => text,
          }),
        );
      });
    });
    // Like fetch: an abort rejects with the signal's reason, whatever the socket reports.
    const onAbort = () => settle(() => {
      req.destroy();
      reject(signal!.reason);
    });
    signal?.addEventListener('abort', onAbort, { once: true });
    req.on('error', (err) => settle(() => reject(new TypeError('fetch failed', { cause: err }))));
    req.end(body);
  });

export interface LlmClient {
  chat(req: ChatRequest): Promise<ChatResult>;
}

export interface LlmClientOptions {
  baseUrl: string;
  apiKey?: string | null;
  clock: Clock;
  /** Defaults to nodeHttpFetch; the global fetch works too. */
  fetch?: HttpFetch;
  headers?: Record<string, string>;
  retrySchedule?: readonly number[];
  onRetry?: (info: { attempt: number; delayMs: number; error: unknown }) => void;
}

/** An HTTP or protocol failure of an OpenAI-compatible endpoint; callers prefix it with their side. */
export class LlmError extends Error {
  readonly kind: ProviderErrorKind;
  readonly status?: number;
  readonly code: string | null;
  readonly type: string | null;
  readonly retryAfterMs: number | null;
  /** No HTTP response at all; whether that is worth a retry is decided by the socket error in `cause`. */
  readonly network: boolean;
  /** The endpoint's own message, without the status. */
  readonly detail: string;

  constructor(
    kind: ProviderErrorKind,
    detail: string,
    opts: { status?: number; code?: string | null; type?: string | null; retryAfterMs?: number | null; network?: boolean; cause?: unknown } = {},
  ) {
    super(`${opts.status !== undefined ? `${opts.status} ` : ''}${detail}`, { cause: opts.cause });
    this.name = 'LlmError';
    this.kind = kind;
    this.detail = detail;
    this.status = opts.status;
    this.code = opts.code ?? null;
    this.type = opts.type ?? null;
    this.retryAfterMs = opts.retryAfterMs ?? null;
    this.network = opts.network ?? false;
  }
}

const snippet = (s: string) => (s.length > 200 ? `${s.slice(0, 200)}…` : s);

export function errorFromResponse(status: number, bodyText: string, retryAfterMs: number | null, statusText = ''): LlmError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bodyText);
  } catch {
    parsed = undefined;
  }
  if (Value.Check(ErrorBodySchema, parsed)) {
    const { message, type, code } = parsed.error;
    return new LlmError(kindForStatus(status), message, {
      status,
      type: type ?? null,
      code: code === undefined || code === null ? null : String(code),
      retryAfterMs,
    });
  }
  const text = bodyText.trim() || statusText || 'no error message';
  return new LlmError(kindForStatus(status), snippet(text), { status, retryAfterMs });
}

export function networkError(err: unknown): LlmError {
  const cause = (err as { cause?: { message?: string } } | null)?.cause;
  const msg = cause?.message ?? (err instanceof Error ? err.message : String(err));
  return new LlmError('unreachable', `connection failed: ${msg}`, { network: true, cause: err });
}

function normalizeToolCalls(calls: Static<typeof WireToolCallSchema>[] | null | undefined): WireToolCall[] {
  if (!calls || calls.length === 0) return [];
  return calls.map((c, i) => ({
    id: c.id ?? `call_${i}`,
    type: 'function',
    function: {
      name: c.function.name,
      arguments: typeof c.function.arguments === 'string' ? c.function.arguments : JSON.stringify(c.function.arguments ?? {}),
    },
  }));
}

export function createLlmClient(opts: LlmClientOptions): LlmClient {
  const fetchImpl = opts.fetch ?? nodeHttpFetch;
  const url = `${opts.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  // Built once per client: nothing on the per-request path depends on anything but the request.
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json', ...opts.headers };
  if (opts.apiKey) headers.authorization = `Bearer ${opts.apiKey}`;

  async function once(body: string, signal: AbortSignal): Promise<ChatResult> {
    let res: Awaited<ReturnType<HttpFetch>>;
    let text: string;
    try {
      res = await fetchImpl(url, { method: 'POST', headers, body, signal });
      text = await res.text();
    } catch (err) {
      if (signal.aborted) throw err;
      throw networkError(err);
    }
    if (!res.ok) throw errorFromResponse(res.status, text, parseRetryAfter(res.headers, opts.clock.now()), res.statusText);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new LlmError('provider_error', `malformed response (not JSON): ${snippet(text)}`);
    }
    if (!Value.Check(ChatCompletionSchema, json)) {
      const first = Value.Errors(ChatCompletionSchema, json).First();
      throw new LlmError('provider_error', `malformed response: ${first ? `${first.path || '/'} ${first.message}` : 'unexpected shape'}`);
    }
    const choice = json.choices[0];
    return {
      content: choice.message.content ?? null,
      tool_calls: normalizeToolCalls(choice.message.tool_calls),
      usage: json.usage ?? null,
      finish_reason: choice.finish_reason ?? null,
    };
  }

  return {
    chat(req) {
      const body = JSON.stringify({
        model: req.model,
        messages: req.messages,
        tools: req.tools && req.tools.length > 0 ? req.tools : undefined,
        response_format: req.response_format,
        temperature: req.temperature,
        max_completion_tokens: req.max_completion_tokens,
      });
      return withRetry(() => once(body, req.signal), {
        clock: opts.clock,
        signal: req.signal,
        schedule: opts.retrySchedule,
        onRetry: opts.onRetry,
      });
    },
  };
}
