import http from 'node:http';
import https from 'node:https';

// The outbound HTTP transport shared by the LLM client and the provider adapters, with the failure kinds
// their callers act on.

/** What a caller does with a failed request: fail the run fast, retry, or report the far side's error. */
export type FailureKind =
  | 'invalid_credentials'
  | 'not_found'
  | 'unreachable'
  | 'timeout'
  | 'provider_error'
  | 'rate_limited';

/** Maps an HTTP status to the error kind a caller acts on (401/403 → fail the run fast). */
export function kindForStatus(status: number): FailureKind {
  if (status === 401 || status === 403) return 'invalid_credentials';
  if (status === 404) return 'not_found';
  if (status === 408) return 'timeout';
  if (status === 429) return 'rate_limited';
  return 'provider_error';
}

/** Error bodies are quoted, not dumped: the first 200 characters are enough to recognise one. */
export const snippet = (s: string) => (s.length > 200 ? `${s.slice(0, 200)}…` : s);

/** The part of fetch the HTTP clients use; the global fetch satisfies it. */
export type HttpFetch = (url: string, init: { method?: string; headers?: Record<string, string>; body?: string; signal?: AbortSignal }) => Promise<{
  ok: boolean;
  status: number;
  statusText: string;
  headers: { get(name: string): string | null };
  text(): Promise<string>;
}>;

// The default transport. Measured on the performance workload (performance.md), undici's fetch costs
// ~1.1–1.6 ms CPU per request (WHATWG streams, per-request signals, GC) — the whole per-request budget —
// where node:http on keep-alive agents costs ~0.5 ms and less memory. Shared agents: one pool per process.
const agents = { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) };

export const nodeHttpFetch: HttpFetch = (url, init) =>
  new Promise((resolve, reject) => {
    const signal = init.signal;
    if (signal?.aborted) return reject(signal.reason);
    const u = new URL(url);
    const proto = u.protocol === 'https:' ? 'https:' : 'http:';
    const body = init.body;
    const headers = body === undefined ? { ...init.headers } : { ...init.headers, 'content-length': String(Buffer.byteLength(body)) };
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      fn();
    };
    const req = (proto === 'https:' ? https : http).request(u, { method: init.method ?? 'GET', headers, agent: agents[proto] }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', (err) => settle(() => reject(new TypeError('fetch failed', { cause: err }))));
      // 'end' comes before 'close' on a complete body, so this only fires for a response cut short.
      res.on('close', () => settle(() => reject(new TypeError('fetch failed', { cause: Object.assign(new Error('response closed before its end'), { code: 'ECONNRESET' }) }))));
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        const text = Buffer.concat(chunks).toString('utf8');
        settle(() =>
          resolve({
            ok: status >= 200 && status < 300,
            status,
            statusText: res.statusMessage ?? '',
            headers: { get: (name) => { const v = res.headers[name.toLowerCase()]; return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v; } },
            text: async () => text,
          }),
        );
      });
    });
    // Like fetch: an abort rejects with the signal's reason, whatever the socket reports.
    const onAbort = () => settle(() => {
      req.destroy();
      reject(signal!.reason);
    });
    signal?.addEventListener('abort', onAbort, { once: true });
    req.on('error', (err) => settle(() => reject(new TypeError('fetch failed', { cause: err }))));
    req.end(body);
  });
