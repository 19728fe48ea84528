import type { ContractAgent, ContractFake, ContractFault } from '../providers/adapter-contract.js';
import { bearer, fakeId, startFakeHttp, type FakeHttp, type FaultKind, type FaultOptions, type RecordedRequest, type Reply } from './fake-http.js';

// A fake Retell AI API (providers.md §4) on 127.0.0.1: `Authorization: Bearer <key>`, error bodies
// {"status":"error","message":...} with Retell's own messages, `POST /create-chat` 201, `POST
// /create-chat-completion` 201 with only the new messages (tool invocations and results included),
// `GET /get-chat/{id}` 200, `PATCH /end-chat/{id}` 204 with no body, `GET /get-chat-agent/{id}`; unknown ids
// are 422 "Cannot find requested asset under given api key.". chat_cost (cents) is filled in when the chat ends.

export const RETELL_KEY = 'key_retell_5a6b7c';
export const RETELL_AGENT = 'agent_chat_9f8e7d';
/** Cents per agent message, as Retell's product_costs would bill it. */
export const CENTS_PER_MESSAGE = 0.35;

const MESSAGES: Record<string, string> = {
  unauthorized: 'API key is missing or invalid.',
  not_found: 'Cannot find requested asset under given api key.',
  rate_limited: 'Account rate limited, please throttle your requests.',
  server_error: 'An unexpected server error occurred.',
  payment_required: 'Trial has ended, please add payment method.',
};
const err = (status: number, message: string): Reply => ({ status, body: { status: 'error', message } });

interface ChatRec { chat_id: string; agent_id: string; agent_version?: number; chat_status: 'ongoing' | 'ended' | 'error'; messages: any[]; start_timestamp: number; end_timestamp?: number; metadata?: unknown; retell_llm_dynamic_variables?: unknown; turns: number }

export interface FakeRetell extends ContractFake {
  http: FakeHttp;
  baseUrl: string;
  chats: Map<string, ChatRec>;
  requests(): RecordedRequest[];
  /** Faults on one endpoint: create_chat, completion (default), get_chat, end_chat, get_agent, or any. */
  inject(kind: FaultKind | ContractFault, opts?: FaultOptions): void;
}

export async function startFakeRetell(opts: { apiKey?: string; agents?: string[] } = {}): Promise<FakeRetell> {
  const apiKey = opts.apiKey ?? RETELL_KEY;
  const agents = new Set(opts.agents ?? [RETELL_AGENT]);
  let agent: ContractAgent = { greeting: null, reply: (t) => ({ content: `Agent heard: ${t}` }) };
  const chats = new Map<string, ChatRec>();
  let lastCost: number | null = null;
  const ms = () => Date.now();

  const costOf = (c: ChatRec) => {
    const n = c.messages.filter((m) => m.role === 'agent').length;
    const cents = Math.round(n * CENTS_PER_MESSAGE * 1e6) / 1e6;
    return { product_costs: [{ product: 'retell_chat', unit_price: CENTS_PER_MESSAGE, cost: cents }], combined_cost: cents };
  };
  const chatBody = (c: ChatRec) => ({
    chat_id: c.chat_id, agent_id: c.agent_id, version: c.agent_version ?? 0, chat_status: c.chat_status, chat_type: 'api_chat',
    start_timestamp: c.start_timestamp, ...(c.end_timestamp ? { end_timestamp: c.end_timestamp } : {}),
    transcript: c.messages.filter((m) => m.role === 'agent' || m.role === 'user').map((m) => `${m.role === 'agent' ? 'Agent' : 'User'}: ${m.content}`).join('\n'),
    message_with_tool_calls: c.messages, metadata: c.metadata, retell_llm_dynamic_variables: c.retell_llm_dynamic_variables, collected_dynamic_variables: {},
    ...(c.chat_status === 'ended' ? { chat_cost: costOf(c), chat_analysis: { chat_summary: 'A short chat.', user_sentiment: 'Neutral', chat_successful: true } } : {}),
  });
  const endChat = (c: ChatRec) => {
    if (c.chat_status !== 'ongoing') return;
    c.chat_status = 'ended';
    c.end_timestamp = ms();
    lastCost = costOf(c).combined_cost / 100;
  };
  const agentMsg = (content: string) => ({ role: 'agent', content, message_id: fakeId('msg_'), created_timestamp: ms() });

  const http = await startFakeHttp({
    auth: (req) => {
      const key = bearer(req);
      return key === apiKey ? null : err(401, MESSAGES.unauthorized);
    },
    errorBody: (kind) => ({ status: 'error', message: MESSAGES[kind] }),
    routes: [
      {
        name: 'create_chat', method: 'POST', pattern: /^\/create-chat$/, handle: (r) => {
          const b = r.body ?? {};
          if (typeof b.agent_id !== 'string') return err(400, 'Invalid request format, please check API reference.');
          if (!agents.has(b.agent_id)) return err(422, MESSAGES.not_found);
          const c: ChatRec = { chat_id: fakeId('chat_'), agent_id: b.agent_id, agent_version: b.agent_version, chat_status: 'ongoing', messages: [], start_timestamp: ms(), metadata: b.metadata, retell_llm_dynamic_variables: b.retell_llm_dynamic_variables, turns: 0 };
          if (agent.greeting) c.messages.push(agentMsg(agent.greeting));
          chats.set(c.chat_id, c);
          return { status: 201, body: chatBody(c) };
        },
      },
      {
        name: 'completion', method: 'POST', pattern: /^\/create-chat-completion$/, handle: (r) => {
          const b = r.body ?? {};
          if (typeof b.chat_id !== 'string' || typeof b.content !== 'string') return err(400, 'Invalid request format, please check API reference.');
          const c = chats.get(b.chat_id);
          if (!c) return err(422, MESSAGES.not_found);
          // An ended chat "no longer can generate new response".
          if (c.chat_status !== 'ongoing') return err(400, 'Chat has already ended.');
          const reply = agent.reply(b.content, c.turns++);
          const fresh: any[] = [{ role: 'user', content: b.content, message_id: fakeId('msg_'), created_timestamp: ms() }];
          for (const tc of reply.tool_calls ?? []) {
            const id = fakeId('tool_call_');
            fresh.push({ role: 'tool_call_invocation', tool_call_id: id, name: tc.name, arguments: JSON.stringify(tc.arguments) });
            fresh.push({ role: 'tool_call_result', tool_call_id: id, content: JSON.stringify(tc.result), successful: true });
          }
          fresh.push(agentMsg(reply.content));
          if (reply.hangUp) {
            // The agent's end_call tool (EndCallTool {type: 'end_call'}): invoked after the goodbye, it ends the chat.
            fresh.push({ role: 'tool_call_invocation', tool_call_id: fakeId('tool_call_'), name: 'end_call', arguments: JSON.stringify({ execution_message: reply.content }) });
          }
          c.messages.push(...fresh);
          if (reply.hangUp) endChat(c);
          // Only the new messages after the user's own line, as the API documents.
          return { status: 201, body: { messages: fresh.slice(1) } };
        },
      },
      {
        name: 'get_chat', method: 'GET', pattern: /^\/get-chat\/([^/]+)$/, handle: (_r, [id]) => {
          const c = chats.get(id);
          return c ? { status: 200, body: chatBody(c) } : err(422, MESSAGES.not_found);
        },
      },
      {
        name: 'end_chat', method: 'PATCH', pattern: /^\/end-chat\/([^/]+)$/, handle: (_r, [id]) => {
          const c = chats.get(id);
          if (!c) return err(422, MESSAGES.not_found);
          endChat(c);
          return { status: 204 };
        },
      },
      {
        name: 'get_agent', method: 'GET', pattern: /^\/get-chat-agent\/([^/]+)$/, handle: (_r, [id]) =>
          agents.has(id) ? { status: 200, body: { agent_id: id, agent_name: 'Clinic receptionist', version: 0, response_engine: { type: 'retell-llm', llm_id: 'llm_1' }, last_modification_timestamp: ms() } } : err(422, MESSAGES.not_found),
      },
    ],
  });

  return {
    http, baseUrl: http.baseUrl, chats,
    requests: () => http.requests,
    setAgent: (a) => { agent = a; },
    inject: (kind, fo = {}) => http.inject(kind, { ...fo, on: fo.on ?? 'completion' }),
    setLatency: (msDelay) => http.setLatency(msDelay, 'completion'),
    heard: () => http.requests.filter((r) => r.path === '/create-chat-completion' && typeof r.body?.content === 'string').map((r) => r.body.content as string),
    nextTurn: () => http.nextRequest((r) => r.path === '/create-chat-completion').then(() => undefined),
    openSessions: () => [...chats.values()].filter((c) => c.chat_status === 'ongoing').length,
    lastCostUsd: () => lastCost,
    close: () => http.close(),
  };
}
