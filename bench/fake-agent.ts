// The benchmark's agent under test, in a process of its own: an OpenAI Chat Completions endpoint that answers
// after exactly AGENT_MS. It also keeps what each answer really took on its side (request received → response
// written, as late as its own timers fired), so the benchmark compares the latency Rehearsal reports with the
// truth, not with the nominal 300 ms. GET /stats answers {n, p50, p95} of those durations and its own largest lag, and starts afresh.
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { AddressInfo } from 'node:net';

const agentMs = Number(process.env.AGENT_MS ?? 300);
const REPLY = 'Certainly, you are booked for Tuesday at nine.';
let took: number[] = [];
let seq = 0;
// Its own event-loop lag: a request that arrives while the loop is busy waits unread, and that wait is part of
// what a client sees but not of `took` (which starts when the request is parsed).
let lagMax = 0;
let last = performance.now();
setInterval(() => { const now = performance.now(); lagMax = Math.max(lagMax, now - last - 10); last = now; }, 10).unref();

const pct = (s: number[], p: number) => (s.length ? s[Math.min(s.length - 1, Math.floor(p * (s.length - 1) + 0.5))] : null);

const server = createServer((req, res) => {
  const t0 = performance.now();
  if (req.method === 'GET' && req.url === '/stats') {
    const s = [...took].sort((a, b) => a - b);
    took = [];
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ n: s.length, p50: pct(s, 0.5), p95: pct(s, 0.95), lag_max: Math.round(lagMax) }));
    lagMax = 0;
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    setTimeout(() => {
      const out = JSON.stringify({
        id: `chatcmpl-${++seq}`, object: 'chat.completion', created: Math.floor(Date.now() / 1000), model: body.model ?? 'desk',
        choices: [{ index: 0, message: { role: 'assistant', content: REPLY, refusal: null }, finish_reason: 'stop', logprobs: null }],
        usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
      });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(out);
      took.push(performance.now() - t0);
    }, agentMs);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(JSON.stringify({ agentUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` }) + '\n');
});
process.on('SIGTERM', () => { server.close(); process.exit(0); });
