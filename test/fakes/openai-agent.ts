import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChatCompletion } from 'openai/resources/chat/completions';

// A fake OpenAI Chat Completions server on 127.0.0.1 that speaks the real wire format (providers.md §5):
// Bearer auth, `POST /v1/chat/completions`, `GET /v1/models`, error bodies {"error":{message,type,param,code}}.

export interface WireMessage {
  role: string;
  content: string | null;
  tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
  /** Legacy function calling: the assistant's call and the `function` message that answers it. */
  function_call?: { name: string; arguments: string };
  name?: string;
}

export interface ChatBody {
  model: string;
  messages: WireMessage[];
  tools?: unknown[];
  response_format?: unknown;
  temperature?: number;
  max_completion_tokens?: number;
  [k: string]: unknown;
}

export interface FakeToolCall {
  id?: string;
  name: string;
  arguments: unknown;
}

export interface FakeReply {
  content?: string | null;
  tool_calls?: FakeToolCall[];
  /** Answer in the deprecated `function_call` form (finish_reason `function_call`); null arguments sent as null. */
  function_call?: { name: string; arguments: unknown };
  finish_reason?: string;
  usage?: { prompt_tokens: number; completion_tokens: number };
}

export type ReplyFn = (messages: WireMessage[], body: ChatBody) => string | FakeReply | Promise<string | FakeReply>;

export type FaultKind =
  | 'invalid_api_key'
  | 'not_found'
  | 'rate_limited'
  | 'insufficient_quota'
  | 'server_error'
  | 'malformed_json'
  | 'hang'
  | 'reset';

export interface FaultOptions {
  /** How many matching requests get the fault (default 1; Infinity for every one). */
  times?: number;
  /** Which endpoint: chat completions (default), models, or any. */
  on?: 'chat' | 'models' | 'any';
  /** For rate_limited: the `Retry-After` header value (seconds or HTTP date). */
  retryAfter?: string;
  /** For rate_limited: the `retry-after-ms` header value. */
  retryAfterMs?: string;
  /** For server_error: the status (default 500). */
  status?: number;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: ChatBody | null;
  at: number;
}

export interface FakeOpenAiOptions {
  /** The accepted Bearer key; null accepts any request, with or without a key. Default 'sk-test'. */
  apiKey?: string | null;
  reply?: ReplyFn;
  latencyMs?: number;
  /** The model list; null for a server without `GET /models` (it answers 404, as for any unknown URL). */
  models?: string[] | null;
}

export interface FakeOpenAiServer {
  /** Base URL including `/v1`, as a provider config or REHEARSAL_LLM_BASE_URL would hold it. */
  baseUrl: string;
  apiKey: string | null;
  requests: RecordedRequest[];
  chatRequests(): RecordedRequest[];
  setReply(fn: ReplyFn): void;
  setLatency(ms: number): void;
  inject(kind: FaultKind, opts?: FaultOptions): void;
  /** Resolves when the next request arrives (for tests that act mid-request). */
  nextRequest(): Promise<RecordedRequest>;
  close(): Promise<void>;
}

const errorBody = (message: string, type: string, code: string | null, param: string | null = null) =>
  JSON.stringify({ error: { message, type, param, code } });

const estimateTokens = (s: string) => Math.max(1, Math.ceil(s.length / 4));

export const echoReply: ReplyFn = (messages) => {
  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  return `You said: ${lastUser?.content ?? ''}`;
};

export async function startFakeOpenAi(opts: FakeOpenAiOptions = {}): Promise<FakeOpenAiServer> {
  const apiKey = opts.apiKey === undefined ? 'sk-test' : opts.apiKey;
  let reply: ReplyFn = opts.reply ?? echoReply;
  let latencyMs = opts.latencyMs ?? 0;
  const faults: { kind: FaultKind; left: number; opts: FaultOptions }[] = [];
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const waiters: ((r: RecordedRequest) => void)[] = [];
  let seq = 0;

  const delay = (ms: number) =>
    new Promise<void>((resolve) => {
      if (ms <= 0) return resolve();
      const t = setTimeout(() => {
        timers.delete(t);
        resolve();
      }, ms);
      timers.add(t);
    });

  const send = (res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) => {
    if (res.destroyed) return;
    res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': `req_${++seq}`, ...headers });
    res.end(body);
  };

  function takeFault(endpoint: 'chat' | 'models') {
    const i = faults.findIndex((f) => (f.opts.on ?? 'chat') === endpoint || f.opts.on === 'any');
    if (i < 0) return null;
    const f = faults[i];
    if (--f.left <= 0) faults.splice(i, 1);
    return f;
  }

  // Returns true when the fault answered (or swallowed) the request.
  function applyFault(f: { kind: FaultKind; opts: FaultOptions }, req: IncomingMessage, res: ServerResponse, model: string): boolean {
    switch (f.kind) {
      case 'invalid_api_key':
        send(res, 401, errorBody('Incorrect API key provided: sk-wr***. You can find your API key at https://platform.openai.com/account/api-keys.', 'invalid_request_error', 'invalid_api_key'));
        return true;
      case 'not_found':
        send(res, 404, errorBody(`The model \`${model}\` does not exist or you do not have access to it.`, 'invalid_request_error', 'model_not_found'));
        return true;
      case 'rate_limited': {
        const h: Record<string, string> = {};
        if (f.opts.retryAfter !== undefined) h['retry-after'] = f.opts.retryAfter;
        if (f.opts.retryAfterMs !== undefined) h['retry-after-ms'] = f.opts.retryAfterMs;
        send(res, 429, errorBody(`Rate limit reached for ${model} on requests per min (RPM): Limit 3, Used 3, Requested 1.`, 'requests', 'rate_limit_exceeded'), h);
        return true;
      }
      case 'insufficient_quota':
        send(res, 429, errorBody('You exceeded your current quota, please check your plan and billing details.', 'insufficient_quota', 'insufficient_quota'));
        return true;
      case 'server_error':
        send(res, f.opts.status ?? 500, errorBody('The server had an error while processing your request. Sorry about that!', 'server_error', null));
        return true;
      case 'malformed_json':
        send(res, 200, '{"id":"chatcmpl-broken","object":"chat.completion","choices":[{"index":0,"message":');
        return true;
      case 'hang':
        return true;
      case 'reset':
        req.socket.destroy();
        return true;
    }
  }

  async function chat(body: ChatBody, res: ServerResponse) {
    await delay(latencyMs);
    const out = await reply(body.messages, body);
    const r: FakeReply = typeof out === 'string' ? { content: out } : out;
    // Arguments are a JSON string on the wire; a server that sends null (some do) is reproduced as such.
    const wireArgs = (a: unknown) => (a === null ? (null as unknown as string) : typeof a === 'string' ? a : JSON.stringify(a ?? {}));
    const toolCalls = (r.tool_calls ?? []).map((tc) => ({
      id: tc.id ?? `call_${++seq}`,
      type: 'function' as const,
      function: { name: tc.name, arguments: wireArgs(tc.arguments) },
    }));
    const functionCall = r.function_call ? { name: r.function_call.name, arguments: wireArgs(r.function_call.arguments) } : null;
    const content = r.content === undefined ? (toolCalls.length || functionCall ? null : '') : r.content;
    const promptTokens = body.messages.reduce((n, m) => n + estimateTokens(m.content ?? ''), 0);
    const completionTokens = estimateTokens(content ?? JSON.stringify(toolCalls));
    const usage = r.usage ?? { prompt_tokens: promptTokens, completion_tokens: completionTokens };
    // Typed by the official client's response type, so the fake cannot drift from it.
    const completion: ChatCompletion = {
      id: `chatcmpl-${++seq}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      choices: [{
        index: 0,
        message: { role: 'assistant', content, refusal: null, ...(toolCalls.length ? { tool_calls: toolCalls } : {}), ...(functionCall ? { function_call: functionCall } : {}) },
        logprobs: null,
        finish_reason: (r.finish_reason as ChatCompletion.Choice['finish_reason'] | undefined) ?? (toolCalls.length ? 'tool_calls' : functionCall ? 'function_call' : 'stop'),
      }],
      usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
      system_fingerprint: 'fp_fake',
    };
    send(res, 200, JSON.stringify(completion));
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const path = (req.url ?? '/').split('?')[0];
    let body: ChatBody | null = null;
    if (raw) {
      try {
        body = JSON.parse(raw) as ChatBody;
      } catch {
        body = null;
      }
    }
    const rec: RecordedRequest = { method: req.method ?? 'GET', path, headers: req.headers, body, at: Date.now() };
    requests.push(rec);
    waiters.splice(0).forEach((w) => w(rec));

    const endpoint = req.method === 'POST' && path === '/v1/chat/completions' ? 'chat' : req.method === 'GET' && path === '/v1/models' && opts.models !== null ? 'models' : null;
    if (!endpoint) {
      return send(res, 404, errorBody(`Unknown request URL: ${req.method} ${path}.`, 'invalid_request_error', 'unknown_url'));
    }
    if (apiKey !== null) {
      const auth = req.headers.authorization;
      if (!auth) {
        return send(res, 401, errorBody("You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).", 'invalid_request_error', null));
      }
      if (auth !== `Bearer ${apiKey}`) {
        return send(res, 401, errorBody('Incorrect API key provided: sk-wr***. You can find your API key at https://platform.openai.com/account/api-keys.', 'invalid_request_error', 'invalid_api_key'));
      }
    }
    const fault = takeFault(endpoint);
    if (fault && applyFault(fault, req, res, body?.model ?? 'unknown')) return;
    if (endpoint === 'models') {
      const data = (opts.models ?? ['fake-agent-1']).map((id) => ({ id, object: 'model', created: 1_700_000_000, owned_by: 'fake' }));
      return send(res, 200, JSON.stringify({ object: 'list', data }));
    }
    if (!body || typeof body.model !== 'string' || !Array.isArray(body.messages)) {
      return send(res, 400, errorBody("We could not parse the JSON body of your request, or 'model'/'messages' is missing.", 'invalid_request_error', null));
    }
    await chat(body, res);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      send(res, 500, errorBody(`fake server error: ${err instanceof Error ? err.message : String(err)}`, 'server_error', null));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    apiKey,
    requests,
    chatRequests: () => requests.filter((r) => r.path === '/v1/chat/completions'),
    setReply: (fn) => {
      reply = fn;
    },
    setLatency: (ms) => {
      latencyMs = ms;
    },
    inject: (kind, fo = {}) => {
      faults.push({ kind, left: fo.times ?? 1, opts: fo });
    },
    nextRequest: () => new Promise((resolve) => waiters.push(resolve)),
    close: () =>
      new Promise<void>((resolve) => {
        timers.forEach(clearTimeout);
        timers.clear();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The agent under test (provider_4), with defaults suited to it. */
export const startFakeAgent = startFakeOpenAi;
