import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// The OpenAI Chat Completions wire format, just enough of it for the demo's local endpoints (the sample
// agent and the rule-based demo judge): POST /v1/chat/completions, GET /v1/models, Bearer auth and
// error bodies {"error": {message, type, param, code}}. Loopback only.

export interface WireMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | null;
  tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

export interface WireRequest {
  model: string;
  messages: WireMessage[];
  [k: string]: unknown;
}

export interface WireAnswer {
  content: string | null;
  tool_calls?: { name: string; arguments: Record<string, unknown> }[];
}

export interface ChatServer {
  /** Includes `/v1`, as a provider config or REHEARSAL_LLM_BASE_URL holds it. */
  baseUrl: string;
  close(): Promise<void>;
}

export interface ChatServerOptions {
  /** The accepted Bearer key. */
  apiKey: string;
  models: string[];
  complete(req: WireRequest): WireAnswer;
  port?: number;
}

const MAX_BODY = 1024 * 1024;
const tokens = (s: string) => Math.max(1, Math.ceil(s.length / 4));

function send(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

const wireError = (message: string, type: string, code: string | null) => ({ error: { message, type, param: null, code } });

async function readBody(req: IncomingMessage): Promise<string> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > MAX_BODY) throw new Error('body too large');
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export async function startChatServer(opts: ChatServerOptions): Promise<ChatServer> {
  let seq = 0;
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    const isChat = req.method === 'POST' && path === '/v1/chat/completions';
    const isModels = req.method === 'GET' && path === '/v1/models';
    if (!isChat && !isModels) return send(res, 404, wireError(`Unknown request URL: ${req.method} ${path}.`, 'invalid_request_error', 'unknown_url'));
    if (req.headers.authorization !== `Bearer ${opts.apiKey}`) {
      return send(res, 401, wireError('Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key'));
    }
    if (isModels) {
      return send(res, 200, { object: 'list', data: opts.models.map((id) => ({ id, object: 'model', created: 1_700_000_000, owned_by: 'rehearsal-demo' })) });
    }
    let body: WireRequest;
    try {
      body = JSON.parse(await readBody(req)) as WireRequest;
    } catch {
      return send(res, 400, wireError('We could not parse the JSON body of your request.', 'invalid_request_error', null));
    }
    if (typeof body?.model !== 'string' || !Array.isArray(body.messages)) {
      return send(res, 400, wireError("'model' and 'messages' are required.", 'invalid_request_error', null));
    }
    if (!opts.models.includes(body.model)) {
      return send(res, 404, wireError(`The model \`${body.model}\` does not exist.`, 'invalid_request_error', 'model_not_found'));
    }
    const answer = opts.complete(body);
    const toolCalls = (answer.tool_calls ?? []).map((tc) => ({
      id: `call_${++seq}`, type: 'function' as const, function: { name: tc.name, arguments: JSON.stringify(tc.arguments) },
    }));
    const prompt = body.messages.reduce((n, m) => n + tokens(m.content ?? ''), 0);
    const completion = tokens(answer.content ?? JSON.stringify(toolCalls));
    send(res, 200, {
      id: `chatcmpl-demo-${++seq}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      choices: [{
        index: 0,
        message: { role: 'assistant', content: answer.content, refusal: null, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) },
        logprobs: null,
        finish_reason: toolCalls.length ? 'tool_calls' : 'stop',
      }],
      usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
    });
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => send(res, 500, wireError(`server error: ${(err as Error)?.message ?? String(err)}`, 'server_error', null)));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
