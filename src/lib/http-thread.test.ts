import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { nodeHttpFetch } from './http.js';
import { threadFetch, WireMeter } from './http-thread.js';

const busy = (ms: number) => { const end = performance.now() + ms; while (performance.now() < end); };
const AGENT_MS = 200;

// The agent must not share the thread we block: it runs in a worker thread of its own and answers after AGENT_MS.
const AGENT = `
const http = require('node:http');
const { parentPort } = require('node:worker_threads');
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => setTimeout(() => { res.writeHead(200, { 'content-type': 'application/json', 'x-agent': 'fake' }); res.end(JSON.stringify({ ok: true })); }, ${AGENT_MS}));
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
`;

let agent: Worker;
let url = '';
beforeAll(async () => {
  agent = new Worker(AGENT, { eval: true });
  const port = await new Promise<number>((resolve) => agent.once('message', resolve));
  url = `http://127.0.0.1:${port}/v1/chat`;
});
afterAll(() => agent.terminate());

async function blockedWhileInFlight(fetchImpl: typeof nodeHttpFetch) {
  const meter = new WireMeter(fetchImpl);
  const t0 = performance.now();
  const pending = meter.fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"q":1}' });
  await new Promise((r) => setImmediate(r)); // let the request leave
  busy(500); // our own load: the main thread is blocked well past the agent's answer
  const res = await pending;
  const seen = performance.now() - t0;
  return { res, seen, timing: meter.take() };
}

describe('agent requests timed on the timing thread', () => {
  it('reports the agent\'s delay while the main thread is blocked, and says how much of what we saw was ours', async () => {
    await threadFetch(url, { method: 'POST', body: '{}' }); // warm the thread and its connection
    const { res, seen, timing } = await blockedWhileInFlight(threadFetch);
    expect(res.status).toBe(200);
    expect(res.headers.get('X-Agent')).toBe('fake');
    expect(JSON.parse(await res.text())).toEqual({ ok: true });
    expect(seen).toBeGreaterThanOrEqual(500);
    const agentTime = seen - timing!.overhead_ms;
    expect(agentTime).toBeGreaterThanOrEqual(AGENT_MS - 1);
    expect(agentTime).toBeLessThan(AGENT_MS + 30);
    expect(timing!.lag_ms).toBeLessThan(30); // the timing thread itself was free
  });

  it('on the main thread, the same exchange is reported as our load (what the thread avoids) and carries no wire timing', async () => {
    const { res, seen, timing } = await blockedWhileInFlight(nodeHttpFetch);
    expect(res.status).toBe(200);
    expect(seen).toBeGreaterThanOrEqual(500);
    expect(timing).toBeNull();
  });

  it('rejects with the signal\'s reason on abort, and as "fetch failed" with the socket\'s code when nothing listens', async () => {
    const ctl = new AbortController();
    const p = threadFetch(url, { method: 'POST', body: '{}', signal: ctl.signal });
    setTimeout(() => ctl.abort(new Error('stop')), 20);
    await expect(p).rejects.toThrow('stop');
    const err = await threadFetch('http://127.0.0.1:1/x', {}).catch((e) => e);
    expect(err).toBeInstanceOf(TypeError);
    expect(err.message).toBe('fetch failed');
    expect(err.cause.code).toBe('ECONNREFUSED');
    // the thread still answers after both
    expect((await threadFetch(url, { method: 'POST', body: '{}' })).status).toBe(200);
  });

  it('sends the requests of one event-loop turn to the thread in one message, and each still gets its own answer', async () => {
    await threadFetch(url, { method: 'POST', body: '{}' }); // the thread is up
    const post = vi.spyOn(Worker.prototype, 'postMessage');
    try {
      const ctl = new AbortController();
      const burst = Array.from({ length: 20 }, (_, i) => threadFetch(`${url}?i=${i}`, { method: 'POST', body: JSON.stringify({ i }) }));
      const dropped = threadFetch(url, { method: 'POST', body: '{}', signal: ctl.signal });
      const droppedSeen = expect(dropped).rejects.toThrow('stop');
      ctl.abort(new Error('stop')); // aborted in the same turn: its request and its abort go together, and it never leaves
      const answers = await Promise.all(burst);
      await droppedSeen;
      expect(answers.map((r) => r.status)).toEqual(Array(20).fill(200));
      expect(answers.every((r) => r.wire !== undefined && r.wire.ms >= AGENT_MS - 1)).toBe(true);
      expect(post).toHaveBeenCalledTimes(1);
    } finally {
      post.mockRestore();
    }
  });
});
