import WebSocket from 'ws';
import type { ToolCall } from '../engine/types.js';
import { parseJson } from './json-values.js';
import { ProviderError } from '../engine/provider.js';

// The ElevenLabs conversation websocket in text-only mode: the init handshake, ping → pong,
// client tools answered from canned results, server tool events, and agent responses delivered to whoever
// waits for the next one. Every wait honours the caller's abort signal.
// agent_tool_request/agent_tool_response are opt-in events (conversation.client_events), sent for client, webhook
// and MCP tools alike, and a response is not promised for every request: they shape a turn's end only through
// the settle time, and every source of a tool call (client_tool_call, the two events, the post-call record) is
// merged into one entry per tool_call_id.

export interface InitData {
  conversation_config_override?: Record<string, unknown>;
  dynamic_variables?: Record<string, unknown>;
}

/** One agent turn as the socket delivered it. */
export interface AgentTurn {
  text: string;
  tool_calls: ToolCall[];
  /** The agent closed the conversation (e.g. its end_call tool) after this. */
  ended: boolean;
}

type Waiter = { resolve: () => void; reject: (e: unknown) => void };

/** How long a turn that saw a tool request without its response waits for a new event before it ends. */
export const DEFAULT_TOOL_SETTLE_MS = 2000;

const hasOwn = (o: object, k: string) => Object.hasOwn(o, k);

export class ConvaiSocket {
  conversationId: string | null = null;
  private readonly responses: string[] = [];
  private tools: ToolCall[] = [];
  /** Tool requests of this turn without a response (yet): the agent's answer may still follow their results. */
  private readonly pendingTools = new Set<string>();
  /** A tool result came after the agent last spoke: its answer to the result may follow. */
  private answerDue = false;
  /** Counts the events that belong to a turn, so a settle wait can tell "nothing new". */
  private events = 0;
  private closedBy: string | null = null;
  private failure: ProviderError | null = null;
  private waiter: Waiter | null = null;
  readonly pongs: number[] = [];

  private constructor(
    private readonly ws: WebSocket,
    private readonly clientToolResults: Record<string, unknown>,
    private readonly toolSettleMs: number,
  ) {
    ws.on('message', (data) => this.onMessage(String(data)));
    ws.on('close', (code, reason) => {
      this.closedBy ??= `closed by the provider (${code}${reason.length ? ` ${reason.toString()}` : ''})`;
      this.wake();
    });
    ws.on('error', (err) => {
      this.failure ??= new ProviderError('provider_error', `conversation socket failed: ${err.message}`);
      this.wake();
    });
  }

  /** Connects, sends the initiation data first, and waits for the conversation's metadata. */
  static async open(url: string, init: InitData, clientToolResults: Record<string, unknown>, signal: AbortSignal, toolSettleMs = DEFAULT_TOOL_SETTLE_MS): Promise<ConvaiSocket> {
    const ws = new WebSocket(url, { handshakeTimeout: 30_000 });
    const onAbort = () => ws.terminate();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      await new Promise<void>((resolve, reject) => {
        ws.once('open', resolve);
        ws.once('error', (err) => {
          // `Unexpected server response: 401` and the like; the signed URL (with its token) is never quoted.
          const status = /response: (\d{3})/.exec(err.message)?.[1];
          reject(status ? new ProviderError(status === '401' || status === '403' ? 'invalid_credentials' : 'provider_error', 'conversation socket refused', { status: Number(status) })
            : new ProviderError('unreachable', `conversation socket failed: ${err.message.replace(/\?\S*/g, '')}`));
        });
        ws.once('close', () => reject(signal.aborted ? signal.reason : new ProviderError('provider_error', 'conversation socket closed before it opened')));
      });
      const socket = new ConvaiSocket(ws, clientToolResults, toolSettleMs);
      ws.send(JSON.stringify({ type: 'conversation_initiation_client_data', ...init }));
      await socket.waitFor(() => socket.conversationId !== null, signal);
      return socket;
    } catch (err) {
      ws.terminate();
      throw signal.aborted ? signal.reason : err;
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  private send(msg: unknown) {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(msg));
  }

  private wake() {
    const w = this.waiter;
    this.waiter = null;
    w?.resolve();
  }

  private onMessage(raw: string) {
    const m = parseJson(raw) as Record<string, any> | undefined;
    if (!m || typeof m.type !== 'string') return;
    switch (m.type) {
      case 'conversation_initiation_metadata':
        this.conversationId = String(m.conversation_initiation_metadata_event?.conversation_id ?? '');
        break;
      case 'ping': {
        // Unanswered pings end the conversation on the server side.
        const id = m.ping_event?.event_id;
        this.send({ type: 'pong', event_id: id });
        if (typeof id === 'number') this.pongs.push(id);
        return; // keep-alive, not part of a turn: it must not keep a settle wait from ending
      }
      case 'agent_response': {
        const text = m.agent_response_event?.agent_response;
        if (typeof text === 'string') this.responses.push(text);
        this.answerDue = false;
        break;
      }
      case 'client_tool_call': {
        const c = m.client_tool_call ?? {};
        const name = String(c.tool_name ?? '');
        const known = hasOwn(this.clientToolResults, name);
        const result = known ? this.clientToolResults[name] : `Client tool with name ${name} is not defined on client`;
        // As the official client does: a tool without a handler is answered with is_error.
        this.send({ type: 'client_tool_result', tool_call_id: c.tool_call_id, result: typeof result === 'string' ? result : JSON.stringify(result), is_error: !known });
        const call = this.tool(c.tool_call_id, name);
        call.arguments = c.parameters ?? null;
        call.result = known ? result : { error: result };
        break;
      }
      case 'agent_tool_request': {
        const r = m.agent_tool_request ?? {};
        const call = this.tool(r.tool_call_id, r.tool_name);
        // A client tool already answered needs no wait; a server tool's result comes with the post-call record.
        if (call.result === null) this.pendingTools.add(call.id);
        break;
      }
      case 'agent_tool_response': {
        const r = m.agent_tool_response ?? {};
        const call = this.tool(r.tool_call_id, r.tool_name);
        this.pendingTools.delete(call.id);
        this.answerDue = true;
        if (r.is_error && call.result === null) call.result = { error: true };
        break;
      }
      case 'error': {
        const e = m.error_event ?? {};
        this.failure = new ProviderError('provider_error', `conversation error ${e.code ?? ''} ${e.message ?? e.reason ?? ''}`.replace(/\s+/g, ' ').trim());
        break;
      }
      default:
        return; // audio, vad_score, agent_chat_response_part, corrections… are not part of a text turn
    }
    this.events++;
    this.wake();
  }

  /** This turn's entry for a tool call id, created on first sight; a later source fills in what it knows. */
  private tool(rawId: unknown, rawName: unknown): ToolCall {
    const id = typeof rawId === 'string' && rawId ? rawId : `tool_${this.tools.length}`;
    const name = typeof rawName === 'string' ? rawName : '';
    let t = this.tools.find((x) => x.id === id);
    if (!t) {
      t = { id, name, arguments: null, result: null };
      this.tools.push(t);
    } else if (!t.name && name) t.name = name;
    return t;
  }

  /** Resolves true when nothing new arrived for `ms`, false as soon as something did (or the socket closed). */
  private quietFor(ms: number, signal: AbortSignal): Promise<boolean> {
    const seen = this.events;
    const timer = new AbortController();
    const t = setTimeout(() => timer.abort(), ms);
    const both = AbortSignal.any([signal, timer.signal]);
    return this.waitFor(() => this.events !== seen, both).then(
      () => false,
      (err) => {
        if (signal.aborted) throw err;
        if (timer.signal.aborted) return true;
        throw err;
      },
    ).finally(() => clearTimeout(t));
  }

  private waitFor(cond: () => boolean, signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const finish = (fn: () => void) => {
        signal.removeEventListener('abort', check);
        this.waiter = null;
        fn();
      };
      const check = () => {
        if (signal.aborted) return finish(() => reject(signal.reason));
        if (cond()) return finish(resolve);
        const failure = this.failure;
        if (failure) return finish(() => reject(failure));
        if (this.closedBy) return finish(() => reject(new ProviderError('provider_error', `conversation ${this.closedBy}`)));
        this.waiter = { resolve: check, reject };
      };
      signal.addEventListener('abort', check, { once: true });
      check();
    });
  }

  /**
   * The agent's next turn: its responses, and when a tool request is still unanswered, whatever else arrives
   * until nothing new did for the settle time. An agent that hangs up ends the turn with what it said.
   */
  async nextTurn(signal: AbortSignal): Promise<AgentTurn> {
    const said: string[] = [];
    for (;;) {
      try {
        if (said.length === 0) await this.waitFor(() => this.responses.length > 0, signal);
        else if (await this.quietFor(this.toolSettleMs, signal)) break;
      } catch (err) {
        if (this.closedBy && !this.failure && !signal.aborted && (said.length > 0 || this.tools.length > 0)) break;
        throw err;
      }
      said.push(...this.responses.splice(0));
      if (this.pendingTools.size === 0 && !this.answerDue) break;
    }
    this.pendingTools.clear();
    this.answerDue = false;
    // An agent that hangs up right after speaking (its end_call tool) sends the close frame in the same breath:
    // one turn of the event loop lets it land, so this turn already reports the end.
    await new Promise((r) => setImmediate(r));
    const tools = this.tools;
    this.tools = [];
    return { text: said.join('\n'), tool_calls: tools, ended: this.closedBy !== null || this.ws.readyState !== WebSocket.OPEN };
  }

  /** False when the agent had already hung up: the line could not be said. */
  userMessage(text: string): boolean {
    if (this.failure) throw this.failure;
    if (this.closedBy || this.ws.readyState !== WebSocket.OPEN) return false;
    this.send({ type: 'user_message', text });
    return true;
  }

  /** Whether a response is already waiting (the greeting may have arrived with the metadata). */
  hasResponse(): boolean {
    return this.responses.length > 0;
  }

  close() {
    this.closedBy ??= 'closed by us';
    if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING) this.ws.close(1000);
  }
}
