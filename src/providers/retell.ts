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

// Retell AI Chat API. create-chat opens the conversation with a chat agent, each
// tester line is one create-chat-completion (its answer holds only the new messages, tool invocations and results
// included), end-chat hangs up (204), and get-chat afterwards carries `chat_cost` in cents.

type RetellConfig = ResolvedConfigs['retell'];

export interface RetellAdapterDeps {
  fetch?: HttpFetch;
  retrySchedule?: readonly number[];
  onRetry?: (info: { attempt: number; delayMs: number; error: unknown }) => void;
}

/** Every non-2xx: {"status":"error","message":"..."}. */
export const readRetellError: ErrorReader = (body) => {
  const m = (body as { message?: unknown } | null)?.message;
  return { message: typeof m === 'string' && m.trim() ? m : null };
};

const Message = Type.Object({
  role: Type.String(),
  content: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  tool_call_id: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  arguments: Type.Optional(Type.Unknown()),
  successful: Type.Optional(Type.Boolean()),
});
type Message = Static<typeof Message>;
const ChatResponse = Type.Object({
  chat_id: Type.String(),
  chat_status: Type.Optional(Type.String()),
  message_with_tool_calls: Type.Optional(Type.Array(Message)),
  chat_cost: Type.Optional(Type.Object({ combined_cost: Type.Optional(Type.Number()) })),
});
const Completion = Type.Object({ messages: Type.Array(Message) });

/** New messages → one reply: agent text joined, each invocation paired with its result. */
export function readMessages(messages: readonly Message[]): { content: string; tool_calls: ToolCall[] } {
  const results = new Map<string, unknown>();
  for (const m of messages) if (m.role === 'tool_call_result' && m.tool_call_id) results.set(m.tool_call_id, parseMaybeJson(m.content ?? null));
  const said: string[] = [];
  const calls: ToolCall[] = [];
  for (const m of messages) {
    if (m.role === 'agent' && m.content?.trim()) said.push(m.content.trim());
    else if (m.role === 'tool_call_invocation') {
      const id = m.tool_call_id ?? `call_${calls.length}`;
      calls.push({ id, name: m.name ?? 'unknown', arguments: parseMaybeJson(m.arguments ?? {}), result: results.has(id) ? results.get(id) : null });
    }
  }
  return { content: said.join('\n'), tool_calls: calls };
}

class RetellChatSession implements ProviderSession {
  private closed = false;
  private costCents: number | null = null;

  constructor(private readonly client: JsonClient, private readonly chat: Static<typeof ChatResponse>, private readonly meter: WireMeter) {}

  async greeting(): Promise<AgentReply | null> {
    // A chat agent that speaks first has its opening line in the new chat's messages.
    const opening = readMessages(this.chat.message_with_tool_calls ?? []);
    return opening.content || opening.tool_calls.length ? { ...opening, ended: false } : null;
  }

  async send(text: string, signal: AbortSignal): Promise<AgentReply> {
    if (this.closed) throw new ProviderError('provider_error', 'chat already ended');
    this.meter.take(); // a turn's timing covers its own requests only
    let raw: unknown;
    try {
      raw = await this.client.request('POST', '/create-chat-completion', { body: { chat_id: this.chat.chat_id, content: text }, signal });
    } catch (err) {
      // The agent may have ended the chat (end_call, end_chat_after_silence_ms): then it is over, not failed.
      if (!(err instanceof ProviderError) || err.kind === 'invalid_credentials') throw err;
      const status = await this.status(signal).catch(() => null);
      if (status === 'ended') return this.meter.stamp({ content: '', tool_calls: [], ended: true });
      if (status === 'error') throw new ProviderError('provider_error', 'the chat is in error status', { cause: err });
      throw err;
    }
    const reply = readMessages(decode(Completion, raw, 'chat completion').messages);
    // The completion carries no status; a tool invocation (end_call among them) may have ended the chat.
    if (!reply.tool_calls.length) return this.meter.stamp({ ...reply, ended: false });
    const status = await this.status(signal);
    if (status === 'error') throw new ProviderError('provider_error', 'the chat is in error status');
    return this.meter.stamp({ ...reply, ended: status === 'ended' });
  }

  /** `chat_status` from get-chat: ongoing, ended (no new response can be generated) or error. */
  private async status(signal: AbortSignal): Promise<string | undefined> {
    const raw = await this.client.request('GET', `/get-chat/${encodeURIComponent(this.chat.chat_id)}`, { signal });
    return decode(ChatResponse, raw, 'chat').chat_status;
  }

  async close(reason: 'completed' | 'canceled' | 'error'): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const signal = closeSignal();
    const id = encodeURIComponent(this.chat.chat_id);
    await bestEffort(() => this.client.request('PATCH', `/end-chat/${id}`, { signal, retry: false }));
    if (reason === 'canceled') return; // a canceled run's cost is never shown; let go of the worker
    // get-chat after the end carries the cost (and, once analysed, chat_analysis).
    await bestEffort(async () => {
      const chat = decode(ChatResponse, await this.client.request('GET', `/get-chat/${id}`, { signal, retry: false }), 'chat');
      const cents = chat.chat_cost?.combined_cost;
      if (typeof cents === 'number') this.costCents = cents;
    });
  }

  costUsd(): number | null {
    return this.costCents === null ? null : Math.round(this.costCents * 1e6) / 1e8; // cents → USD
  }
}

function retellClient(cfg: RetellConfig, clock: Clock, deps: RetellAdapterDeps): JsonClient {
  return createJsonClient({
    baseUrl: cfg.base_url,
    headers: { authorization: `Bearer ${cfg.api_key}` },
    fetch: deps.fetch ?? nodeHttpFetch,
    clock,
    readError: readRetellError,
    retrySchedule: deps.retrySchedule,
    onRetry: deps.onRetry,
  });
}

export function createRetellAdapter(deps: RetellAdapterDeps = {}): ProviderAdapter {
  return {
    platform: 'retell',
    async openSession({ config, runId, scenarioRunId, signal, clock }) {
      const cfg = configWithDefaults('retell', config as Record<string, unknown>);
      // chat turns are sent and timed on the timing thread (lib/http-thread.ts)
      const meter = new WireMeter(deps.fetch ?? threadFetch);
      const client = retellClient(cfg, clock, { ...deps, fetch: meter.fetch });
      const body = {
        agent_id: cfg.agent_id,
        ...(cfg.agent_version !== undefined ? { agent_version: cfg.agent_version } : {}),
        metadata: { ...cfg.metadata, rehearsal_run_id: runId, rehearsal_scenario_run_id: scenarioRunId },
        ...(cfg.dynamic_variables ? { retell_llm_dynamic_variables: cfg.dynamic_variables } : {}),
      };
      const chat = decode(ChatResponse, await client.request('POST', '/create-chat', { body, signal }), 'chat');
      return new RetellChatSession(client, chat, meter);
    },
    validate(config, opts) {
      const cfg = configWithDefaults('retell', config as Record<string, unknown>);
      // Retell answers an unknown id with 422 "Cannot find requested asset"; 404 kept for other deployments.
      return validateWithGet(retellClient(cfg, opts.clock, deps), `/get-chat-agent/${encodeURIComponent(cfg.agent_id)}`, { ...opts, notFound: [404, 422] });
    },
  };
}
