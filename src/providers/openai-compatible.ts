import type { Clock } from '../lib/clock.js';
import { createLlmClient, errorFromResponse, LlmError, networkError, type ChatMessage, type LlmClient } from '../lib/llm-client.js';
import type { HttpFetch } from '../lib/http.js';
import { threadFetch, WireMeter, type TimedFetch } from '../lib/http-thread.js';
import type { ToolCall } from '../engine/types.js';
import { statusFailure, validateFailure, validateWith } from './credential-check.js';
import { ProviderError, type AgentReply, type ProviderAdapter, type ProviderSession, type ValidateResult } from '../engine/provider.js';

// Any OpenAI Chat Completions endpoint. The API is stateless, so the session
// is our own message array, and since the endpoint never executes tools we answer them from `tool_mocks`.

export interface OpenAiCompatibleConfig {
  base_url: string;
  model: string;
  api_key?: string;
  system_prompt?: string;
  tools?: unknown[];
  tool_mocks?: Record<string, unknown>;
  temperature?: number;
  max_completion_tokens?: number;
  extra_headers?: Record<string, string>;
  price_per_1k_input?: number;
  price_per_1k_output?: number;
  timeout_ms?: number;
}

/** Bounds the tool loop: an agent that keeps calling tools would otherwise never answer the caller. */
export const MAX_TOOL_ROUNDS = 8;

export function toProviderError(err: unknown): unknown {
  if (!(err instanceof LlmError)) return err;
  return new ProviderError(err.kind, err.detail, { status: err.status, code: err.code, retryAfterMs: err.retryAfterMs, cause: err });
}

/** Accepts both the wire form `{type:"function", function:{…}}` and the bare `{name, description, parameters}`. */
function toWireTools(tools: unknown[] | undefined): unknown[] | undefined {
  if (!tools || tools.length === 0) return undefined;
  return tools.map((t) => {
    const o = t as { type?: unknown; function?: unknown };
    return o && o.type === 'function' && o.function ? t : { type: 'function', function: t };
  });
}

function parseArguments(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw; // kept verbatim so the transcript shows what the agent actually sent
  }
}

class OpenAiCompatibleSession implements ProviderSession {
  private readonly messages: ChatMessage[] = [];
  private readonly tools: unknown[] | undefined;
  private inputTokens = 0;
  private outputTokens = 0;
  private closed = false;

  constructor(private readonly cfg: OpenAiCompatibleConfig, private readonly client: LlmClient, private readonly meter: WireMeter) {
    if (cfg.system_prompt) this.messages.push({ role: 'system', content: cfg.system_prompt });
    this.tools = toWireTools(cfg.tools);
  }

  async greeting(): Promise<AgentReply | null> {
    return null; // a completion endpoint only ever answers
  }

  async send(text: string, signal: AbortSignal): Promise<AgentReply> {
    if (this.closed) throw new ProviderError('provider_error', 'session already closed');
    this.messages.push({ role: 'user', content: text });
    this.meter.take(); // a turn's timing covers its own requests only
    const calls: ToolCall[] = [];
    const said: string[] = [];
    for (let round = 0; round < MAX_TOOL_ROUNDS; round++) {
      let res: Awaited<ReturnType<LlmClient['chat']>>;
      try {
        res = await this.client.chat({
          model: this.cfg.model,
          messages: this.messages,
          tools: this.tools,
          temperature: this.cfg.temperature,
          max_completion_tokens: this.cfg.max_completion_tokens,
          signal,
        });
      } catch (err) {
        throw toProviderError(err);
      }
      if (res.usage) {
        this.inputTokens += res.usage.prompt_tokens;
        this.outputTokens += res.usage.completion_tokens;
      }
      // Text spoken alongside a tool call ("let me check…") is part of what the caller hears.
      if (res.content && res.content.trim()) said.push(res.content);
      if (res.tool_calls.length === 0 && res.function_call) {
        // The legacy form: one call, answered with a `function` message (it has no call id).
        const fc = res.function_call;
        const result = this.mockResult(fc.name);
        calls.push({ id: `function_call_${round + 1}`, name: fc.name, arguments: parseArguments(fc.arguments), result });
        this.messages.push({ role: 'assistant', content: res.content, function_call: fc });
        this.messages.push({ role: 'function', name: fc.name, content: typeof result === 'string' ? result : JSON.stringify(result) });
        continue;
      }
      if (res.tool_calls.length === 0) {
        this.messages.push({ role: 'assistant', content: res.content ?? '' });
        return { content: said.join('\n'), tool_calls: calls, ended: false, timing: this.meter.take() };
      }
      this.messages.push({ role: 'assistant', content: res.content, tool_calls: res.tool_calls });
      for (const tc of res.tool_calls) {
        const name = tc.function.name;
        const result = this.mockResult(name);
        calls.push({ id: tc.id, name, arguments: parseArguments(tc.function.arguments), result });
        // A string mock already is the text the tool returns; anything else travels as JSON.
        this.messages.push({ role: 'tool', tool_call_id: tc.id, content: typeof result === 'string' ? result : JSON.stringify(result) });
      }
    }
    throw new ProviderError('provider_error', `agent kept calling tools for ${MAX_TOOL_ROUNDS} rounds without answering`);
  }

  private mockResult(name: string): unknown {
    const mocks = this.cfg.tool_mocks ?? {};
    return Object.hasOwn(mocks, name) ? mocks[name] : { error: `no mock configured for tool ${name}` };
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  costUsd(): number | null {
    const pin = this.cfg.price_per_1k_input;
    const pout = this.cfg.price_per_1k_output;
    if (pin === undefined && pout === undefined) return null;
    const usd = (this.inputTokens / 1000) * (pin ?? 0) + (this.outputTokens / 1000) * (pout ?? 0);
    return Math.round(usd * 1e8) / 1e8;
  }
}

function headersFor(cfg: OpenAiCompatibleConfig): Record<string, string> {
  const h: Record<string, string> = { accept: 'application/json', ...cfg.extra_headers };
  if (cfg.api_key) h.authorization = `Bearer ${cfg.api_key}`;
  return h;
}

async function validate(cfg: OpenAiCompatibleConfig, opts: { signal: AbortSignal; clock: Clock }, fetchImpl: HttpFetch): Promise<ValidateResult> {
  return validateWith(
    { ...opts, timeoutMs: cfg.timeout_ms },
    async (signal) => {
      const res = await fetchImpl(`${cfg.base_url.replace(/\/+$/, '')}/models`, { headers: headersFor(cfg), signal });
      const text = await res.text();
      if (res.ok) return { valid: true, message: 'credentials accepted', details: { status: res.status } };
      if (res.status === 404) {
        // Many compatible servers have no model list. Nothing else proves key and model without a billed
        // completion, so the first run does.
        return {
          valid: true,
          message: 'not verified: the endpoint has no model list (GET /models answered 404); the API key and model are proven by the first run',
          details: { status: 404, verified: false, not_checked: ['api_key', 'model'] },
        };
      }
      const err = new ProviderError('provider_error', errorFromResponse(res.status, text, null, res.statusText).detail, { status: res.status });
      // Status only, no provider_code: this check's details have never carried OpenAI's error codes.
      return statusFailure(res.status, err.message, []);
    },
    // Any failure before an HTTP answer is the endpoint not being reachable.
    (err) => validateFailure('unreachable', `provider: ${networkError(err).detail}`),
  );
}

/** Agent requests go through the timing thread by default, so our own load does not count as the agent's latency. */
export function createOpenAiCompatibleAdapter(deps: { fetch?: TimedFetch; retrySchedule?: readonly number[] } = {}): ProviderAdapter {
  const fetchImpl: TimedFetch = deps.fetch ?? threadFetch;
  return {
    platform: 'openai_compatible',
    async openSession({ config, clock }) {
      const cfg = config as OpenAiCompatibleConfig;
      const meter = new WireMeter(fetchImpl);
      const client = createLlmClient({
        baseUrl: cfg.base_url,
        apiKey: cfg.api_key ?? null,
        clock,
        fetch: meter.fetch,
        headers: cfg.extra_headers,
        retrySchedule: deps.retrySchedule,
      });
      return new OpenAiCompatibleSession(cfg, client, meter);
    },
    validate: (config, opts) => validate(config as OpenAiCompatibleConfig, opts, fetchImpl),
  };
}
