import type { Clock } from '../lib/clock.js';
import type { ToolCall } from '../engine/types.js';
import { Inbox } from './inbox.js';
import type { LiveKitInbound, LiveKitTextChannel } from './livekit-channel.js';
import { ProviderError, type AgentReply, type ProviderSession } from '../engine/provider.js';
import { costForDuration } from './config-kit.js';

// One provider_2 conversation once the room exists and the agent is in it: tester lines go out on the input
// topic, the agent's text streams come back on the output topic. LiveKit has no "reply done" message, so a
// reply is complete when no stream is open and nothing new has arrived for `reply_idle_ms`. The
// `lk.transcription_final` attribute marks the end of a *segment*, not of the reply: an agent that calls a tool
// speaks one segment before it ("let me check") and another after, so it cannot end the reply on its own.

export interface LiveKitSessionOptions {
  channel: LiveKitTextChannel;
  clock: Clock;
  replyIdleMs: number;
  /** How long greeting() waits for the agent to start speaking before concluding it does not greet. */
  greetingWindowMs: number;
  costPerMinuteUsd: number | null;
  /** Ends the room at the provider; called once, by close(). */
  teardown: () => Promise<void>;
}

interface ReplyState {
  segments: Map<string, string>;
  tools: ToolCall[];
  started: boolean;
}

const parseMaybeJson = (v: unknown): unknown => {
  if (typeof v !== 'string') return v ?? null;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
};

export class LiveKitSession implements ProviderSession {
  private readonly inbox: Inbox<LiveKitInbound>;
  /** streamId → segmentId of the streams still open. */
  private readonly open = new Map<string, string>();
  private reply: ReplyState = { segments: new Map(), tools: [], started: false };
  private lastActivity = 0;
  private agentLeft = false;
  private disconnected: string | null = null;
  private closing: Promise<void> | null = null;
  private readonly openedAt: number;
  private closedAt: number | null = null;
  private toolSeq = 0;

  constructor(private readonly opts: LiveKitSessionOptions) {
    this.openedAt = opts.clock.now();
    this.inbox = new Inbox(opts.clock);
    void this.pump();
  }

  private async pump(): Promise<void> {
    try {
      for await (const ev of this.opts.channel.replies()) this.inbox.push(ev);
    } catch (err) {
      this.inbox.push({ type: 'disconnected', reason: err instanceof Error ? err.message : String(err) });
    }
  }

  private apply(ev: LiveKitInbound): void {
    const now = this.opts.clock.now();
    switch (ev.type) {
      case 'stream_open':
        // A new stream for a known segment carries that segment's whole text again (non-delta publishing).
        this.open.set(ev.streamId, ev.segmentId);
        this.reply.segments.set(ev.segmentId, '');
        break;
      case 'chunk': {
        const seg = this.open.get(ev.streamId);
        if (seg === undefined) return;
        this.reply.segments.set(seg, (this.reply.segments.get(seg) ?? '') + ev.text);
        break;
      }
      case 'stream_close':
        this.open.delete(ev.streamId);
        break;
      case 'tool_event':
        this.addToolEvent(ev.payload);
        break;
      case 'agent_left':
        this.agentLeft = true;
        return;
      case 'disconnected':
        this.disconnected = ev.reason;
        return;
    }
    this.reply.started = true;
    this.lastActivity = now;
  }

  /** Accepts one object or an array of `{id|call_id|tool_call_id, name|function_name, arguments|args, result|output}`. */
  private addToolEvent(payload: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(payload);
    } catch {
      this.reply.tools.push({ id: `tool_${++this.toolSeq}`, name: '(unparsed tool event)', arguments: payload, result: null });
      return;
    }
    for (const item of Array.isArray(parsed) ? parsed : [parsed]) {
      const o = (item ?? {}) as Record<string, unknown>;
      const id = String(o.id ?? o.call_id ?? o.tool_call_id ?? `tool_${++this.toolSeq}`);
      const name = String(o.name ?? o.function_name ?? 'unknown');
      const result = o.result !== undefined ? parseMaybeJson(o.result) : o.output !== undefined ? parseMaybeJson(o.output) : undefined;
      const existing = this.reply.tools.find((t) => t.id === id);
      // The call and its result may be published separately under the same id.
      if (existing) {
        if (result !== undefined) existing.result = result;
        continue;
      }
      this.reply.tools.push({ id, name, arguments: parseMaybeJson(o.arguments ?? o.args ?? null), result: result ?? null });
    }
  }

  private takeReply(ended: boolean): AgentReply {
    const content = [...this.reply.segments.values()].map((s) => s.trim()).filter(Boolean).join('\n');
    const out = { content, tool_calls: this.reply.tools, ended };
    this.reply = { segments: new Map(), tools: [], started: false };
    return out;
  }

  /** Collects one reply. With `windowMs`, gives up (null) when the agent has not started within it. */
  private async collect(signal: AbortSignal, windowMs: number | null): Promise<AgentReply | null> {
    const waitStart = this.opts.clock.now();
    for (;;) {
      if (signal.aborted) throw signal.reason;
      for (const ev of this.inbox.drain()) this.apply(ev);
      if (this.agentLeft) return this.takeReply(true);
      if (this.disconnected !== null) {
        if (this.reply.started) return this.takeReply(true);
        throw new ProviderError('unreachable', `disconnected from the LiveKit room (${this.disconnected})`);
      }
      const now = this.opts.clock.now();
      if (!this.reply.started) {
        if (windowMs !== null && now - waitStart >= windowMs) return null;
        await this.inbox.wait(signal, windowMs === null ? null : windowMs - (now - waitStart));
        continue;
      }
      const idleFor = now - this.lastActivity;
      if (this.open.size === 0 && idleFor >= this.opts.replyIdleMs) return this.takeReply(false);
      // An open stream means the agent is mid-segment (e.g. text paced by speech): no idle timer until it closes.
      await this.inbox.wait(signal, this.open.size === 0 ? this.opts.replyIdleMs - idleFor : null);
    }
  }

  greeting(signal: AbortSignal): Promise<AgentReply | null> {
    return this.collect(signal, this.opts.greetingWindowMs);
  }

  async send(text: string, signal: AbortSignal): Promise<AgentReply> {
    if (this.closing) throw new ProviderError('provider_error', 'session already closed');
    if (this.agentLeft) throw new ProviderError('provider_error', 'the agent has left the room');
    try {
      await this.opts.channel.send(text);
    } catch (err) {
      throw new ProviderError('provider_error', `could not send the message to the room: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    return (await this.collect(signal, null))!;
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      this.closedAt = this.opts.clock.now();
      try {
        await this.opts.channel.close();
      } finally {
        await this.opts.teardown();
      }
    })();
    return this.closing;
  }

  costUsd(): number | null {
    return costForDuration(this.opts.costPerMinuteUsd, (this.closedAt ?? this.opts.clock.now()) - this.openedAt);
  }
}
