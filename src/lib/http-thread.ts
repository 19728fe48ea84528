import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import type { HttpFetch } from './http.js';

// Agent requests sent and timed on a thread of their own. The main thread runs the database (PGlite is
// in-process), grading, JSON of transcripts and logging; at a thousand conversations its event loop runs
// hundreds of milliseconds late, and a reply timed there is late by as much. This thread does nothing but
// write requests and read responses, so the time it takes between the two is the agent's, within its own
// (small, measured) lag. The main thread learns how long the exchange took on the wire and how late it
// heard of it, and subtracts the difference (see WireMeter).

/** How a request went on the timing thread: its duration there and the thread's worst lag meanwhile. */
export interface WireTiming {
  /** From the request leaving on a connected socket to the last byte of the response, on the timing thread. */
  ms: number;
  /** The timing thread's largest event-loop lag while the request was in flight: the uncertainty of `ms`. */
  lagMs: number;
}

type ThreadResponse = Awaited<ReturnType<HttpFetch>> & { wire?: WireTiming };
/** A fetch whose answers may say how they were timed on the wire. */
export type TimedFetch = (...args: Parameters<HttpFetch>) => Promise<ThreadResponse>;

type Reply =
  | { id: number; status: number; statusText: string; headers: Record<string, string>; text: string; ms: number; lagMs: number }
  | { id: number; error: { message: string; code?: string } };

/**
 * The thread's whole program. It is shipped as source (`eval`), which works the same from dist/, tsx and
 * vitest; so it is plain JavaScript in spirit: no imports, no helpers from this module, `require` only.
 */
function threadMain() {
  const { parentPort } = require('node:worker_threads');
  const http = require('node:http');
  const https = require('node:https');
  const { performance: perf } = require('node:perf_hooks');
  // Scheduled ahead of the rest of the machine where the OS lets us (Linux, CAP_SYS_NICE): on busy cores a
  // thread that is runnable but not running cannot read an answer either, and this one needs little CPU.
  // Without the privilege it keeps the default priority.
  try {
    const tid = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop());
    if (tid > 0) require('node:os').setPriority(tid, -10);
  } catch {
    // not Linux, or not allowed
  }
  const agents: Record<string, unknown> = { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) };
  const inFlight = new Map<number, { destroy(): void }>();

  // The thread's own lag: the drift of a 10 ms tick, kept as a max per 100 ms bucket for the last 60 s.
  const BUCKET = 100;
  const SLOTS = 600;
  const lags = new Float64Array(SLOTS);
  const epochs = new Float64Array(SLOTS).fill(-1);
  let last = perf.now();
  let maxEver = 0;
  const tick = setInterval(() => {
    const now = perf.now();
    const lag = Math.max(0, now - last - 10);
    last = now;
    if (lag > maxEver) maxEver = lag;
    const b = Math.floor(now / BUCKET);
    const i = b % SLOTS;
    if (epochs[i] !== b) { epochs[i] = b; lags[i] = lag; } else if (lag > lags[i]) lags[i] = lag;
  }, 10);
  tick.unref();
  const maxLag = (from: number, to: number) => {
    let m = Math.max(0, perf.now() - last - 10);
    const first = Math.floor(from / BUCKET);
    const end = Math.floor(to / BUCKET) + 1;
    if (end - first >= SLOTS) return Math.max(m, maxEver);
    for (let b = first; b <= end; b++) { const i = b % SLOTS; if (epochs[i] === b && lags[i] > m) m = lags[i]; }
    return m;
  };

  // Requests come in bursts (a thousand conversations' turns at once) and all of a port's messages are handled
  // in one go: sent in one go too, they would hold this loop for a few hundred ms while answers to earlier
  // requests wait, unread and untimed. They wait in a queue instead and leave a slice at a time, so the answers
  // (read between slices) are timed as they arrive; a request's clock starts only when it leaves.
  const SLICE = 16;
  const queue: any[] = [];
  let draining = false;
  const drain = () => {
    for (let k = 0; k < SLICE && queue.length > 0; k++) send(queue.shift());
    if (queue.length > 0) setImmediate(drain);
    else draining = false;
  };
  const aborted = new Set<number>();

  parentPort.on('message', (msg: any) => {
    if (msg.op === 'batch') {
      for (const m of msg.msgs) take(m);
      return;
    }
    take(msg);
  });

  function take(msg: any) {
    if (msg.op === 'abort') {
      const req = inFlight.get(msg.id);
      if (req) req.destroy();
      else aborted.add(msg.id); // still queued: it never leaves
      inFlight.delete(msg.id);
      return;
    }
    queue.push(msg);
    if (!draining) {
      draining = true;
      setImmediate(drain);
    }
  }

  function send(msg: any) {
    const { id, url, method, headers, body } = msg;
    if (aborted.delete(id)) return;
    let done = false;
    const answer = (reply: unknown) => {
      if (done) return;
      done = true;
      inFlight.delete(id);
      parentPort.postMessage(reply);
    };
    const fail = (err: any) => answer({ id, error: { message: String(err?.message ?? err), code: err?.code } });
    try {
      const u = new URL(url);
      const proto = u.protocol === 'https:' ? 'https:' : 'http:';
      const h = body === undefined ? { ...headers } : { ...headers, 'content-length': String(Buffer.byteLength(body)) };
      let t0 = 0;
      const req = (proto === 'https:' ? https : http).request(u, { method: method ?? 'GET', headers: h, agent: agents[proto] }, (res: any) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', fail);
        res.on('close', () => fail(Object.assign(new Error('response closed before its end'), { code: 'ECONNRESET' })));
        res.on('end', () => {
          const t1 = perf.now();
          const out: Record<string, string> = {};
          for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : String(v);
          answer({ id, status: res.statusCode ?? 0, statusText: res.statusMessage ?? '', headers: out, text: Buffer.concat(chunks).toString('utf8'), ms: t1 - t0, lagMs: maxLag(t0, t1) });
        });
      });
      req.on('error', fail);
      // The clock starts when the request can leave: on a pooled connection at once, on a new one once it is
      // connected (TLS included). Setting up a connection is ours to do, not the agent's time to answer.
      req.on('socket', (sock: any) => {
        if (!sock.connecting) t0 = perf.now();
        else sock.once(proto === 'https:' ? 'secureConnect' : 'connect', () => { t0 = perf.now(); });
      });
      inFlight.set(id, req);
      t0 = perf.now();
      req.end(body);
    } catch (err) {
      fail(err);
    }
  }
}

/** One timing thread per process, started on first use; it keeps the process alive only while requests are out. */
class TimingThread {
  private worker: Worker | null = null;
  private seq = 0;
  private readonly pending = new Map<number, { resolve: (r: Reply) => void; reject: (e: unknown) => void }>();
  /** Messages for the thread, posted together once this turn of the event loop is done (see post()). */
  private outbox: Array<{ w: Worker; msg: Record<string, unknown> }> = [];
  /** Largest lag the timing thread reported, and the one with its latest answer (exported by /metrics). */
  maxLagMs = 0;
  lastLagMs = 0;

  private start(): Worker {
    // tsx keeps function names with a `__name` helper the thread does not have: a no-op one stands in.
    const w = new Worker(`const __name = (f) => f; (${threadMain.toString()})()`, { eval: true });
    w.on('message', (r: Reply) => {
      const p = this.pending.get(r.id);
      if (!p) return;
      this.pending.delete(r.id);
      if (this.pending.size === 0) w.unref();
      p.resolve(r);
    });
    w.on('error', (err) => this.crashed(err));
    w.on('exit', (code) => this.crashed(new Error(`timing thread exited (${code})`)));
    w.unref();
    this.worker = w;
    return w;
  }

  /**
   * Every message wakes the thread (at nice −10 it may take the core from this one at once): in the profile of a
   * burst (a thousand conversations' turns) posting one message per request was 5–7 % of the main thread's
   * time, though a post alone costs microseconds. The messages of one turn of the event loop go as one. The
   * wait costs the agent's timing nothing: its clock starts on the thread, when the request leaves.
   */
  private post(w: Worker, msg: Record<string, unknown>) {
    this.outbox.push({ w, msg });
    if (this.outbox.length > 1) return;
    setImmediate(() => {
      const out = this.outbox;
      this.outbox = [];
      // a thread that died meanwhile is not written to: crashed() already failed what it held
      const msgs = out.filter((o) => o.w === this.worker).map((o) => o.msg);
      if (msgs.length > 0) this.worker!.postMessage(msgs.length === 1 ? msgs[0] : { op: 'batch', msgs });
    });
  }

  /** A dead thread fails what it held as network errors (retried like any); the next request starts a new one. */
  private crashed(err: unknown) {
    this.worker = null;
    const held = [...this.pending.values()];
    this.pending.clear();
    for (const p of held) p.reject(new TypeError('fetch failed', { cause: err }));
  }

  request(msg: { url: string; method?: string; headers?: Record<string, string>; body?: string }, signal?: AbortSignal): Promise<Reply> {
    const w = this.worker ?? this.start();
    const id = ++this.seq;
    return new Promise<Reply>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = () => {
        if (!this.pending.delete(id)) return;
        if (this.pending.size === 0) w.unref();
        this.post(w, { op: 'abort', id });
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.pending.set(id, {
        resolve: (r) => { signal?.removeEventListener('abort', onAbort); resolve(r); },
        reject: (e) => { signal?.removeEventListener('abort', onAbort); reject(e); },
      });
      w.ref();
      this.post(w, { op: 'req', id, ...msg });
    });
  }

  async stop() {
    const w = this.worker;
    this.worker = null;
    if (w) await w.terminate();
  }
}

export const timingThread = new TimingThread();

/** The HttpFetch of lib/http.ts, sent and timed on the timing thread. */
export const threadFetch: TimedFetch = async (url, init) => {
  const r = await timingThread.request({ url, method: init.method, headers: init.headers, body: init.body }, init.signal);
  if ('error' in r) {
    throw new TypeError('fetch failed', { cause: Object.assign(new Error(r.error.message), r.error.code ? { code: r.error.code } : {}) });
  }
  timingThread.lastLagMs = r.lagMs;
  if (r.lagMs > timingThread.maxLagMs) timingThread.maxLagMs = r.lagMs;
  const headers = r.headers;
  return {
    ok: r.status >= 200 && r.status < 300,
    status: r.status,
    statusText: r.statusText,
    headers: { get: (name) => headers[name.toLowerCase()] ?? null },
    text: async () => r.text,
    wire: { ms: r.ms, lagMs: r.lagMs },
  };
};

/**
 * Wraps a fetch for one session and keeps, per agent turn, how much of the time the caller saw was ours:
 * for each request timed on the wire, (time from handing it over to hearing the answer) − (its time on the
 * wire). A turn's latency minus that overhead is the agent's time, retries and back-off included, our
 * event-loop lag excluded. Requests without wire timing (another transport) make the turn unmeasured.
 */
export class WireMeter {
  private overheadMs = 0;
  private lagMs = 0;
  private requests = 0;
  private untimed = 0;

  constructor(private readonly inner: TimedFetch) {}

  readonly fetch: HttpFetch = async (url, init) => {
    const t0 = performance.now();
    const res = await this.inner(url, init);
    const seen = performance.now() - t0;
    this.requests++;
    if (res.wire) {
      this.overheadMs += Math.max(0, seen - res.wire.ms);
      this.lagMs = Math.max(this.lagMs, res.wire.lagMs);
    } else this.untimed++;
    return res;
  };

  /** Stamps a reply with the timing of its turn's requests (nothing when they were not all timed on the wire). */
  stamp<R extends object>(reply: R): R & { timing?: { overhead_ms: number; lag_ms: number } } {
    const t = this.take();
    return t ? { ...reply, timing: t } : reply;
  }

  /** What the requests since the last take() say about their timing; null when any was not timed on the wire. */
  take(): { overhead_ms: number; lag_ms: number } | null {
    const out = this.requests > 0 && this.untimed === 0 ? { overhead_ms: this.overheadMs, lag_ms: this.lagMs } : null;
    this.overheadMs = 0;
    this.lagMs = 0;
    this.requests = 0;
    this.untimed = 0;
    return out;
  }
}
