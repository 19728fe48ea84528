import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TokenVerifier } from 'livekit-server-sdk';
import { createMemoryChannelFactory, type FakeLiveKitAgent, type MemoryRoomRegistry } from './livekit-room.js';
import type { LiveKitChannelFactory } from '../../src/providers/livekit-channel.js';

export type { FakeAgentTurn, FakeLiveKitAgent } from './livekit-room.js';

// A fake LiveKit server API on 127.0.0.1 (providers.md §2, LN TwirpRPC.ts, livekit-server pkg/service/auth.go):
// `POST /twirp/livekit.<Service>/<Method>` with JSON, `Authorization: Bearer <JWT>` verified with the API secret
// (issuer = API key, HS256, exp required) and the grant each method needs; Twirp errors `{code, msg}` with their
// HTTP statuses; responses in Twirp's default proto-name (snake_case) JSON. The room/text side is the in-memory
// channel of livekit-room.ts, which only lets the agent join rooms this server created and dispatched it to.

export type LiveKitFault = 'unauthenticated' | 'not_found' | 'rate_limited' | 'server_error' | 'malformed_json' | 'slow' | 'hang' | 'commit_then_fail';

export interface LiveKitFaultOptions {
  /** Twirp method name (CreateRoom, CreateDispatch, …); default any. */
  method?: string;
  times?: number;
  /** rate_limited: the Retry-After header value. */
  retryAfter?: string;
  /** slow: the delay before the normal answer. */
  delayMs?: number;
}

export interface TwirpRequestRecord {
  service: string;
  method: string;
  body: Record<string, unknown> | null;
  authorization: string | undefined;
  grants: Record<string, unknown> | null;
}

export interface FakeLiveKit {
  baseUrl: string;
  wsUrl: string;
  apiKey: string;
  apiSecret: string;
  requests: TwirpRequestRecord[];
  rooms: Map<string, { name: string; sid: string; emptyTimeout: number; departureTimeout: number }>;
  dispatches: { id: string; room: string; agentName: string; metadata: string }[];
  registry: MemoryRoomRegistry;
  inject(kind: LiveKitFault, opts?: LiveKitFaultOptions): void;
  /** The in-memory room layer, bound to this server's rooms and dispatches. */
  channelFactory(agent: FakeLiveKitAgent, opts?: { agentName?: string }): LiveKitChannelFactory;
  calls(method: string): TwirpRequestRecord[];
  close(): Promise<void>;
}

const TWIRP_STATUS: Record<string, number> = {
  unauthenticated: 401, permission_denied: 403, not_found: 404, bad_route: 404, malformed: 400,
  invalid_argument: 400, resource_exhausted: 429, internal: 500, unavailable: 503,
};

// Which grant each method needs (livekit-server: EnsureCreatePermission, EnsureListPermission, EnsureAdminPermission).
const NEEDS: Record<string, 'roomCreate' | 'roomList' | 'roomAdmin'> = {
  'RoomService/CreateRoom': 'roomCreate',
  'RoomService/DeleteRoom': 'roomCreate',
  'RoomService/ListRooms': 'roomList',
  'AgentDispatchService/CreateDispatch': 'roomAdmin',
  'AgentDispatchService/ListDispatch': 'roomAdmin',
  'AgentDispatchService/DeleteDispatch': 'roomAdmin',
};

const pick = (b: Record<string, unknown>, snake: string, camel: string) => b[snake] ?? b[camel];

export async function startFakeLiveKit(opts: { apiKey?: string; apiSecret?: string } = {}): Promise<FakeLiveKit> {
  const apiKey = opts.apiKey ?? 'APIfakekey';
  const apiSecret = opts.apiSecret ?? 'fake-secret-that-is-long-enough-for-hs256';
  const verifier = new TokenVerifier(apiKey, apiSecret);
  const requests: TwirpRequestRecord[] = [];
  const rooms: FakeLiveKit['rooms'] = new Map();
  const dispatches: FakeLiveKit['dispatches'] = [];
  const faults: { kind: LiveKitFault; left: number; opts: LiveKitFaultOptions }[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let seq = 0;
  const registry: MemoryRoomRegistry = {
    roomExists: (name) => rooms.has(name),
    dispatchedAgent: (room, agentName) => dispatches.some((d) => d.room === room && d.agentName === agentName),
    onRoomDeleted: new Set(),
    secret: { apiKey, apiSecret },
  };

  const send = (res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}, type = 'application/json') => {
    if (res.destroyed) return;
    res.writeHead(status, { 'content-type': type, ...headers });
    res.end(body);
  };
  const twirpError = (res: ServerResponse, code: string, msg: string, headers: Record<string, string> = {}) =>
    send(res, TWIRP_STATUS[code] ?? 500, JSON.stringify({ code, msg }), headers);
  const delay = (ms: number) => new Promise<void>((r) => { const t = setTimeout(() => { timers.delete(t); r(); }, ms); timers.add(t); });

  function takeFault(method: string) {
    const i = faults.findIndex((f) => !f.opts.method || f.opts.method === method);
    if (i < 0) return null;
    const f = faults[i];
    if (--f.left <= 0) faults.splice(i, 1);
    return f;
  }

  function roomView(r: { name: string; sid: string; emptyTimeout: number; departureTimeout: number }) {
    return { sid: r.sid, name: r.name, empty_timeout: r.emptyTimeout, departure_timeout: r.departureTimeout, creation_time: String(Math.floor(Date.now() / 1000)), num_participants: 0 };
  }

  function handleMethod(key: string, body: Record<string, unknown>, grants: Record<string, unknown>, res: ServerResponse) {
    const room = String(pick(body, 'room', 'room') ?? '');
    switch (key) {
      case 'RoomService/CreateRoom': {
        const name = String(body.name ?? '');
        if (!name) return twirpError(res, 'invalid_argument', 'room name is required');
        const existing = rooms.get(name);
        const r = existing ?? { name, sid: `RM_${++seq}`, emptyTimeout: Number(pick(body, 'empty_timeout', 'emptyTimeout') ?? 300), departureTimeout: Number(pick(body, 'departure_timeout', 'departureTimeout') ?? 20) };
        rooms.set(name, r);
        return send(res, 200, JSON.stringify(roomView(r)));
      }
      case 'RoomService/ListRooms': {
        const names = (body.names as string[] | undefined) ?? [];
        const list = [...rooms.values()].filter((r) => names.length === 0 || names.includes(r.name));
        return send(res, 200, JSON.stringify({ rooms: list.map(roomView) }));
      }
      case 'RoomService/DeleteRoom': {
        if (!rooms.delete(room)) return twirpError(res, 'not_found', 'requested room does not exist');
        for (let i = dispatches.length - 1; i >= 0; i--) if (dispatches[i].room === room) dispatches.splice(i, 1);
        registry.onRoomDeleted.forEach((fn) => fn(room));
        return send(res, 200, '{}');
      }
    }
    // Dispatch methods: the room in the token must be the room in the body.
    if (grants.room !== room) return twirpError(res, 'unauthenticated', 'permissions denied');
    switch (key) {
      case 'AgentDispatchService/CreateDispatch': {
        const agentName = String(pick(body, 'agent_name', 'agentName') ?? '');
        if (!rooms.has(room)) return twirpError(res, 'not_found', 'requested room does not exist');
        const d = { id: `AD_${++seq}`, room, agentName, metadata: String(body.metadata ?? '') };
        dispatches.push(d);
        return send(res, 200, JSON.stringify({ id: d.id, agent_name: agentName, room, metadata: d.metadata, state: { jobs: [], created_at: String(Date.now()) } }));
      }
      case 'AgentDispatchService/ListDispatch':
        return send(res, 200, JSON.stringify({ agent_dispatches: dispatches.filter((d) => d.room === room).map((d) => ({ id: d.id, agent_name: d.agentName, room: d.room, metadata: d.metadata })) }));
      case 'AgentDispatchService/DeleteDispatch': {
        const i = dispatches.findIndex((d) => d.id === pick(body, 'dispatch_id', 'dispatchId'));
        if (i < 0) return twirpError(res, 'not_found', 'dispatch not found');
        return send(res, 200, JSON.stringify(dispatches.splice(i, 1)[0]));
      }
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const path = (req.url ?? '/').split('?')[0];
    const m = /^\/twirp\/livekit\.(\w+)\/(\w+)$/.exec(path);
    let body: Record<string, unknown> | null = null;
    try { body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : null; } catch { body = null; }
    const rec: TwirpRequestRecord = { service: m?.[1] ?? '', method: m?.[2] ?? '', body, authorization: req.headers.authorization, grants: null };
    requests.push(rec);
    if (!m || req.method !== 'POST' || !NEEDS[`${m[1]}/${m[2]}`]) return twirpError(res, 'bad_route', `no handler for path "${path}"`);
    if (body === null) return twirpError(res, 'malformed', 'the json request could not be decoded');

    // Auth middleware first (livekit-server answers these in plain text, the older versions echoing the token).
    const auth = req.headers.authorization;
    if (auth !== undefined && !auth.startsWith('Bearer ')) return send(res, 401, 'invalid authorization header. Must start with Bearer ', {}, 'text/plain');
    let grants: Record<string, unknown> = {};
    if (auth) {
      const token = auth.slice('Bearer '.length);
      try {
        const claims = (await verifier.verify(token)) as { video?: Record<string, unknown> };
        grants = claims.video ?? {};
      } catch (err) {
        return send(res, 401, `invalid token: ${token}, error: ${err instanceof Error ? err.message : String(err)}`, {}, 'text/plain');
      }
    }
    rec.grants = grants;
    if (!grants[NEEDS[`${m[1]}/${m[2]}`]]) return twirpError(res, 'unauthenticated', 'permissions denied');

    const f = takeFault(m[2]);
    if (f) {
      switch (f.kind) {
        case 'unauthenticated': return twirpError(res, 'unauthenticated', 'permissions denied');
        case 'not_found': return twirpError(res, 'not_found', 'requested room does not exist');
        case 'rate_limited': return twirpError(res, 'resource_exhausted', 'rate limit exceeded', f.opts.retryAfter ? { 'retry-after': f.opts.retryAfter } : {});
        case 'server_error': return twirpError(res, 'internal', 'internal error');
        case 'malformed_json': return send(res, 200, '{"rooms": [{"sid": "RM_');
        case 'hang': return;
        case 'slow': await delay(f.opts.delayMs ?? 1000); break;
        case 'commit_then_fail':
          handleMethod(`${m[1]}/${m[2]}`, body, grants, { writeHead: () => undefined, end: () => undefined, destroyed: false } as unknown as ServerResponse);
          return twirpError(res, 'internal', 'internal error');
      }
    }
    handleMethod(`${m[1]}/${m[2]}`, body, grants, res);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => twirpError(res, 'internal', `fake server error: ${err instanceof Error ? err.message : String(err)}`));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    wsUrl: `ws://127.0.0.1:${port}`,
    apiKey,
    apiSecret,
    requests,
    rooms,
    dispatches,
    registry,
    inject: (kind, fo = {}) => { faults.push({ kind, left: fo.times ?? 1, opts: fo }); },
    channelFactory: (agent, o = {}) => createMemoryChannelFactory(registry, agent, o),
    calls: (method) => requests.filter((r) => r.method === method),
    close: () => new Promise<void>((resolve) => {
      timers.forEach(clearTimeout);
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
