import type { Vapi } from '@vapi-ai/server-sdk';
import type { ContractAgent, ContractFake, ContractFault } from '../providers/adapter-contract.js';
import { bearer, fakeId, startFakeHttp, type FakeHttp, type FaultKind, type FaultOptions, type RecordedRequest, type Reply } from './fake-http.js';

/** The properties of Vapi's CreateAssistantDTO; typed so that each one must exist in @vapi-ai/server-sdk's type. */
export const ASSISTANT_PROPERTIES: readonly (keyof Vapi.CreateAssistantDto)[] = [
  'transcriber', 'model', 'voice', 'firstMessage', 'firstMessageInterruptionsEnabled', 'firstMessageMode', 'voicemailDetection',
  'clientMessages', 'serverMessages', 'maxDurationSeconds', 'backgroundSound', 'modelOutputInMessagesEnabled', 'transportConfigurations',
  'observabilityPlan', 'credentials', 'hooks', 'name', 'voicemailMessage', 'endCallMessage', 'endCallPhrases', 'compliancePlan', 'metadata',
  'backgroundSpeechDenoisingPlan', 'analysisPlan', 'artifactPlan', 'startSpeakingPlan', 'stopSpeakingPlan', 'monitorPlan', 'credentialIds',
  'server', 'keypadInputPlan',
];

// A fake Vapi API (providers.md §1) on 127.0.0.1: `Authorization: Bearer <private key>`, NestJS error bodies
// ({message, error, statusCode}), `POST /session` 201, `POST /chat` 200 with tool-call messages in `output[]`
// before the final assistant text, `PATCH|GET|DELETE /session/{id}`, `POST /call` 201 with a monitor control
// URL, `GET /call/{id}` moving queued → ringing → in-progress → ended over successive polls, `GET /call` (list),
// `GET /assistant/{id}`, and the live-call control URL (`{"type":"end-call"}`).

export const VAPI_KEY = 'vapi-private-0d1e2f';
export const VAPI_ASSISTANT = '5b0a4a08-133c-4146-9315-0984f8c6be80';
export const VAPI_PHONE_NUMBER_ID = '42b4b25d-031e-4786-857f-63b346c9580f';
export const CHAT_COST = 0.0021;
export const SESSION_EXTRA_COST = 0.0004; // the session total carries costs the chats do not (analysis)
export const CALL_COST = 0.0925;
export const AGENT_CALL_COST = 0.0712;

const NAMES: Record<string, string> = { unauthorized: 'Unauthorized', not_found: 'Not Found', rate_limited: 'Too Many Requests', server_error: 'Internal Server Error', payment_required: 'Payment Required' };
const MESSAGES: Record<string, string> = {
  unauthorized: 'Invalid Key. Hot tip, you may be using the private key instead of the public key, or vice versa.',
  not_found: 'Not Found',
  rate_limited: 'Rate limit exceeded',
  server_error: 'Internal server error',
  payment_required: 'Please add a payment method to use chat.',
};
const nest = (status: number, message: string | string[], error: string) => ({ message, error, statusCode: status });

interface SessionRec { id: string; assistantId: string; status: 'active' | 'completed'; chats: any[]; createdAt: string; name?: string; assistantOverrides?: unknown }

export interface FakeVapi extends ContractFake {
  http: FakeHttp;
  baseUrl: string;
  apiKey: string;
  sessions: Map<string, SessionRec>;
  calls: Map<string, any>;
  requests(): RecordedRequest[];
  /** Faults on one endpoint: session, chat, session_end, session_get, call_create, call_get, call_list, assistant, or any. */
  inject(kind: FaultKind | ContractFault, opts?: FaultOptions): void;
  /** What the agent's side of a voice call hears: the caller's lines (default: parsed from the tester's prompt). */
  setCallerLines(lines: string[] | null): void;
  /** How many GET /call/{id} polls a call takes from queued to ended (default 3). */
  setCallPolls(n: number): void;
  /** Whether the agent's own inbound call record is listed by GET /call?assistantId (default true). */
  setAgentSideCalls(on: boolean): void;
  /** How calls end (`endedReason`, default assistant-ended-call); no-answer reasons leave the call without messages. */
  setEndedReason(reason: string): void;
}

export async function startFakeVapi(opts: { apiKey?: string; assistants?: string[]; phoneNumberIds?: string[] } = {}): Promise<FakeVapi> {
  const apiKey = opts.apiKey ?? VAPI_KEY;
  const assistants = new Set(opts.assistants ?? [VAPI_ASSISTANT]);
  const phoneIds = new Set(opts.phoneNumberIds ?? [VAPI_PHONE_NUMBER_ID]);
  let agent: ContractAgent = { greeting: null, reply: (t) => ({ content: `Agent heard: ${t}` }) };
  const heard: string[] = [];
  const sessions = new Map<string, SessionRec>();
  const calls = new Map<string, any>();
  let lastCost: number | null = null;
  let callerLines: string[] | null = null;
  let callPolls = 3;
  let agentSide = true;
  let endedReason = 'assistant-ended-call';
  const UNANSWERED = ['customer-did-not-answer', 'customer-busy'];
  const now = () => new Date().toISOString();

  const sessionBody = (s: SessionRec) => {
    const cost = s.chats.length ? Math.round((s.chats.reduce((a, c) => a + c.cost, 0) + SESSION_EXTRA_COST) * 1e8) / 1e8 : 0;
    return {
      id: s.id, orgId: 'org-fake', assistantId: s.assistantId, name: s.name, status: s.status, createdAt: s.createdAt, updatedAt: now(),
      messages: s.chats.flatMap((c) => [...c.messages, ...c.output]), cost, costs: [{ type: 'session', cost }],
    };
  };

  /** One agent answer as chat `output[]`: assistant tool-call message, tool results, then the text. */
  const chatOutput = (text: string, turn: number) => {
    const r = agent.reply(text, turn);
    const out: any[] = [];
    if (r.tool_calls?.length) {
      const ids = r.tool_calls.map(() => fakeId('call_'));
      out.push({ role: 'assistant', content: null, tool_calls: r.tool_calls.map((c, i) => ({ id: ids[i], type: 'function', function: { name: c.name, arguments: JSON.stringify(c.arguments) } })) });
      r.tool_calls.forEach((c, i) => out.push({ role: 'tool', tool_call_id: ids[i], content: JSON.stringify(c.result) }));
    }
    out.push({ role: 'assistant', content: r.content });
    return out;
  };

  /** Simulates a whole phone call: our tester (bot) speaks the caller lines, the agent (user) answers them. */
  const simulateCall = (call: any, body: any) => {
    const prompt: string = body.assistant?.model?.messages?.[0]?.content ?? '';
    const lines = callerLines ?? [...prompt.matchAll(/^\d+\. (.+)$/gm)].map((m) => m[1]);
    const t0 = Date.parse(call.createdAt) + 2000;
    let t = t0;
    const ours: any[] = [{ role: 'system', message: prompt, time: t0, secondsFromStart: 0 }];
    const theirs: any[] = [];
    const latencies: any[] = [];
    const say = (who: 'tester' | 'agent', message: string, extra: any[] = []) => {
      const m = { message, time: t, endTime: t + 1500, secondsFromStart: (t - t0) / 1000, duration: 1500 };
      ours.push({ role: who === 'tester' ? 'bot' : 'user', ...m });
      theirs.push(...extra, { role: who === 'tester' ? 'user' : 'bot', ...m });
      t += 1500;
    };
    if (agent.greeting) say('agent', agent.greeting);
    lines.forEach((line, i) => {
      t += 400;
      say('tester', line);
      heard.push(line);
      const r = agent.reply(line, i);
      const lat = 700 + i * 10;
      t += lat;
      latencies.push({ modelLatency: lat - 300, voiceLatency: 200, transcriberLatency: 80, endpointingLatency: 20, turnLatency: lat });
      const extra: any[] = [];
      for (const c of r.tool_calls ?? []) {
        const id = fakeId('toolu_');
        extra.push({ role: 'tool_calls', toolCalls: [{ id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.arguments) } }], message: '', time: t, secondsFromStart: (t - t0) / 1000 });
        extra.push({ role: 'tool_call_result', toolCallId: id, name: c.name, result: JSON.stringify(c.result), time: t, secondsFromStart: (t - t0) / 1000 });
      }
      say('agent', r.content, extra);
    });
    call.pending = { ours, endedAt: new Date(t + 1000).toISOString(), transcript: ours.filter((m) => m.role !== 'system').map((m) => `${m.role === 'bot' ? 'AI' : 'User'}: ${m.message}`).join('\n') };
    if (agentSide) {
      const inbound = {
        id: fakeId('call-in-'), orgId: 'org-fake', type: 'inboundPhoneCall', assistantId: [...assistants][0], status: 'ended', endedReason: 'customer-ended-call',
        createdAt: new Date(t0 - 1000).toISOString(), startedAt: new Date(t0).toISOString(), endedAt: new Date(t + 1000).toISOString(), cost: AGENT_CALL_COST,
        messages: theirs, artifact: { messages: theirs, performanceMetrics: { turnLatencies: latencies, turnLatencyAverage: latencies.length ? latencies.reduce((a, l) => a + l.turnLatency, 0) / latencies.length : 0 } },
      };
      calls.set(inbound.id, inbound);
    }
  };

  const endCall = (call: any, reason: string) => {
    if (call.status === 'ended') return;
    const p = UNANSWERED.includes(reason) ? null : call.pending;
    Object.assign(call, {
      status: 'ended', endedReason: reason, endedAt: p?.endedAt ?? now(), startedAt: call.startedAt ?? call.createdAt, cost: CALL_COST,
      messages: p?.ours ?? [], artifact: { transcript: p?.transcript ?? '', messages: p?.ours ?? [], messagesOpenAIFormatted: [] },
    });
    lastCost = Math.round((CALL_COST + (agentSide ? AGENT_CALL_COST : 0)) * 1e8) / 1e8;
  };
  const publicCall = (c: any) => {
    const { pending: _p, polls: _n, ...rest } = c;
    return rest;
  };

  const json = (status: number, body: unknown): Reply => ({ status, body });
  const notFound = (what: string) => json(404, nest(404, `Couldn't Get ${what}. \`id\` Does Not Exist.`, 'Not Found'));

  let http: FakeHttp;
  http = await startFakeHttp({
    auth: (req) => (req.path.startsWith('/control/') ? null : bearer(req) === apiKey ? null : json(401, nest(401, MESSAGES.unauthorized, 'Unauthorized'))),
    errorBody: (kind, status) => nest(status, MESSAGES[kind], NAMES[kind]),
    routes: [
      { name: 'assistant', method: 'GET', pattern: /^\/assistant\/([^/]+)$/, handle: (_r, [id]) => (assistants.has(id) ? json(200, { id, orgId: 'org-fake', name: 'Front desk', createdAt: now(), updatedAt: now() }) : notFound('Assistant')) },
      {
        name: 'session', method: 'POST', pattern: /^\/session$/, handle: (r) => {
          if (!assistants.has(r.body?.assistantId)) return json(400, nest(400, ['assistantId must be an existing assistant'], 'Bad Request'));
          const s: SessionRec = { id: fakeId('session_'), assistantId: r.body.assistantId, status: 'active', chats: [], createdAt: now(), name: r.body.name, assistantOverrides: r.body.assistantOverrides };
          sessions.set(s.id, s);
          return json(201, sessionBody(s));
        },
      },
      {
        name: 'chat', method: 'POST', pattern: /^\/chat$/, handle: (r) => {
          const b = r.body ?? {};
          if (typeof b.input !== 'string' && !Array.isArray(b.input)) return json(400, nest(400, ['input must be a string or an array'], 'Bad Request'));
          if (b.sessionId && (b.previousChatId || b.assistantId)) return json(400, nest(400, ['sessionId cannot be used with assistantId or previousChatId'], 'Bad Request'));
          const s = sessions.get(b.sessionId);
          if (!s) return notFound('Session');
          if (s.status !== 'active') return json(400, nest(400, 'Session is not active', 'Bad Request'));
          const text = typeof b.input === 'string' ? b.input : String(b.input[b.input.length - 1]?.content ?? '');
          const chat = { id: fakeId('chat_'), orgId: 'org-fake', sessionId: s.id, assistantId: s.assistantId, messages: [{ role: 'user', content: text }], output: chatOutput(text, s.chats.length), cost: CHAT_COST, costs: [{ type: 'model', model: { provider: 'openai', model: 'gpt-4o' }, promptTokens: 120, completionTokens: 30, cost: CHAT_COST }], createdAt: now(), updatedAt: now() };
          s.chats.push(chat);
          return json(200, chat);
        },
      },
      {
        name: 'session_end', method: 'PATCH', pattern: /^\/session\/([^/]+)$/, handle: (r, [id]) => {
          const s = sessions.get(id);
          if (!s) return notFound('Session');
          if (r.body?.status === 'completed' || r.body?.status === 'active') s.status = r.body.status;
          if (s.status === 'completed') lastCost = sessionBody(s).cost;
          return json(200, sessionBody(s));
        },
      },
      { name: 'session_get', method: 'GET', pattern: /^\/session\/([^/]+)$/, handle: (_r, [id]) => (sessions.has(id) ? json(200, sessionBody(sessions.get(id)!)) : notFound('Session')) },
      {
        name: 'session_delete', method: 'DELETE', pattern: /^\/session\/([^/]+)$/, handle: (_r, [id]) => {
          const s = sessions.get(id);
          if (!s) return notFound('Session');
          sessions.delete(id);
          return json(200, sessionBody(s));
        },
      },
      {
        name: 'call_create', method: 'POST', pattern: /^\/call$/, handle: (r) => {
          const b = r.body ?? {};
          // Vapi validates bodies with whitelisting: an unknown property is refused, not ignored.
          if ('metadata' in b) return json(400, nest(400, ['property metadata should not exist'], 'Bad Request'));
          const unknown = b.assistant && typeof b.assistant === 'object' ? Object.keys(b.assistant).filter((k) => !(ASSISTANT_PROPERTIES as readonly string[]).includes(k)) : [];
          if (unknown.length) return json(400, nest(400, unknown.map((k) => `assistant.property ${k} should not exist`), 'Bad Request'));
          if (!phoneIds.has(b.phoneNumberId)) return json(400, nest(400, 'Couldn\'t Get Phone Number. `phoneNumberId` Does Not Exist.', 'Bad Request'));
          if (!b.customer?.number || !(b.assistant || b.assistantId)) return json(400, nest(400, ['customer.number and an assistant are required'], 'Bad Request'));
          const id = fakeId('call-');
          const call = {
            id, orgId: 'org-fake', type: 'outboundPhoneCall', status: 'queued', createdAt: now(), updatedAt: now(), phoneNumberId: b.phoneNumberId, customer: b.customer,
            name: b.name, metadata: b.assistantOverrides?.metadata, assistant: b.assistant, cost: 0, polls: 0,
            monitor: { listenUrl: `ws://127.0.0.1/${id}/listen`, controlUrl: `${http.baseUrl}/control/${id}` },
          };
          simulateCall(call, b);
          calls.set(id, call);
          return json(201, { ...publicCall(call), subscriptionLimits: { concurrencyBlocked: false, concurrencyLimit: 10, remainingConcurrentCalls: 9 } });
        },
      },
      {
        name: 'call_list', method: 'GET', pattern: /^\/call$/, handle: (r) => {
          const q = r.query;
          const list = [...calls.values()].filter((c) => (!q.get('assistantId') || c.assistantId === q.get('assistantId'))
            && (!q.get('createdAtGe') || c.createdAt >= q.get('createdAtGe')!) && (!q.get('createdAtLe') || c.createdAt <= q.get('createdAtLe')!));
          return json(200, list.slice(0, Number(q.get('limit') ?? 100)).map(publicCall));
        },
      },
      {
        name: 'call_get', method: 'GET', pattern: /^\/call\/([^/]+)$/, handle: (_r, [id]) => {
          const c = calls.get(id);
          if (!c) return notFound('Call');
          if (c.status !== 'ended') {
            c.polls++;
            c.status = c.polls >= callPolls ? 'ended' : c.polls === 1 ? 'ringing' : 'in-progress';
            if (c.status === 'in-progress') c.startedAt ??= now();
            if (c.status === 'ended') { c.status = 'in-progress'; endCall(c, endedReason); }
          }
          return json(200, publicCall(c));
        },
      },
      {
        name: 'control', method: 'POST', pattern: /^\/control\/([^/]+)$/, handle: (r, [id]) => {
          const c = calls.get(id);
          if (!c) return json(404, { message: 'call not found' });
          if (r.body?.type === 'end-call') endCall(c, 'manually-canceled');
          return json(200, { ok: true });
        },
      },
    ],
  });

  return {
    http, baseUrl: http.baseUrl, apiKey, sessions, calls,
    requests: () => http.requests,
    setAgent: (a) => { agent = a; },
    inject: (kind, fo = {}) => http.inject(kind, { ...fo, on: fo.on ?? 'chat' }),
    setLatency: (ms) => http.setLatency(ms, 'chat'),
    heard: () => {
      // Chat turns are heard when they arrive; voice calls when simulated.
      const chat = http.requests.filter((r) => r.path === '/chat' && typeof r.body?.input === 'string').map((r) => r.body.input as string);
      return [...chat, ...heard];
    },
    nextTurn: () => http.nextRequest((r) => r.path === '/chat').then(() => undefined),
    openSessions: () => [...sessions.values()].filter((s) => s.status === 'active').length + [...calls.values()].filter((c) => c.type === 'outboundPhoneCall' && c.status !== 'ended').length,
    lastCostUsd: () => lastCost,
    setCallerLines: (l) => { callerLines = l; },
    setCallPolls: (n) => { callPolls = n; },
    setEndedReason: (r) => { endedReason = r; },
    setAgentSideCalls: (on) => { agentSide = on; },
    close: () => http.close(),
  };
}
