import { Type, type Static } from '@sinclair/typebox';
import type { Clock } from '../lib/clock.js';
import { nodeHttpFetch, type HttpFetch } from '../lib/http.js';
import type { ToolCall, TranscriptEntry } from '../engine/types.js';
import { configWithDefaults, type ResolvedConfigs } from './configs.js';
import { ConvaiSocket, type InitData } from './elevenlabs-socket.js';
import { closeSignal } from './session-close.js';
import { createJsonClient, type ErrorReader, type JsonClient } from './http-json.js';
import { decode, parseMaybeJson } from './json-values.js';
import { validateWithGet } from './credential-check.js';
import { ProviderError, type AgentReply, type ProviderAdapter, type ProviderSession } from '../engine/provider.js';

// ElevenLabs Agents. A signed URL opens the conversation websocket in text-only
// mode (elevenlabs-socket.ts); after the conversation the stored record (GET /v1/convai/conversations/{id}) is
// polled until `done`: it carries the arguments and results of server-side tools, which the socket only names,
// and the charges. `region` picks the API host (configWithDefaults).

type ElevenLabsConfig = ResolvedConfigs['elevenlabs'];

export interface ElevenLabsAdapterDeps {
  fetch?: HttpFetch;
  retrySchedule?: readonly number[];
  onRetry?: (info: { attempt: number; delayMs: number; error: unknown }) => void;
  /** How long greeting() waits for an opening line when the agent's first message could not be looked up. */
  greetingGraceMs?: number;
  /** How long a turn with an unanswered tool event waits for something new before it ends. */
  toolSettleMs?: number;
}

/** {"detail":{"status":"invalid_api_key","message":"Invalid API key"}}, {"detail":[{loc,msg,type}]} or {"detail":"…"}. */
export const readElevenLabsError: ErrorReader = (body) => {
  const d = (body as { detail?: unknown } | null)?.detail;
  if (typeof d === 'string') return { message: d };
  if (Array.isArray(d)) return { message: d.map((e) => String((e as { msg?: unknown })?.msg ?? JSON.stringify(e))).join('; ') || null };
  if (d && typeof d === 'object') {
    const o = d as { status?: unknown; message?: unknown };
    return { message: typeof o.message === 'string' ? o.message : null, code: typeof o.status === 'string' ? o.status : null };
  }
  return { message: null };
};

const SignedUrl = Type.Object({ signed_url: Type.String({ minLength: 1 }) });
const Agent = Type.Object({ conversation_config: Type.Optional(Type.Object({ agent: Type.Optional(Type.Object({ first_message: Type.Optional(Type.Union([Type.String(), Type.Null()])) })) })) });
const RecordToolCall = Type.Object({ request_id: Type.String(), tool_name: Type.Optional(Type.String()), params_as_json: Type.Optional(Type.Union([Type.String(), Type.Null()])) });
const RecordToolResult = Type.Object({ request_id: Type.String(), result_value: Type.Optional(Type.Union([Type.String(), Type.Null()])), is_error: Type.Optional(Type.Boolean()) });
const Conversation = Type.Object({
  conversation_id: Type.String(),
  status: Type.String(),
  transcript: Type.Optional(Type.Array(Type.Object({
    role: Type.String(),
    message: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    tool_calls: Type.Optional(Type.Union([Type.Array(RecordToolCall), Type.Null()])),
    tool_results: Type.Optional(Type.Union([Type.Array(RecordToolResult), Type.Null()])),
  }))),
  metadata: Type.Optional(Type.Object({
    cost: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
    cost_fiat: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
    charging: Type.Optional(Type.Union([Type.Object({
      llm_price: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
      platform_price: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
    }), Type.Null()])),
  })),
});
type ConversationRecord = Static<typeof Conversation>;

/** The record's tool calls by request id, in order, with the ordinal of the agent message they precede. */
function recordTools(rec: ConversationRecord): { call: ToolCall; agentTurn: number }[] {
  const results = new Map<string, unknown>();
  for (const e of rec.transcript ?? []) for (const r of e.tool_results ?? []) results.set(r.request_id, r.is_error ? { error: parseMaybeJson(r.result_value ?? null) } : parseMaybeJson(r.result_value ?? null));
  const out: { call: ToolCall; agentTurn: number }[] = [];
  let agentTurn = 0;
  for (const e of rec.transcript ?? []) {
    for (const c of e.tool_calls ?? []) out.push({ call: { id: c.request_id, name: c.tool_name ?? '', arguments: parseMaybeJson(c.params_as_json ?? null), result: results.has(c.request_id) ? results.get(c.request_id) : null }, agentTurn });
    if (e.role === 'agent' && e.message?.trim()) agentTurn++;
  }
  return out;
}

class ElevenLabsSession implements ProviderSession {
  private record: ConversationRecord | null = null;
  private closed = false;
  readonly closeTimeoutMs: number;

  constructor(
    private readonly socket: ConvaiSocket,
    private readonly client: JsonClient,
    private readonly cfg: ElevenLabsConfig,
    private readonly clock: Clock,
    /** true/false when the agent's first message is known; null when it could not be looked up. */
    private readonly greets: boolean | null,
    private readonly greetingGraceMs: number,
  ) {
    this.closeTimeoutMs = cfg.post_call_timeout_ms + 5000;
  }

  async greeting(signal: AbortSignal): Promise<AgentReply | null> {
    if (this.greets === false && !this.socket.hasResponse()) return null;
    if (this.greets === null && !this.socket.hasResponse()) {
      // Unknown: give the opening line a short while to arrive, then let the caller speak.
      const grace = new AbortController();
      const onAbort = () => grace.abort(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      this.clock.sleep(this.greetingGraceMs, grace.signal).then(() => grace.abort(new Error('no greeting')), () => undefined);
      try {
        return this.toReply(await this.socket.nextTurn(grace.signal));
      } catch (err) {
        if (signal.aborted) throw err;
        if (err instanceof ProviderError) throw err;
        return null;
      } finally {
        signal.removeEventListener('abort', onAbort);
        grace.abort();
      }
    }
    return this.toReply(await this.socket.nextTurn(signal));
  }

  async send(text: string, signal: AbortSignal): Promise<AgentReply> {
    // The agent hung up after its last answer: nothing more will come, and that is how the conversation ends.
    if (!this.socket.userMessage(text)) return { content: '', tool_calls: [], ended: true };
    return this.toReply(await this.socket.nextTurn(signal));
  }

  private toReply(t: { text: string; tool_calls: ToolCall[]; ended: boolean }): AgentReply {
    return { content: t.text, tool_calls: t.tool_calls, ended: t.ended };
  }

  /** Hangs up, then (unless canceled) polls the stored record until ElevenLabs has processed it. */
  async close(reason: 'completed' | 'canceled' | 'error'): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.socket.close();
    const id = this.socket.conversationId;
    if (reason === 'canceled' || !id) return;
    const signal = closeSignal(this.closeTimeoutMs);
    const started = this.clock.now();
    try {
      for (;;) {
        const rec = decode(Conversation, await this.client.request('GET', `/v1/convai/conversations/${encodeURIComponent(id)}`, { signal }), 'conversation');
        if (rec.status === 'done' || rec.status === 'failed') {
          this.record = rec;
          return;
        }
        if (this.clock.now() - started + this.cfg.post_call_poll_ms > this.cfg.post_call_timeout_ms) return;
        await this.clock.sleep(this.cfg.post_call_poll_ms, signal);
      }
    } catch {
      // No finished record: the live transcript stands and the cost stays unknown.
    }
  }

  /**
   * `cost_fiat` is the conversation's total in USD (LLM and platform); without it, the two USD parts added up.
   * `cost` is in credits and never used.
   */
  costUsd(): number | null {
    const m = this.record?.metadata;
    if (typeof m?.cost_fiat === 'number') return m.cost_fiat;
    const llm = m?.charging?.llm_price;
    const platform = m?.charging?.platform_price;
    return typeof llm === 'number' && typeof platform === 'number' ? Math.round((llm + platform) * 1e8) / 1e8 : null;
  }

  /** Fills in server-tool arguments and results from the record; adds tool calls the socket never showed. */
  transcriptOverride(live: readonly TranscriptEntry[]): TranscriptEntry[] | null {
    if (!this.record) return null;
    const tools = recordTools(this.record);
    if (tools.length === 0) return null;
    const byId = new Map(tools.map((t) => [t.call.id, t.call]));
    const seen = new Set<string>();
    const out = live.map((e) => ({ ...e, ...(e.tool_calls ? { tool_calls: e.tool_calls.map((c) => ({ ...c })) } : {}) }));
    for (const e of out) {
      for (const c of e.tool_calls ?? []) {
        const r = byId.get(c.id);
        if (!r) continue;
        seen.add(c.id);
        if (!c.name) c.name = r.name;
        if (c.arguments === null) c.arguments = r.arguments;
        if (c.result === null) c.result = r.result;
      }
    }
    const agentEntries = out.filter((e) => e.role === 'assistant');
    for (const t of tools) {
      if (seen.has(t.call.id)) continue;
      const target = agentEntries[Math.min(t.agentTurn, agentEntries.length - 1)];
      if (target) target.tool_calls = [...(target.tool_calls ?? []), t.call];
    }
    return out;
  }
}

function elevenLabsClient(cfg: ElevenLabsConfig, clock: Clock, deps: ElevenLabsAdapterDeps): JsonClient {
  return createJsonClient({ baseUrl: cfg.base_url, headers: { 'xi-api-key': cfg.api_key }, fetch: deps.fetch ?? nodeHttpFetch, clock, readError: readElevenLabsError, retrySchedule: deps.retrySchedule, onRetry: deps.onRetry });
}

function initData(cfg: ElevenLabsConfig): InitData {
  const agent: Record<string, unknown> = {};
  if (cfg.first_message) agent.first_message = cfg.first_message;
  if (cfg.prompt_override) agent.prompt = { prompt: cfg.prompt_override };
  const override: Record<string, unknown> = {};
  if (cfg.text_only_override) override.conversation = { text_only: true };
  if (Object.keys(agent).length) override.agent = agent;
  return {
    ...(Object.keys(override).length ? { conversation_config_override: override } : {}),
    ...(cfg.dynamic_variables ? { dynamic_variables: cfg.dynamic_variables } : {}),
  };
}

export function createElevenLabsAdapter(deps: ElevenLabsAdapterDeps = {}): ProviderAdapter {
  return {
    platform: 'elevenlabs',
    async openSession({ config, signal, clock }) {
      const cfg = configWithDefaults('elevenlabs', config as Record<string, unknown>);
      const client = elevenLabsClient(cfg, clock, deps);
      const agentPath = `/v1/convai/agents/${encodeURIComponent(cfg.agent_id)}`;
      const signed = decode(SignedUrl, await client.request('GET', `/v1/convai/conversation/get-signed-url?agent_id=${encodeURIComponent(cfg.agent_id)}`, { signal }), 'signed URL');
      // Whether the agent speaks first decides whether greeting() waits: an overridden or configured first message.
      let greets: boolean | null = cfg.first_message ? true : null;
      if (greets === null) {
        try {
          const agent = decode(Agent, await client.request('GET', agentPath, { signal }), 'agent');
          greets = Boolean(agent.conversation_config?.agent?.first_message?.trim());
        } catch (err) {
          if (signal.aborted || (err instanceof ProviderError && err.kind === 'invalid_credentials')) throw err;
        }
      }
      const socket = await ConvaiSocket.open(signed.signed_url, initData(cfg), cfg.client_tool_results ?? {}, signal, deps.toolSettleMs);
      return new ElevenLabsSession(socket, client, cfg, clock, greets, deps.greetingGraceMs ?? 2000);
    },
    validate(config, opts) {
      const cfg = configWithDefaults('elevenlabs', config as Record<string, unknown>);
      // Which status ElevenLabs uses for an unknown agent is not documented: both 404 and 422 mean not found.
      return validateWithGet(elevenLabsClient(cfg, opts.clock, deps), `/v1/convai/agents/${encodeURIComponent(cfg.agent_id)}`, { ...opts, notFound: [404, 422] });
    },
  };
}
