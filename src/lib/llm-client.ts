import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { Clock } from './clock.js';
import { parseRetryAfter, withRetry } from './retry.js';
import { kindForStatus, nodeHttpFetch, snippet, type FailureKind, type HttpFetch } from './http.js';

// A deliberately small OpenAI Chat Completions client over fetch. No SDK: SDK retries would multiply with
// ours (two layers of retries would multiply the attempts), and any compatible base URL (or a fake on 127.0.0.1) must work unchanged.

const WireToolCallSchema = Type.Object({
  id: Type.Optional(Type.String()),
  type: Type.Optional(Type.String()),
  function: Type.Object({
    name: Type.String(),
    // Some compatible servers send the arguments as an object rather than a JSON string.
    arguments: Type.Optional(Type.Union([Type.String(), Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
  }),
});

// The deprecated single `function_call` (OpenAI `ChatCompletionMessage.function_call`), still sent by some servers.
const WireFunctionCallSchema = Type.Object({
  name: Type.String(),
  arguments: Type.Optional(Type.Union([Type.String(), Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
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
        function_call: Type.Optional(Type.Union([WireFunctionCallSchema, Type.Null()])),
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
  | { role: 'assistant'; content: string | null; tool_calls?: WireToolCall[]; function_call?: { name: string; arguments: string } }
  | { role: 'tool'; tool_call_id: string; content: string }
  /** The legacy answer to a `function_call`. */
  | { role: 'function'; name: string; content: string };

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
  /** A legacy `function_call` answer (arguments as a JSON string, `null` when the server sent none). */
  function_call?: { name: string; arguments: string } | null;
  usage: Usage | null;
  finish_reason: string | null;
}

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
  readonly kind: FailureKind;
  readonly status?: number;
  readonly code: string | null;
  readonly type: string | null;
  readonly retryAfterMs: number | null;
  /** No HTTP response at all; whether that is worth a retry is decided by the socket error in `cause`. */
  readonly network: boolean;
  /** The endpoint's own message, without the status. */
  readonly detail: string;

  constructor(
    kind: FailureKind,
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

/** Arguments as the JSON text the server meant: a string as sent, an object serialized, and none as `null`. */
function argumentsText(a: string | Record<string, unknown> | null | undefined): string {
  return typeof a === 'string' ? a : JSON.stringify(a ?? null);
}

function normalizeToolCalls(calls: Static<typeof WireToolCallSchema>[] | null | undefined): WireToolCall[] {
  if (!calls || calls.length === 0) return [];
  return calls.map((c, i) => ({
    id: c.id ?? `call_${i}`,
    type: 'function',
    function: { name: c.function.name, arguments: argumentsText(c.function.arguments) },
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
      function_call: choice.message.function_call ? { name: choice.message.function_call.name, arguments: argumentsText(choice.message.function_call.arguments) } : null,
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
