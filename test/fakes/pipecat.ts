import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { runFakeBot, type BotConnectionRecord, type FakeBotBehaviour } from './pipecat-bot.js';

export type { FakeBotBehaviour, FakeBotReply, FakeBotTool } from './pipecat-bot.js';

// A fake Pipecat Cloud on 127.0.0.1 (docs: rest-reference openapi-start/-stop/-agent-list-one, guides
// websocket-authentication and generic-websocket): `POST /v1/public/{agent}/start` (public key) → {sessionId,
// wsUrl, token?, body?}; `GET /v1/agents/{agent}` and `DELETE /v1/agents/{agent}/sessions/{id}` (private key);
// errors `{error, code}`. The websocket endpoint checks the one-time token (header, ?token= or path), takes
// `?body=` (base64 JSON) and hands the socket to the fake bot.

/** `bad_token`: /start answers normally but the token it returns will be refused (expired, replayed). */
export type PipecatFault = 'unauthorized' | 'not_found' | 'rate_limited' | 'server_error' | 'malformed_json' | 'slow' | 'hang' | 'bad_token' | 'no_ws_url';
export type PipecatRoute = 'start' | 'agent' | 'stop';

export interface PipecatFaultOptions {
  on?: PipecatRoute;
  times?: number;
  retryAfter?: string;
  delayMs?: number;
}

export interface FakePipecatOptions {
  publicKey?: string;
  privateKey?: string;
  agentName?: string;
  /** The agent's websocket_auth setting: "token" (default) or "none". */
  websocketAuth?: 'token' | 'none';
  bot?: FakeBotBehaviour;
}

export interface PipecatRequestRecord {
  method: string;
  path: string;
  authorization: string | undefined;
  body: any;
}

export interface FakePipecat {
  baseUrl: string;
  publicKey: string;
  privateKey: string;
  agentName: string;
  requests: PipecatRequestRecord[];
  sessions: Map<string, { token: string | null; stopped: boolean; connection: BotConnectionRecord | null }>;
  connections: BotConnectionRecord[];
  setBot(b: FakeBotBehaviour): void;
  inject(kind: PipecatFault, opts?: PipecatFaultOptions): void;
  /** Number of bot websockets still open. */
  openSockets(): number;
  close(): Promise<void>;
}

export async function startFakePipecat(opts: FakePipecatOptions = {}): Promise<FakePipecat> {
  const publicKey = opts.publicKey ?? 'pk_test_public';
  const privateKey = opts.privateKey ?? 'sk_test_private';
  const agentName = opts.agentName ?? 'order-bot';
  const wsAuth = opts.websocketAuth ?? 'token';
  let bot: FakeBotBehaviour = opts.bot ?? {};
  const requests: PipecatRequestRecord[] = [];
  const sessions: FakePipecat['sessions'] = new Map();
  const connections: BotConnectionRecord[] = [];
  const tokens = new Map<string, string>(); // token → sessionId, removed on first use
  const faults: { kind: PipecatFault; left: number; opts: PipecatFaultOptions }[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const wss = new WebSocketServer({ noServer: true });
  let port = 0;

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    if (res.destroyed) return;
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };
  const err = (res: ServerResponse, status: number, error: string, code: string, headers: Record<string, string> = {}) => send(res, status, { error, code }, headers);

  function takeFault(route: PipecatRoute) {
    const i = faults.findIndex((f) => !f.opts.on || f.opts.on === route);
    if (i < 0) return null;
    const f = faults[i];
    if (--f.left <= 0) faults.splice(i, 1);
    return f;
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const path = (req.url ?? '/').split('?')[0];
    let body: any = null;
    try { body = raw ? JSON.parse(raw) : null; } catch { return err(res, 400, 'Invalid JSON body', 'PCC-1000'); }
    requests.push({ method: req.method ?? 'GET', path, authorization: req.headers.authorization, body });

    const start = /^\/v1\/public\/([^/]+)\/start$/.exec(path);
    const agent = /^\/v1\/agents\/([^/]+)$/.exec(path);
    const stop = /^\/v1\/agents\/([^/]+)\/sessions\/([^/]+)$/.exec(path);
    const route: PipecatRoute | null = start && req.method === 'POST' ? 'start' : agent && req.method === 'GET' ? 'agent' : stop && req.method === 'DELETE' ? 'stop' : null;
    if (!route) return err(res, 404, 'Not found', 'PCC-404');
    const key = route === 'start' ? publicKey : privateKey;
    if (!req.headers.authorization) return err(res, 401, route === 'start' ? 'Missing public API key' : 'Missing API key', route === 'start' ? 'PCC-1002' : 'PCC-1001');
    if (req.headers.authorization !== `Bearer ${key}`) return err(res, 401, 'Invalid API key', 'PCC-1001');

    const f = takeFault(route);
    if (f) {
      switch (f.kind) {
        case 'unauthorized': return err(res, 401, 'Invalid API key', 'PCC-1001');
        case 'not_found': return err(res, 404, `Agent ${agentName} not found`, 'PCC-AGENT-NOT-FOUND');
        case 'rate_limited': return err(res, 429, 'Too many requests', 'PCC-RATE-LIMIT', f.opts.retryAfter ? { 'retry-after': f.opts.retryAfter } : {});
        case 'server_error': return err(res, 500, 'Internal server error', 'PCC-500');
        case 'malformed_json': return send(res, 200, '{"sessionId": "');
        case 'hang': return;
        case 'slow': await new Promise<void>((r) => { const t = setTimeout(() => { timers.delete(t); r(); }, f.opts.delayMs ?? 1000); timers.add(t); }); break;
        case 'no_ws_url': return send(res, 200, { sessionId: randomUUID() });
        case 'bad_token': break; // handled below
      }
    }
    const badToken = f?.kind === 'bad_token';
    const name = decodeURIComponent((start ?? agent ?? stop)![1]);
    if (name !== agentName) return err(res, 404, `Agent ${name} not found`, 'PCC-AGENT-NOT-FOUND');

    if (route === 'agent') {
      return send(res, 200, { name, region: 'us-west', ready: true, available: true, activeSessionCount: [...sessions.values()].filter((s) => !s.stopped).length, createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' });
    }
    if (route === 'stop') {
      const s = sessions.get(decodeURIComponent(stop![2]));
      if (!s || s.stopped) return err(res, 404, 'Session not found', 'PCC-SESSION-NOT-FOUND');
      s.stopped = true;
      for (const ws of wss.clients) if ((ws as any).sessionId === stop![2]) ws.close(1000, 'session stopped');
      return send(res, 200, { status: 'terminated', session_id: stop![2] });
    }
    if (body?.transport !== 'websocket') return err(res, 400, 'This test double only serves transport "websocket"', 'PCC-1000');
    if (body.body !== undefined && Buffer.byteLength(JSON.stringify(body.body)) > 4096) return err(res, 400, 'body exceeds 4 KB for the websocket transport', 'PCC-1000');
    if (body.body !== undefined && wsAuth === 'none') return err(res, 400, 'body is only supported on /start for websocket_auth = "token"', 'PCC-1000');
    const sessionId = randomUUID();
    const token = wsAuth === 'token' ? `tok_${randomUUID()}` : null;
    if (token && !badToken) tokens.set(token, sessionId);
    sessions.set(sessionId, { token, stopped: false, connection: null });
    return send(res, 200, {
      sessionId,
      wsUrl: `ws://127.0.0.1:${port}/ws/generic/${name}.fake-org`,
      ...(token ? { token } : {}),
      ...(body.body !== undefined ? { body: Buffer.from(JSON.stringify(body.body)).toString('base64') } : {}),
    });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => err(res, 500, `fake server error: ${e instanceof Error ? e.message : String(e)}`, 'PCC-500'));
  });
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const m = /^\/ws\/generic\/([^/]+)\.fake-org(?:\/([^/]+))?$/.exec(url.pathname);
    const refuse = (status: number, text: string) => { socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`); };
    if (!m || m[1] !== agentName) return refuse(404, 'Not Found');
    const header = req.headers.authorization?.startsWith('Bearer ') ? req.headers.authorization.slice(7) : null;
    const token = header ?? url.searchParams.get('token') ?? m[2] ?? null;
    let sessionId: string | null = null;
    if (wsAuth === 'token') {
      sessionId = token ? tokens.get(token) ?? null : null;
      if (!sessionId) return refuse(403, 'Forbidden'); // missing, invalid or replayed
      tokens.delete(token!);
    } else {
      sessionId = randomUUID();
      sessions.set(sessionId, { token: null, stopped: false, connection: null });
    }
    let decoded: unknown = null;
    const b64 = url.searchParams.get('body');
    if (b64) { try { decoded = JSON.parse(Buffer.from(b64, 'base64').toString('utf8')); } catch { return refuse(400, 'Bad Request'); } }
    wss.handleUpgrade(req, socket, head, (ws) => {
      (ws as any).sessionId = sessionId;
      const record: BotConnectionRecord = { url: req.url ?? '', body: decoded, received: [], closed: null };
      connections.push(record);
      sessions.get(sessionId!)!.connection = record;
      runFakeBot(ws, () => bot, record);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    publicKey,
    privateKey,
    agentName,
    requests,
    sessions,
    connections,
    setBot: (b) => { bot = b; },
    inject: (kind, fo = {}) => { faults.push({ kind, left: fo.times ?? 1, opts: fo }); },
    openSockets: () => [...wss.clients].filter((c) => c.readyState === c.OPEN).length,
    close: () => new Promise<void>((resolve) => {
      timers.forEach(clearTimeout);
      for (const c of wss.clients) c.terminate();
      wss.close();
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
