import { randomUUID } from 'node:crypto';
import type WebSocket from 'ws';
import type { Clock } from '../lib/clock.js';
import type { ToolCall } from '../engine/types.js';
import { Inbox } from './inbox.js';
import { decodeFrame, encodeMessageFrame } from './pipecat-wire.js';
import { ProviderError, type AgentReply, type ProviderSession } from '../engine/provider.js';
import { costForDuration } from './config-kit.js';

// One Pipecat Cloud conversation over the bot's websocket, speaking RTVI (docs.pipecat.ai/client/rtvi-standard) inside
// Pipecat protobuf frames. A reply is complete when the bot has said something, its LLM run has stopped
// (`bot-llm-stopped`), no function call is pending or about to be answered by another LLM run, it is not speaking
// (`bot-stopped-speaking`, if it spoke at all), and `settleMs` passed without a new event: the RTVI observer sees
// frames as they pass, so the order of `bot-llm-stopped` and the function-call events is not guaranteed.

export interface RtviMessage {
  label?: string;
  type: string;
  id?: string;
  data?: Record<string, unknown> | null;
}

type Inbound = { kind: 'rtvi'; msg: RtviMessage } | { kind: 'closed'; code: number; reason: string };

export interface PipecatSessionOptions {
  ws: WebSocket;
  clock: Clock;
  greetingWindowMs: number;
  settleMs: number;
  costPerMinuteUsd: number | null;
  /** Stops the session at Pipecat Cloud (DELETE with the private key, when there is one). Called once. */
  teardown: () => Promise<void>;
}

/** The RTVI protocol Rehearsal speaks (the version `@pipecat-ai/client-js` exports); bots on 1.x are read too. */
export const RTVI_VERSION = '2.1.0';
const NO_CLIENT_FUNCTION = { error: 'Rehearsal has no client-side implementation of this function' };

class Turn {
  started = false;
  llmRunning = false;
  rerunExpected = false;
  speaking = false;
  startedCalls = 0;
  stoppedCalls = 0;
  readonly pendingIds = new Set<string>();
  readonly outputs: { text: string; by: string; segment?: number }[] = [];
  /** Set when the bot answered this turn's send-text with `error-response`. */
  rejected: string | null = null;
  readonly transcriptions: string[] = [];
  llmText = '';
  readonly tools: ToolCall[] = [];

  pending(): number {
    return Math.max(this.startedCalls - this.stoppedCalls, this.pendingIds.size);
  }

  content(): string {
    const sentences = this.outputs.filter((o) => o.by !== 'word').map((o) => o.text.trim());
    if (sentences.length) return sentences.filter(Boolean).join(' ');
    if (this.outputs.length) return this.outputs.map((o) => o.text.trim()).filter(Boolean).join(' ');
    if (this.transcriptions.length) return this.transcriptions.map((t) => t.trim()).filter(Boolean).join(' ');
    return this.llmText.trim();
  }

  tool(id: string, name: unknown): ToolCall {
    let t = this.tools.find((x) => x.id === id);
    if (!t) {
      t = { id, name: typeof name === 'string' && name ? name : 'unknown', arguments: null, result: null };
      this.tools.push(t);
    } else if (t.name === 'unknown' && typeof name === 'string' && name) t.name = name;
    return t;
  }
}

function errorText(d: Record<string, unknown>): string {
  const text = typeof d.error === 'string' && d.error ? d.error : typeof d.message === 'string' && d.message ? d.message : '';
  return text || 'unknown';
}

export class PipecatSession implements ProviderSession {
  private readonly inbox: Inbox<Inbound>;
  private turn = new Turn();
  private lastActivity = 0;
  private closedBy: { code: number; reason: string } | null = null;
  private botReady = false;
  /** Major version from bot-ready: 2.x sends each bot-output segment again as its spoken status changes. */
  private botMajor = 1;
  /** Requests the bot may answer with error-response, by the id we sent them with. */
  private readonly requests = new Map<string, string>();
  /** Non-fatal complaints from the bot (version warnings, failed disconnects, non-fatal errors), kept for diagnosis. */
  readonly warnings: string[] = [];
  private closing: Promise<void> | null = null;
  private readonly openedAt: number;
  private closedAt: number | null = null;

  constructor(private readonly opts: PipecatSessionOptions) {
    this.inbox = new Inbox(opts.clock);
    this.openedAt = opts.clock.now();
    opts.ws.on('message', (data, isBinary) => this.onMessage(data as Buffer, isBinary));
    // An 'error' without a listener would throw; the 'close' that follows it is what we act on.
    opts.ws.on('error', () => undefined);
    opts.ws.on('close', (code, reason) => this.inbox.push({ kind: 'closed', code, reason: reason.toString('utf8') }));
  }

  private onMessage(data: Buffer | Buffer[] | ArrayBuffer, isBinary: boolean): void {
    const buf = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
    // The protobuf serializer sends binary frames; a bot with a JSON serializer sends RTVI as text. Accept both.
    let json: string | null = null;
    if (isBinary) {
      const frame = decodeFrame(buf);
      if (frame.kind === 'message') json = frame.data;
    } else json = buf.toString('utf8');
    if (json === null) return; // audio and other frames carry nothing for a text test
    try {
      const msg = JSON.parse(json) as RtviMessage;
      if (msg && typeof msg.type === 'string' && (msg.label === undefined || msg.label === 'rtvi-ai')) this.inbox.push({ kind: 'rtvi', msg });
    } catch {
      // not RTVI: ignored
    }
  }

  sendRtvi(type: string, data?: Record<string, unknown>): void {
    const id = randomUUID().slice(0, 8);
    const msg: RtviMessage = { label: 'rtvi-ai', type, id, ...(data === undefined ? {} : { data }) };
    this.requests.set(id, type);
    this.opts.ws.send(encodeMessageFrame(JSON.stringify(msg)));
  }

  /** client-ready → bot-ready (RTVI connection management); bounded by the caller's signal. */
  async handshake(signal: AbortSignal): Promise<void> {
    this.sendRtvi('client-ready', { version: RTVI_VERSION, about: { library: 'rehearsal', platform: 'node', platform_version: process.version } });
    while (!this.botReady) {
      this.process();
      if (this.botReady) break;
      if (this.closedBy) throw this.closedError();
      await this.inbox.wait(signal, null);
    }
  }

  private closedError(): ProviderError {
    const c = this.closedBy!;
    return new ProviderError('provider_error', `the bot closed the websocket (${c.code}${c.reason ? ` ${c.reason}` : ''})`);
  }

  private apply(msg: RtviMessage): void {
    const d = msg.data ?? {};
    const t = this.turn;
    const text = typeof d.text === 'string' ? d.text : '';
    switch (msg.type) {
      case 'bot-ready': {
        this.botReady = true;
        const major = Number.parseInt(String(d.version ?? ''), 10);
        this.botMajor = Number.isFinite(major) ? major : 1;
        return;
      }
      case 'bot-llm-started': t.llmRunning = true; t.rerunExpected = false; break;
      case 'bot-llm-stopped': t.llmRunning = false; break;
      case 'bot-llm-text': t.llmText += text; break;
      case 'bot-output': {
        const by = String(d.aggregated_by ?? 'sentence');
        // 2.x repeats a segment (same segment_id) as it goes from `new` to `completed`: keep it once.
        const segment = this.botMajor >= 2 && typeof d.segment_id === 'number' ? d.segment_id : undefined;
        const seen = segment === undefined ? undefined : t.outputs.find((o) => o.segment === segment);
        if (seen) seen.text = text || seen.text;
        else t.outputs.push({ text, by, segment });
        break;
      }
      case 'bot-transcription': t.transcriptions.push(text); break;
      case 'bot-started-speaking': t.speaking = true; break;
      case 'bot-stopped-speaking': t.speaking = false; break;
      case 'llm-function-call-started': t.startedCalls++; break;
      case 'llm-function-call-in-progress': {
        const id = String(d.tool_call_id ?? `call_${t.tools.length + 1}`);
        t.pendingIds.add(id);
        const call = t.tool(id, d.function_name);
        if (d.arguments !== undefined) call.arguments = d.arguments;
        break;
      }
      case 'llm-function-call-stopped': {
        const id = String(d.tool_call_id ?? '');
        t.pendingIds.delete(id);
        t.stoppedCalls++;
        const call = t.tool(id, d.function_name);
        if (d.result !== undefined) call.result = d.result;
        else if (d.cancelled === true) call.result = { cancelled: true };
        // The function's result goes back to the LLM, which runs again and answers.
        if (d.cancelled !== true) t.rerunExpected = true;
        break;
      }
      case 'llm-function-call': {
        // Deprecated client-side function call: the bot waits for our result, so answer rather than hang it.
        const id = String(d.tool_call_id ?? `call_${t.tools.length + 1}`);
        const call = t.tool(id, d.function_name);
        call.arguments = d.args ?? d.arguments ?? null;
        call.result = NO_CLIENT_FUNCTION;
        this.sendRtvi('llm-function-call-result', { function_name: call.name, tool_call_id: id, arguments: call.arguments, result: NO_CLIENT_FUNCTION });
        t.rerunExpected = true;
        break;
      }
      case 'error':
        // `message` is the pre-2.0 field; only a fatal error ends the session.
        if (d.fatal === true) throw new ProviderError('provider_error', `bot error: ${errorText(d)}`);
        this.warnings.push(`error: ${errorText(d)}`);
        return;
      case 'error-response': {
        // The failure of one request. A failed send-text fails its turn; a warning about client-ready (e.g. a
        // protocol version the bot does not know) or about disconnect-bot leaves the session as it is.
        const request = msg.id === undefined ? undefined : this.requests.get(msg.id);
        if (request === 'send-text') {
          t.rejected = errorText(d);
          break;
        }
        this.warnings.push(`${request ?? 'unknown request'}: ${errorText(d)}`);
        return;
      }
      default:
        return; // metrics, user-transcription, server-message, …: not part of the reply
    }
    t.started = true;
    this.lastActivity = this.opts.clock.now();
  }

  private process(): void {
    for (const ev of this.inbox.drain()) {
      if (ev.kind === 'closed') this.closedBy = { code: ev.code, reason: ev.reason };
      else this.apply(ev.msg);
    }
  }

  private take(ended: boolean): AgentReply {
    const t = this.turn;
    this.turn = new Turn();
    return { content: t.content(), tool_calls: t.tools, ended };
  }

  private async collect(signal: AbortSignal, windowMs: number | null): Promise<AgentReply | null> {
    const waitStart = this.opts.clock.now();
    for (;;) {
      if (signal.aborted) throw signal.reason;
      this.process();
      const t = this.turn;
      if (this.closedBy) {
        // A normal close is the bot hanging up (e.g. its end-call function); anything else is a failure.
        if (t.started || this.closedBy.code === 1000) return this.take(true);
        throw this.closedError();
      }
      const now = this.opts.clock.now();
      if (!t.started) {
        if (windowMs !== null && now - waitStart >= windowMs) return null;
        await this.inbox.wait(signal, windowMs === null ? null : windowMs - (now - waitStart));
        continue;
      }
      if (t.rejected !== null) {
        this.turn = new Turn();
        throw new ProviderError('provider_error', `bot rejected the message: ${t.rejected}`);
      }
      const busy = t.llmRunning || t.rerunExpected || t.speaking || t.pending() > 0;
      const quietFor = now - this.lastActivity;
      if (!busy && quietFor >= this.opts.settleMs) return this.take(false);
      await this.inbox.wait(signal, busy ? null : this.opts.settleMs - quietFor);
    }
  }

  greeting(signal: AbortSignal): Promise<AgentReply | null> {
    return this.collect(signal, this.opts.greetingWindowMs);
  }

  async send(text: string, signal: AbortSignal): Promise<AgentReply> {
    if (this.closing) throw new ProviderError('provider_error', 'session already closed');
    this.process();
    if (this.closedBy) throw this.closedError();
    try {
      this.sendRtvi('send-text', { content: text, options: { run_immediately: true, audio_response: false } });
    } catch (err) {
      throw new ProviderError('provider_error', `could not send to the bot: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    return (await this.collect(signal, null))!;
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      this.closedAt = this.opts.clock.now();
      const ws = this.opts.ws;
      if (ws.readyState === ws.OPEN) {
        try {
          this.sendRtvi('disconnect-bot', {}); // as the official client sends it
        } catch {
          // the socket is going away anyway
        }
        ws.close(1000, 'conversation over');
      } else if (ws.readyState === ws.CONNECTING) ws.terminate();
      await this.opts.teardown();
    })();
    return this.closing;
  }

  costUsd(): number | null {
    return costForDuration(this.opts.costPerMinuteUsd, (this.closedAt ?? this.opts.clock.now()) - this.openedAt);
  }
}
