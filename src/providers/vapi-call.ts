import { Type, type Static } from '@sinclair/typebox';
import type { Clock } from '../lib/clock.js';
import type { HttpFetch } from '../lib/http.js';
import type { ScenarioSpec, ToolCall, TranscriptEntry } from '../engine/types.js';
import { bestEffort, closeSignal } from './session-close.js';
import { decode, parseMaybeJson } from './json-values.js';
import type { JsonClient } from './http-json.js';
import { defaultClassify, type RetryDecision } from '../lib/retry.js';
import { ProviderError, type AgentReply, type ProviderSession, type SessionEndReason } from '../engine/provider.js';
import type { VapiResolvedConfig } from './vapi.js';

// The Vapi voice path: `POST /call` places a real call from `phone_number_id` to
// `phone_number`, where the agent under test answers. The caller is a transient Vapi assistant that plays the
// scenario (its system prompt is built from persona, goal, instructions and script). `GET /call/{id}` is polled
// until the call has ended; its transcript and metrics are read back.
//
// A phone call cannot be driven turn by turn from here, so the session runs the whole call in its first step:
// greeting() (or send(), whichever the engine calls first) waits for the call to end and returns it as one
// reply with `ended: true`, so the engine asks the tester for nothing. transcriptOverride() then hands the
// engine the call's own transcript. In our call record the roles are the other way round: Vapi's "bot" is our
// tester (→ "user"), Vapi's "user" is the agent under test (→ "assistant").
//
// The agent's tool calls are not in our call: they are in the agent's own (inbound) call record. When the agent
// under test is the Vapi assistant `assistant_id`, that record is in the same organization; it is looked up by
// assistant and time window and, when found, supplies the transcript (in the agent's orientation, with tool
// calls and the agent's performanceMetrics latencies) and its cost.

export const DEFAULT_CALL_POLL_MS = 2000;

const WireToolCall = Type.Object({ id: Type.Optional(Type.String()), function: Type.Object({ name: Type.String(), arguments: Type.Optional(Type.Unknown()) }) });
const CallMessage = Type.Object({
  role: Type.String(),
  message: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  time: Type.Optional(Type.Number()),
  endTime: Type.Optional(Type.Number()),
  secondsFromStart: Type.Optional(Type.Number()),
  toolCalls: Type.Optional(Type.Array(WireToolCall)),
  toolCallId: Type.Optional(Type.String()),
  result: Type.Optional(Type.Unknown()),
});
type CallMessage = Static<typeof CallMessage>;
const Call = Type.Object({
  id: Type.String(),
  type: Type.Optional(Type.String()),
  status: Type.Optional(Type.String()),
  endedReason: Type.Optional(Type.String()),
  createdAt: Type.Optional(Type.String()),
  startedAt: Type.Optional(Type.String()),
  endedAt: Type.Optional(Type.String()),
  cost: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
  messages: Type.Optional(Type.Array(CallMessage)),
  artifact: Type.Optional(Type.Object({
    transcript: Type.Optional(Type.String()),
    messages: Type.Optional(Type.Array(CallMessage)),
    performanceMetrics: Type.Optional(Type.Object({ turnLatencies: Type.Optional(Type.Array(Type.Object({ turnLatency: Type.Optional(Type.Number()) }))) })),
  })),
  monitor: Type.Optional(Type.Object({ controlUrl: Type.Optional(Type.String()) })),
});
export type VapiCall = Static<typeof Call>;

export const DEFAULT_VOICE_TESTER_MODEL = 'openai/gpt-4o-mini';

/** How the call ended, from its own record (`endedReason`). */
export function callEndReason(endedReason: string | undefined): { end_reason: SessionEndReason; answered: boolean } {
  const r = endedReason ?? '';
  if (r.startsWith('assistant-ended-call')) return { end_reason: 'tester_ended', answered: true }; // our caller hung up
  if (r === 'customer-ended-call') return { end_reason: 'agent_ended', answered: true };
  if (r === 'customer-did-not-answer' || r === 'customer-busy') return { end_reason: 'agent_ended', answered: false };
  if (r === 'exceeded-max-duration' || r === 'silence-timed-out') return { end_reason: 'timeout', answered: true };
  return { end_reason: 'error', answered: true };
}

/** The caller's system prompt: everything the scenario says about the simulated caller, and the run's turn cap. */
export function testerPrompt(s: ScenarioSpec, maxTurns: number | null = s.max_turns): string {
  const parts = [
    'You are role-playing a caller in a test of a voice agent. Stay in character and never say that this is a test.',
    s.persona && `Who you are: ${s.persona}`,
    s.goal && `Your goal: ${s.goal}`,
    s.instructions && `Instructions: ${s.instructions}`,
    s.opening_message && `Open with: "${s.opening_message}"`,
    s.script.length > 0 && `Say these lines in order, one per turn, waiting for the agent to answer each:\n${s.script.map((l, i) => `${i + 1}. ${l}`).join('\n')}`,
    maxTurns && `Keep the call to at most ${maxTurns} of your turns.`,
    'When your goal is reached, your lines run out or the agent cannot help, say goodbye and end the call.',
  ];
  return parts.filter(Boolean).join('\n\n');
}

/** Creates are not idempotent: only retry what certainly created nothing (429) or what Vapi calls a system failure (500). */
const createCallClassify = (err: unknown): RetryDecision => {
  const status = (err as { status?: unknown }).status;
  return status === 429 || status === 500 ? defaultClassify(err) : { retry: false, retryAfterMs: null };
};

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * A call's messages as transcript entries. `orientation` says whose call record it is: "tester" (our outbound
 * call: bot = tester) or "agent" (the agent's inbound call: bot = agent, tool calls are the agent's).
 */
export function callTranscript(call: VapiCall, orientation: 'tester' | 'agent'): TranscriptEntry[] {
  const msgs = call.artifact?.messages ?? call.messages ?? [];
  const start = call.startedAt ? Date.parse(call.startedAt) : call.createdAt ? Date.parse(call.createdAt) : 0;
  const latencies = (call.artifact?.performanceMetrics?.turnLatencies ?? []).map((t) => t.turnLatency);
  const agentRoles = orientation === 'agent' ? ['bot', 'assistant'] : ['user'];
  const testerRoles = orientation === 'agent' ? ['user'] : ['bot', 'assistant'];
  const results = new Map<string, unknown>();
  for (const m of msgs) if (m.role === 'tool_call_result' && m.toolCallId) results.set(m.toolCallId, parseMaybeJson(m.result ?? null));

  const out: TranscriptEntry[] = [];
  let pending: ToolCall[] = [];
  let lastTesterEnd: number | null = null;
  let agentTurn = 0;
  const at = (m: CallMessage) => (typeof m.time === 'number' ? m.time : start + (m.secondsFromStart ?? 0) * 1000);
  for (const m of msgs) {
    if (orientation === 'agent' && m.role === 'tool_calls') {
      for (const tc of m.toolCalls ?? []) {
        const id = tc.id ?? `call_${pending.length}`;
        pending.push({ id, name: tc.function.name, arguments: parseMaybeJson(tc.function.arguments ?? {}), result: results.has(id) ? results.get(id) : null });
      }
      continue;
    }
    const text = (m.message ?? '').trim();
    if (!text) continue;
    if (testerRoles.includes(m.role)) {
      out.push({ role: 'user', content: text, timestamp: iso(at(m)) });
      lastTesterEnd = typeof m.endTime === 'number' ? m.endTime : at(m);
    } else if (agentRoles.includes(m.role)) {
      // The agent's own performance metrics when we have its record; otherwise end of the caller's line to the reply.
      const measured = orientation === 'agent' && lastTesterEnd !== null ? latencies[agentTurn] : undefined;
      const latency = lastTesterEnd === null ? null : measured ?? Math.max(0, at(m) - lastTesterEnd);
      if (lastTesterEnd !== null) agentTurn++;
      out.push({ role: 'assistant', content: text, timestamp: iso(at(m)), ...(pending.length ? { tool_calls: pending } : {}), latency_ms: latency });
      pending = [];
      lastTesterEnd = null;
    }
  }
  // Tool calls after the agent's last words still belong on its last entry.
  const lastAgent = [...out].reverse().find((e) => e.role === 'assistant');
  if (pending.length && lastAgent) lastAgent.tool_calls = [...(lastAgent.tool_calls ?? []), ...pending];
  return out;
}

export class VapiCallSession implements ProviderSession {
  private running: Promise<AgentReply> | null = null;
  private callId: string | null = null;
  private controlUrl: string | null = null;
  private ended = false;
  private ours: VapiCall | null = null;
  private agentSide: VapiCall | null = null;
  private readonly pollMs: number;
  private readonly voiceModel: { provider: string; model: string };
  /** What plays the caller: the transient assistant's model. */
  readonly testerModel: string;

  constructor(
    private readonly client: JsonClient,
    private readonly cfg: VapiResolvedConfig,
    private readonly ctx: {
      scenario: ScenarioSpec; runId: string; scenarioRunId: string; clock: Clock; fetch: HttpFetch; pollMs?: number;
      maxTurns?: number; voiceTesterModel?: string;
    },
  ) {
    this.pollMs = ctx.pollMs ?? DEFAULT_CALL_POLL_MS;
    const spec = ctx.voiceTesterModel ?? DEFAULT_VOICE_TESTER_MODEL;
    const slash = spec.indexOf('/');
    this.voiceModel = { provider: spec.slice(0, slash), model: spec.slice(slash + 1) };
    this.testerModel = `vapi:${spec}`;
  }

  greeting(signal: AbortSignal): Promise<AgentReply | null> {
    return this.run(signal);
  }

  send(_text: string, signal: AbortSignal): Promise<AgentReply> {
    return this.run(signal); // the caller's lines are the transient assistant's to say, not ours
  }

  private run(signal: AbortSignal): Promise<AgentReply> {
    this.running ??= this.callToEnd(signal);
    return this.running;
  }

  private async callToEnd(signal: AbortSignal): Promise<AgentReply> {
    const { scenario, clock } = this.ctx;
    const maxDurationSeconds = Math.max(10, Math.ceil(this.cfg.timeout_ms / 1000));
    const body = {
      name: `rehearsal ${this.ctx.scenarioRunId}`.slice(0, 40),
      phoneNumberId: this.cfg.phone_number_id,
      customer: { number: this.cfg.phone_number },
      assistant: {
        name: 'Rehearsal tester',
        firstMessageMode: 'assistant-waits-for-user', // the agent under test answers the phone and speaks first
        // The endCall tool is what lets the caller hang up (Vapi's default tools); without it the call runs to
        // maxDurationSeconds.
        model: {
          ...this.voiceModel, messages: [{ role: 'system', content: testerPrompt(scenario, this.ctx.maxTurns ?? scenario.max_turns) }], tools: [{ type: 'endCall' }],
        },
        maxDurationSeconds,
        // We own this assistant, so live control needs no credentials on the control URL.
        monitorPlan: { controlEnabled: true, controlAuthenticationEnabled: false },
      },
      // CreateCallDTO has no top-level metadata; assistantOverrides.metadata lands on the call record.
      // (variable_values are for the agent under test, whose side of the call we do not configure: chat mode only.)
      assistantOverrides: { metadata: { ...this.cfg.metadata, rehearsal_run_id: this.ctx.runId, rehearsal_scenario_run_id: this.ctx.scenarioRunId } },
    };
    const created = decode(Call, await this.client.request('POST', '/call', { body, signal, classify: createCallClassify }), 'call');
    this.callId = created.id;
    this.controlUrl = created.monitor?.controlUrl ?? null;
    let call = created;
    while (call.status !== 'ended') {
      if (call.status === 'not-found' || call.status === 'deletion-failed') throw new ProviderError('provider_error', `call ${call.id} is ${call.status}`);
      await clock.sleep(this.pollMs, signal);
      call = decode(Call, await this.client.request('GET', `/call/${encodeURIComponent(created.id)}`, { signal }), 'call');
    }
    this.ended = true;
    this.ours = call;
    this.agentSide = await this.findAgentSide(call, signal);
    const ended = callEndReason(call.endedReason);
    // nobody picked up: there is no conversation, and that is the agent's doing
    if (!ended.answered) return { content: '', tool_calls: [], ended: true };
    if (ended.end_reason === 'error') throw new ProviderError('provider_error', `call ended: ${call.endedReason ?? 'no reason given'}`);
    const transcript = this.transcript();
    const said = transcript.filter((e) => e.role === 'assistant').map((e) => e.content);
    if (transcript.length === 0) throw new ProviderError('provider_error', `call ended (${call.endedReason ?? 'no reason given'}) with no conversation`);
    return { content: call.artifact?.transcript ?? said.join('\n'), tool_calls: transcript.flatMap((e) => e.tool_calls ?? []), ended: true };
  }

  /** The agent's inbound call during ours, when the agent under test is a Vapi assistant of this organization. */
  private async findAgentSide(ours: VapiCall, signal: AbortSignal): Promise<VapiCall | null> {
    if (!ours.createdAt) return null;
    const q = new URLSearchParams({ assistantId: this.cfg.assistant_id, createdAtGe: ours.createdAt, limit: '10' });
    if (ours.endedAt) q.set('createdAtLe', ours.endedAt);
    try {
      const list = await this.client.request('GET', `/call?${q}`, { signal });
      const calls = Array.isArray(list) ? list.filter((c) => (c as { type?: unknown }).type === 'inboundPhoneCall') : [];
      // Exactly one candidate, or we cannot tell which call was ours: then the outbound record is all we have.
      return calls.length === 1 ? decode(Call, calls[0], 'call') : null;
    } catch (err) {
      if (signal.aborted) throw err;
      return null;
    }
  }

  private transcript(): TranscriptEntry[] {
    if (this.agentSide) {
      const t = callTranscript(this.agentSide, 'agent');
      if (t.length > 0) return t;
    }
    return this.ours ? callTranscript(this.ours, 'tester') : [];
  }

  async close(reason: 'completed' | 'canceled' | 'error'): Promise<void> {
    if (this.ended || this.callId === null) return;
    this.ended = true;
    const signal = closeSignal();
    // Hang up through live call control (the documented end operation for a call in progress).
    if (this.controlUrl) await bestEffort(() => this.ctx.fetch(this.controlUrl!, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ type: 'end-call' }), signal }));
    if (reason === 'canceled') return;
    await bestEffort(async () => {
      this.ours = decode(Call, await this.client.request('GET', `/call/${encodeURIComponent(this.callId!)}`, { signal, retry: false }), 'call');
    });
  }

  costUsd(): number | null {
    const costs = [this.ours?.cost, this.agentSide?.cost].filter((c): c is number => typeof c === 'number');
    return costs.length ? Math.round(costs.reduce((a, b) => a + b, 0) * 1e8) / 1e8 : null;
  }

  endReason(): SessionEndReason | null {
    return this.ours ? callEndReason(this.ours.endedReason).end_reason : null;
  }

  transcriptOverride(): TranscriptEntry[] | null {
    if (this.ours && !callEndReason(this.ours.endedReason).answered) return [];
    const t = this.transcript();
    return t.length > 0 ? t : null;
  }
}
