import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A webhook endpoint on 127.0.0.1. Each request takes the next behavior scripted for its path (then `fallback`):
 * a status code, `timeout` (never answers), `reset` (drops the connection), or `redirect` (301 to a
 * path on itself, to prove redirects are not followed).
 */
export type Behavior = number | 'timeout' | 'reset' | 'redirect';

export interface ReceivedHook {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedHook[];
  /** Requests received, optionally only those of one path. */
  count(path?: string): number;
  script(path: string, ...behaviors: Behavior[]): void;
  /** What requests get once their script is used up: for every path, or for one. */
  setFallback(b: Behavior, path?: string): void;
  waitFor(n: number, timeoutMs?: number, path?: string): Promise<ReceivedHook[]>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(opts: { fallback?: Behavior; responseBody?: string } = {}): Promise<WebhookReceiver> {
  const scripts = new Map<string, Behavior[]>();
  let fallback: Behavior = opts.fallback ?? 200;
  const pathFallback = new Map<string, Behavior>();
  const received: ReceivedHook[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      const b = scripts.get(req.url ?? '/')?.shift() ?? pathFallback.get(req.url ?? '/') ?? fallback;
      if (b === 'timeout') return;
      if (b === 'reset') { req.socket.destroy(); return; }
      if (b === 'redirect') { res.writeHead(301, { location: '/moved' }).end(); return; }
      res.writeHead(b, { 'content-type': 'text/plain' }).end(opts.responseBody ?? `status ${b}`);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const count = (path?: string) => received.filter((r) => path === undefined || r.path === path).length;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    count,
    script: (path, ...b) => { scripts.set(path, [...(scripts.get(path) ?? []), ...b]); },
    setFallback: (b, path) => { if (path === undefined) fallback = b; else pathFallback.set(path, b); },
    async waitFor(n, timeoutMs = 10_000, path) {
      const deadline = Date.now() + timeoutMs;
      while (count(path) < n) {
        if (Date.now() > deadline) throw new Error(`receiver got ${count(path)} of ${n} requests`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return received.filter((r) => path === undefined || r.path === path);
    },
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}
