import { WebSocketServer, type WebSocket } from 'ws';
import type { AgentResponse, AgentToolRequestMessage, AgentToolResponseMessage, ClientToolCallMessage, ConversationMetadata, Ping } from '@elevenlabs/types';
import type { ContractAgent, ContractFake, ContractFault } from '../providers/adapter-contract.js';
import { fakeId, startFakeHttp, type FakeHttp, type FaultKind, type FaultOptions, type RecordedRequest, type Reply } from './fake-http.js';

// A fake ElevenLabs Agents API (providers.md §6) on 127.0.0.1. REST with the `xi-api-key` header and
// {"detail":{"status","message"}} errors: get-signed-url (a single-use token), GET agent, GET conversation
// (in-progress while the socket is open, then `processing` for a few polls, then `done` with transcript, tool
// calls/results and charges). The conversation websocket speaks the text-only protocol: the initiation
// handshake, pings that must be answered with pongs, user_message → agent_response, server tools announced with
// agent_tool_request/agent_tool_response, and client tools through client_tool_call/client_tool_result.

export const ELEVEN_KEY = 'sk_eleven_3c4d5e';
export const ELEVEN_AGENT = 'agent_01jz8x7y6w';
export const LLM_PRICE_PER_TURN = 0.0013;
/** The platform's own charge per turn in USD (charging.platform_price); cost_fiat is both parts added. */
export const PLATFORM_PRICE_PER_TURN = 0.0042;
/** Which opt-in tool events the agent sends for a tool call: both, only one of them (unpaired), or none. */
export type ToolEvents = 'paired' | 'request_only' | 'response_only' | 'none';
const usd = (n: number) => Math.round(n * 1e8) / 1e8;

const DETAIL: Record<string, [string, string]> = {
  unauthorized: ['invalid_api_key', 'Invalid API key'],
  not_found: ['not_found', 'Agent not found'],
  rate_limited: ['too_many_concurrent_requests', 'Too many concurrent requests. Please try again later.'],
  server_error: ['internal_error', 'An internal error occurred.'],
  payment_required: ['quota_exceeded', 'This request exceeds your quota.'],
};
const detail = (status: number, kind: string): Reply => ({ status, body: { detail: { status: DETAIL[kind][0], message: DETAIL[kind][1] } } });

interface Conv {
  id: string;
  status: 'in-progress' | 'processing' | 'done';
  polls: number;
  transcript: any[];
  init: any;
  turns: number;
  llm: number;
  socket: WebSocket | null;
  startedAt: number;
  /** Every message the client sent, in order. */
  received: any[];
}

export interface FakeElevenLabs extends ContractFake {
  http: FakeHttp;
  baseUrl: string;
  conversations: Map<string, Conv>;
  requests(): RecordedRequest[];
  /** Faults on one endpoint: signed_url (default), agent, conversation, or any. */
  inject(kind: FaultKind | ContractFault, opts?: FaultOptions): void;
  /** Tool names the agent runs on the client (client_tool_call) instead of on the server. */
  setClientTools(names: string[]): void;
  /** get-conversation answers `processing` this many times after the conversation ends (default 2). */
  setProcessingPolls(n: number): void;
  /** Pings sent and pongs received, by event id. */
  pings: { sent: number[]; answered: number[] };
  /** The agent closes the socket after its next answer (its end_call tool). */
  hangUpAfterNextReply(): void;
  /** Which agent_tool_request/agent_tool_response events go out for each tool call (default paired). */
  setToolEvents(mode: ToolEvents): void;
}

export async function startFakeElevenLabs(opts: { apiKey?: string; agents?: string[]; pingMs?: number; maxUnansweredPings?: number } = {}): Promise<FakeElevenLabs> {
  const apiKey = opts.apiKey ?? ELEVEN_KEY;
  const agents = new Set(opts.agents ?? [ELEVEN_AGENT]);
  let agent: ContractAgent = { greeting: null, reply: (t) => ({ content: `Agent heard: ${t}` }) };
  let latency = 0;
  let clientTools = new Set<string>();
  let processingPolls = 2;
  let hangUp = false;
  let toolEvents: ToolEvents = 'paired';
  const heard: string[] = [];
  let turnWaiters: (() => void)[] = [];
  const conversations = new Map<string, Conv>();
  const tokens = new Map<string, string>(); // token → agent id, single use
  const pings = { sent: [] as number[], answered: [] as number[] };
  const timers = new Set<NodeJS.Timeout>();
  let lastCost: number | null = null;
  const later = (ms: number, fn: () => void) => {
    const t = setTimeout(() => { timers.delete(t); fn(); }, ms);
    timers.add(t);
  };

  const record = (c: Conv) => ({
    agent_id: [...agents][0], conversation_id: c.id, status: c.status, user_id: null, has_audio: false, has_user_audio: false, has_response_audio: false, has_auxiliary_audio: false,
    // The stored initiation data is what the client sent, without the message's `type`.
    conversation_initiation_client_data: (({ type: _t, ...rest }) => rest)(c.init), transcript: c.transcript,
    metadata: {
      start_time_unix_secs: Math.floor(c.startedAt / 1000), call_duration_secs: 12, termination_reason: 'Client disconnected', text_only: true,
      cost: 40 * c.turns, // credits
      ...(c.status === 'done' ? { cost_fiat: usd(c.llm + PLATFORM_PRICE_PER_TURN * c.turns) } : {}),
      charging: c.status === 'done' ? { llm_price: usd(c.llm), platform_price: usd(PLATFORM_PRICE_PER_TURN * c.turns), llm_charge: 3 * c.turns, call_charge: 40 * c.turns, tier: 'pro', is_burst: false, dev_discount: false } : null,
    },
    analysis: c.status === 'done' ? { call_successful: 'success', transcript_summary: 'A short test chat.', evaluation_criteria_results: {}, data_collection_results: {} } : null,
  });
  const end = (c: Conv) => {
    if (c.status !== 'in-progress') return;
    c.status = 'processing';
    c.socket = null;
  };

  const wss = new WebSocketServer({ noServer: true });
  wss.on('connection', (ws: WebSocket, _agentId: string) => {
    let conv: Conv | null = null;
    let pingId = 0;
    // Every event the agent sends has the official type (@elevenlabs/types, generated from agent.asyncapi.yaml).
    type AgentEvent = AgentResponse | AgentToolRequestMessage | AgentToolResponseMessage | ClientToolCallMessage | ConversationMetadata | Ping;
    const send = (m: AgentEvent) => { if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(m)); };
    let unanswered = 0;
    const t = setInterval(() => {
      if (!conv) return;
      // Like the real server, a client that stops answering pings is disconnected (generous, so a busy test
      // machine does not trip it).
      if (++unanswered > (opts.maxUnansweredPings ?? 20)) return ws.close(1008, 'ping timeout');
      pings.sent.push(++pingId);
      send({ type: 'ping', ping_event: { event_id: pingId, ping_ms: null } });
    }, opts.pingMs ?? 100);
    ws.on('close', () => { clearInterval(t); if (conv) end(conv); });
    const agentSays = (text: string, timeInCall: number) => {
      send({ type: 'agent_response', agent_response_event: { agent_response: text, event_id: ++pingId } });
      conv!.transcript.push({ role: 'agent', message: text, time_in_call_secs: timeInCall, interrupted: false, source_medium: 'text', tool_calls: [], tool_results: [] });
    };
    ws.on('message', (raw) => {
      const m = JSON.parse(String(raw));
      if (!conv) {
        if (m.type !== 'conversation_initiation_client_data') return ws.close(1008, 'first message must be conversation_initiation_client_data');
        conv = { id: fakeId('conv_'), status: 'in-progress', polls: 0, transcript: [], init: m, turns: 0, llm: 0, socket: ws, startedAt: Date.now(), received: [m] };
        conversations.set(conv.id, conv);
        send({ type: 'conversation_initiation_metadata', conversation_initiation_metadata_event: { conversation_id: conv.id, agent_output_audio_format: 'pcm_16000', user_input_audio_format: 'pcm_16000' } });
        const first = m.conversation_config_override?.agent?.first_message ?? agent.greeting;
        if (first) agentSays(first, 0);
        return;
      }
      conv.received.push(m);
      if (m.type === 'pong') {
        unanswered = 0;
        return void pings.answered.push(m.event_id);
      }
      if (m.type !== 'user_message') return;
      const c = conv;
      const turn = c.turns++;
      heard.push(m.text);
      turnWaiters.splice(0).forEach((w) => w());
      c.transcript.push({ role: 'user', message: m.text, time_in_call_secs: turn * 4 + 1, interrupted: false, source_medium: 'text' });
      later(latency, async () => {
        if (ws.readyState !== ws.OPEN) return;
        const r = agent.reply(m.text, turn);
        const calls: any[] = [];
        const results: any[] = [];
        for (const tc of r.tool_calls ?? []) {
          const id = fakeId('toolu_');
          const client = clientTools.has(tc.name);
          const toolType = client ? 'client' : 'webhook';
          let result: unknown = tc.result;
          // The opt-in tool events go out for client and server tools alike; a response is not promised.
          if (toolEvents === 'paired' || toolEvents === 'request_only') {
            send({ type: 'agent_tool_request', agent_tool_request: { tool_name: tc.name, tool_call_id: id, tool_type: toolType, event_id: ++pingId } });
          }
          if (client) {
            send({ type: 'client_tool_call', client_tool_call: { tool_name: tc.name, tool_call_id: id, parameters: tc.arguments, event_id: ++pingId } });
            const answer = await new Promise<any>((resolve) => {
              const onMsg = (d: any) => { const x = JSON.parse(String(d)); if (x.type === 'client_tool_result' && x.tool_call_id === id) { ws.off('message', onMsg); resolve(x); } };
              ws.on('message', onMsg);
            });
            result = answer.result;
            results.push({ request_id: id, tool_name: tc.name, result_value: answer.result, is_error: answer.is_error, tool_has_been_called: true, tool_latency_secs: 0.1, type: 'client' });
          } else {
            results.push({ request_id: id, tool_name: tc.name, result_value: JSON.stringify(result), is_error: false, tool_has_been_called: true, tool_latency_secs: 0.2, type: 'webhook' });
          }
          if (toolEvents === 'paired' || toolEvents === 'response_only') {
            send({ type: 'agent_tool_response', agent_tool_response: { tool_name: tc.name, tool_call_id: id, tool_type: toolType, is_error: false, is_called: true, event_id: ++pingId } });
          }
          calls.push({ request_id: id, tool_name: tc.name, params_as_json: JSON.stringify(tc.arguments), tool_has_been_called: true, type: client ? 'client' : 'webhook' });
        }
        if (calls.length) c.transcript.push({ role: 'agent', message: null, time_in_call_secs: turn * 4 + 2, tool_calls: calls, tool_results: results, source_medium: 'text' });
        c.llm += LLM_PRICE_PER_TURN;
        agentSays(r.content, turn * 4 + 3);
        c.transcript[c.transcript.length - 1].conversation_turn_metrics = { metrics: { convai_llm_service_ttfb: { elapsed_time: 0.31 } } };
        if (hangUp || r.hangUp) { hangUp = false; ws.close(1000, 'end_call'); }
      });
    });
  });

  const http = await startFakeHttp({
    auth: (req) => (req.headers['xi-api-key'] === apiKey ? null : detail(401, 'unauthorized')),
    errorBody: (kind, status) => detail(status, kind).body,
    onServer: (server) => server.on('upgrade', (req, socket, head) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const token = url.searchParams.get('token') ?? '';
      const agentId = tokens.get(token);
      if (url.pathname !== '/v1/convai/conversation' || !agentId || agentId !== url.searchParams.get('agent_id')) {
        socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n');
        return;
      }
      tokens.delete(token);
      wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, agentId));
    }),
    routes: [
      {
        name: 'signed_url', method: 'GET', pattern: /^\/v1\/convai\/conversation\/get-signed-url$/, handle: (r) => {
          const id = r.query.get('agent_id') ?? '';
          if (!agents.has(id)) return detail(404, 'not_found');
          const token = fakeId('tok_');
          tokens.set(token, id);
          return { status: 200, body: { signed_url: `${http.baseUrl.replace(/^http/, 'ws')}/v1/convai/conversation?agent_id=${id}&token=${token}` } };
        },
      },
      {
        name: 'agent', method: 'GET', pattern: /^\/v1\/convai\/agents\/([^/]+)$/, handle: (_r, [id]) => agents.has(id)
          ? { status: 200, body: { agent_id: id, name: 'Travel desk', metadata: { created_at_unix_secs: 1_760_000_000, updated_at_unix_secs: 1_760_000_000 }, conversation_config: { agent: { first_message: agent.greeting ?? '', language: 'en', prompt: { prompt: 'You help travellers.' } }, conversation: { text_only: false } }, platform_settings: { overrides: { conversation_config_override: { conversation: { text_only: true } } } } } }
          : detail(404, 'not_found'),
      },
      {
        name: 'conversation', method: 'GET', pattern: /^\/v1\/convai\/conversations\/([^/]+)$/, handle: (_r, [id]) => {
          const c = conversations.get(id);
          if (!c) return { status: 404, body: { detail: { status: 'conversation_not_found', message: 'Conversation not found' } } };
          if (c.status === 'processing' && ++c.polls > processingPolls) {
            c.status = 'done';
            lastCost = usd(c.llm + PLATFORM_PRICE_PER_TURN * c.turns);
          }
          return { status: 200, body: record(c) };
        },
      },
    ],
  });

  return {
    http, baseUrl: http.baseUrl, conversations, pings,
    requests: () => http.requests,
    setAgent: (a) => { agent = a; },
    inject: (kind, fo = {}) => http.inject(kind, { ...fo, on: fo.on ?? 'signed_url' }),
    setLatency: (ms) => { latency = ms; },
    heard: () => [...heard],
    nextTurn: () => new Promise<void>((r) => turnWaiters.push(r)),
    openSessions: () => [...conversations.values()].filter((c) => c.status === 'in-progress').length,
    lastCostUsd: () => lastCost,
    setClientTools: (names) => { clientTools = new Set(names); },
    setProcessingPolls: (n) => { processingPolls = n; },
    hangUpAfterNextReply: () => { hangUp = true; },
    setToolEvents: (mode) => { toolEvents = mode; },
    close: async () => {
      turnWaiters = [];
      timers.forEach(clearTimeout);
      for (const ws of wss.clients) ws.terminate();
      wss.close();
      await http.close();
    },
  };
}
