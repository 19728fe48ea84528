import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// The plumbing the provider fakes share: a JSON server on 127.0.0.1 that records requests, injects faults per
// endpoint, delays answers, and cleans up every timer on close. Each fake supplies its routes, auth check and
// its provider's exact error bodies.

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: any;
  at: number;
}

export type FaultKind = 'unauthorized' | 'not_found' | 'rate_limited' | 'server_error' | 'payment_required' | 'malformed_json' | 'hang' | 'reset';

export interface FaultOptions {
  /** How many matching requests get the fault (default 1). */
  times?: number;
  /** Which endpoint (the fake's own names); each fake has a default. */
  on?: string;
  /** For rate_limited: the Retry-After header value. */
  retryAfter?: string;
  /** For server_error: the status (default 500). */
  status?: number;
}

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** Error bodies in the provider's own format. */
export type ErrorBody = (kind: Exclude<FaultKind, 'malformed_json' | 'hang' | 'reset'>, status: number) => unknown;

export interface Route {
  name: string;
  method: string;
  pattern: RegExp;
  handle: (req: RecordedRequest, params: string[]) => Reply | Promise<Reply>;
}

export interface FakeHttp {
  baseUrl: string;
  server: Server;
  requests: RecordedRequest[];
  inject(kind: FaultKind, opts: FaultOptions & { on: string }): void;
  setLatency(ms: number, on?: string): void;
  nextRequest(filter?: (r: RecordedRequest) => boolean): Promise<RecordedRequest>;
  delay(ms: number): Promise<void>;
  close(): Promise<void>;
}

export async function startFakeHttp(opts: {
  routes: Route[];
  /** Returns an error reply when the request is not authorised, null when it is. */
  auth: (req: RecordedRequest) => Reply | null;
  errorBody: ErrorBody;
  /** Handles an upgrade (websocket) on the same server. */
  onServer?: (server: Server) => void;
}): Promise<FakeHttp> {
  const requests: RecordedRequest[] = [];
  const faults: { kind: FaultKind; left: number; opts: FaultOptions & { on: string } }[] = [];
  const latency = new Map<string, number>();
  const timers = new Set<NodeJS.Timeout>();
  const waiters: { filter: (r: RecordedRequest) => boolean; resolve: (r: RecordedRequest) => void }[] = [];
  const hung = new Set<ServerResponse>();

  const delay = (ms: number) =>
    new Promise<void>((resolve) => {
      if (ms <= 0) return resolve();
      const t = setTimeout(() => {
        timers.delete(t);
        resolve();
      }, ms);
      timers.add(t);
    });

  const send = (res: ServerResponse, r: Reply) => {
    if (res.destroyed || res.headersSent) return;
    if (r.body === undefined) {
      res.writeHead(r.status, r.headers ?? {});
      return res.end();
    }
    res.writeHead(r.status, { 'content-type': 'application/json', ...r.headers });
    res.end(typeof r.body === 'string' ? r.body : JSON.stringify(r.body));
  };

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    let body: unknown = null;
    if (raw) {
      try {
        body = JSON.parse(raw);
      } catch {
        body = raw;
      }
    }
    const rec: RecordedRequest = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, body, at: Date.now() };
    requests.push(rec);
    for (const w of [...waiters]) {
      if (w.filter(rec)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(rec);
      }
    }

    let route: Route | undefined;
    let params: string[] = [];
    for (const r of opts.routes) {
      const m = r.method === rec.method ? r.pattern.exec(rec.path) : null;
      if (m) {
        route = r;
        params = m.slice(1).map(decodeURIComponent);
        break;
      }
    }
    if (!route) return send(res, { status: 404, body: opts.errorBody('not_found', 404) });
    const denied = opts.auth(rec);
    if (denied) return send(res, denied);

    const i = faults.findIndex((f) => f.opts.on === route!.name || f.opts.on === 'any');
    if (i >= 0) {
      const f = faults[i];
      if (--f.left <= 0) faults.splice(i, 1);
      switch (f.kind) {
        case 'hang':
          hung.add(res);
          return;
        case 'reset':
          return req.socket.destroy();
        case 'malformed_json':
          return send(res, { status: 200, body: '{"id":"broken","output":[' });
        case 'rate_limited':
          return send(res, { status: 429, body: opts.errorBody('rate_limited', 429), headers: f.opts.retryAfter === undefined ? {} : { 'retry-after': f.opts.retryAfter } });
        default: {
          const status = f.kind === 'server_error' ? f.opts.status ?? 500 : f.kind === 'unauthorized' ? 401 : f.kind === 'not_found' ? 404 : 402;
          return send(res, { status, body: opts.errorBody(f.kind, status) });
        }
      }
    }
    await delay(latency.get(route.name) ?? latency.get('any') ?? 0);
    send(res, await route.handle(rec, params));
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => send(res, { status: 500, body: { message: `fake server error: ${err instanceof Error ? err.message : String(err)}` } }));
  });
  opts.onServer?.(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    server,
    requests,
    inject: (kind, fo) => {
      faults.push({ kind, left: fo.times ?? 1, opts: fo });
    },
    setLatency: (ms, on = 'any') => {
      latency.set(on, ms);
    },
    nextRequest: (filter = () => true) => new Promise((resolve) => waiters.push({ filter, resolve })),
    delay,
    close: () =>
      new Promise<void>((resolve) => {
        timers.forEach(clearTimeout);
        timers.clear();
        hung.forEach((r) => r.destroy());
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const bearer = (req: RecordedRequest): string | null => {
  const h = req.headers.authorization;
  return typeof h === 'string' && /^Bearer /.test(h) ? h.slice(7) : null;
};

let counter = 0;
export const fakeId = (prefix: string) => `${prefix}${Date.now().toString(36)}${(++counter).toString(36).padStart(4, '0')}`;
