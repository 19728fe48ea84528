import { Type, type Static } from '@sinclair/typebox';
import type { Clock } from '../lib/clock.js';
import { nodeHttpFetch, type HttpFetch } from '../lib/http.js';
import { threadFetch, WireMeter } from '../lib/http-thread.js';
import type { ToolCall } from '../engine/types.js';
import { configWithDefaults, type ResolvedConfigs } from './configs.js';
import { bestEffort, closeSignal } from './session-close.js';
import { createJsonClient, type ErrorReader, type JsonClient } from './http-json.js';
import { decode, parseMaybeJson } from './json-values.js';
import { validateWithGet } from './credential-check.js';
import { ProviderError, type AgentReply, type ProviderAdapter, type ProviderSession } from '../engine/provider.js';
import { VapiCallSession } from './vapi-call.js';

// Vapi. Text tests go through the Chat API with a session: creating the session is
// the conversation's "create-call", one `POST /chat {sessionId, input}` per tester line, and reading the
// session back at the end is the "get-call" (its cost). `mode: "call"` (or a phone_number) runs a real voice
// call instead: see vapi-call.ts.

export type VapiResolvedConfig = ResolvedConfigs['vapi'];

export interface VapiAdapterDeps {
  fetch?: HttpFetch;
  retrySchedule?: readonly number[];
  /** How often a voice call is polled with GET /call/{id} while it runs. */
  callPollMs?: number;
  /** Told about every retried request (retries of POST /call in particular deserve a log line). */
  onRetry?: (info: { attempt: number; delayMs: number; error: unknown }) => void;
}

/** NestJS error bodies: {"message": string | string[], "error": "Unauthorized", "statusCode": 401}. */
export const readVapiError: ErrorReader = (body) => {
  const b = body as { message?: unknown; error?: unknown } | null;
  const m = b?.message;
  if (typeof m === 'string' && m.trim()) return { message: m };
  if (Array.isArray(m) && m.length > 0) return { message: m.map(String).join('; ') };
  return { message: typeof b?.error === 'string' ? b.error : null };
};

const WireToolCall = Type.Object({
  id: Type.Optional(Type.String()),
  function: Type.Object({ name: Type.String(), arguments: Type.Optional(Type.Unknown()) }),
});
export type WireToolCall = Static<typeof WireToolCall>;

// Lenient on purpose: the OpenAPI reuses call-transcript shapes for chat user/system messages,
// so text may sit in `content` or in `message`.
const ChatMessage = Type.Object({
  role: Type.String(),
  content: Type.Optional(Type.Unknown()),
  message: Type.Optional(Type.Unknown()),
  tool_calls: Type.Optional(Type.Union([Type.Array(WireToolCall), Type.Null()])),
  tool_call_id: Type.Optional(Type.String()),
});
const Chat = Type.Object({
  id: Type.String(),
  output: Type.Optional(Type.Array(ChatMessage)),
  cost: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
});
const Session = Type.Object({ id: Type.String(), cost: Type.Optional(Type.Union([Type.Number(), Type.Null()])) });

const textOf = (m: { content?: unknown; message?: unknown }): string => {
  const v = m.content ?? m.message;
  return typeof v === 'string' ? v : '';
};

/** One turn's `output[]`: tool-call messages and tool results may precede the final assistant text. */
export function readChatOutput(output: Static<typeof ChatMessage>[]): { content: string; tool_calls: ToolCall[] } {
  const results = new Map<string, unknown>();
  for (const m of output) if (m.role === 'tool' && m.tool_call_id) results.set(m.tool_call_id, parseMaybeJson(textOf(m)));
  const said: string[] = [];
  const calls: ToolCall[] = [];
  for (const m of output) {
    if (m.role !== 'assistant') continue;
    for (const [i, tc] of (m.tool_calls ?? []).entries()) {
      const id = tc.id ?? `call_${calls.length + i}`;
      calls.push({ id, name: tc.function.name, arguments: parseMaybeJson(tc.function.arguments ?? {}), result: results.has(id) ? results.get(id) : null });
    }
    const text = textOf(m).trim();
    if (text) said.push(text);
  }
  return { content: said.join('\n'), tool_calls: calls };
}

class VapiChatSession implements ProviderSession {
  private chatCost = 0;
  private sawChatCost = false;
  private sessionCost: number | null = null;
  private closed = false;

  constructor(private readonly client: JsonClient, private readonly sessionId: string, private readonly meter: WireMeter) {}

  async greeting(): Promise<AgentReply | null> {
    return null; // the Chat API only ever answers an input
  }

  async send(text: string, signal: AbortSignal): Promise<AgentReply> {
    if (this.closed) throw new ProviderError('provider_error', 'session already closed');
    this.meter.take(); // a turn's timing covers its own requests only
    const raw = await this.client.request('POST', '/chat', { body: { sessionId: this.sessionId, input: text }, signal });
    const chat = decode(Chat, raw, 'chat response');
    if (typeof chat.cost === 'number') {
      this.chatCost += chat.cost;
      this.sawChatCost = true;
    }
    return this.meter.stamp({ ...readChatOutput(chat.output ?? []), ended: false });
  }

  /** Ends the session (status "completed", the documented end state) and reads it back for its cost. */
  async close(reason: 'completed' | 'canceled' | 'error'): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const signal = closeSignal();
    const path = `/session/${encodeURIComponent(this.sessionId)}`;
    await bestEffort(() => this.client.request('PATCH', path, { body: { status: 'completed' }, signal, retry: false }));
    if (reason === 'canceled') return; // nobody reads a canceled run's cost; let go of the worker
    await bestEffort(async () => {
      const s = decode(Session, await this.client.request('GET', path, { signal, retry: false }), 'session');
      if (typeof s.cost === 'number') this.sessionCost = s.cost;
    });
  }

  costUsd(): number | null {
    // The session's own total includes what the chats do not (e.g. analysis); the chats' sum is the fallback.
    return this.sessionCost ?? (this.sawChatCost ? Math.round(this.chatCost * 1e8) / 1e8 : null);
  }
}

export function vapiClient(cfg: VapiResolvedConfig, clock: Clock, deps: VapiAdapterDeps): JsonClient {
  return createJsonClient({
    baseUrl: cfg.base_url,
    headers: { authorization: `Bearer ${cfg.api_key}` },
    fetch: deps.fetch ?? nodeHttpFetch,
    clock,
    readError: readVapiError,
    retrySchedule: deps.retrySchedule,
    onRetry: deps.onRetry,
  });
}

export function createVapiAdapter(deps: VapiAdapterDeps = {}): ProviderAdapter {
  return {
    platform: 'vapi',
    async openSession({ config, scenario, scenarioRunId, runId, signal, clock, maxTurns, voiceTesterModel }) {
      const cfg = configWithDefaults('vapi', config as Record<string, unknown>);
      // chat turns are sent and timed on the timing thread (lib/http-thread.ts); a voice call keeps its own clock
      const meter = new WireMeter(deps.fetch ?? threadFetch);
      const client = vapiClient(cfg, clock, cfg.mode === 'call' ? deps : { ...deps, fetch: meter.fetch });
      if (cfg.mode === 'call') return new VapiCallSession(client, cfg, {
        scenario, runId, scenarioRunId, clock, fetch: deps.fetch ?? nodeHttpFetch, pollMs: deps.callPollMs, maxTurns, voiceTesterModel,
      });
      const body: Record<string, unknown> = { assistantId: cfg.assistant_id, name: `rehearsal ${scenarioRunId}`.slice(0, 40) };
      // Variables are substituted when the session is created and baked into it (Vapi chat/variable-substitution).
      if (cfg.variable_values) body.assistantOverrides = { variableValues: cfg.variable_values };
      const session = decode(Session, await client.request('POST', '/session', { body, signal }), 'session');
      return new VapiChatSession(client, session.id, meter);
    },
    validate(config, opts) {
      const cfg = configWithDefaults('vapi', config as Record<string, unknown>);
      return validateWithGet(vapiClient(cfg, opts.clock, deps), `/assistant/${encodeURIComponent(cfg.assistant_id)}`, { ...opts, notFound: [404] });
    },
  };
}
