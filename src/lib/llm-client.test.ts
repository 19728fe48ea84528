import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../test/fakes/fake-clock.js';
import { startFakeOpenAi, type FakeOpenAiServer } from '../../test/fakes/openai-agent.js';
import { createLlmClient, LlmError } from './llm-client.js';

let server: FakeOpenAiServer;
let clock: FakeClock;
const signal = new AbortController().signal;
const msgs = [{ role: 'user' as const, content: 'hello' }];

beforeEach(async () => {
  server = await startFakeOpenAi();
  clock = new FakeClock();
});
afterEach(() => server.close());

const client = (apiKey: string | null = 'sk-test') => createLlmClient({ baseUrl: server.baseUrl, apiKey, clock });

describe('llm client', () => {
  it('sends the request in the wire format and returns content, usage and finish_reason', async () => {
    const res = await client().chat({ model: 'm1', messages: msgs, temperature: 0.2, max_completion_tokens: 50, signal });
    expect(res.content).toBe('You said: hello');
    expect(res.finish_reason).toBe('stop');
    expect(res.usage?.prompt_tokens).toBeGreaterThan(0);
    expect(res.tool_calls).toEqual([]);
    const [req] = server.chatRequests();
    expect(req.headers.authorization).toBe('Bearer sk-test');
    expect(req.body).toMatchObject({ model: 'm1', messages: msgs, temperature: 0.2, max_completion_tokens: 50 });
    expect(req.body).not.toHaveProperty('tools');
  });

  it('returns tool calls with their arguments as JSON strings', async () => {
    server.setReply(() => ({ tool_calls: [{ id: 'call_1', name: 'lookup', arguments: { id: 7 } }] }));
    const res = await client().chat({ model: 'm', messages: msgs, signal });
    expect(res.content).toBeNull();
    expect(res.finish_reason).toBe('tool_calls');
    expect(res.tool_calls).toEqual([{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"id":7}' } }]);
  });

  it('parses the error body and does not retry 401', async () => {
    const err = await client('sk-wrong').chat({ model: 'm', messages: msgs, signal }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmError);
    expect(err).toMatchObject({ status: 401, kind: 'invalid_credentials', code: 'invalid_api_key' });
    expect((err as Error).message).toMatch(/^401 Incorrect API key provided/);
    expect(server.chatRequests()).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
  });

  it('retries 429 on the schedule, honouring Retry-After', async () => {
    server.inject('rate_limited', { retryAfter: '5' });
    server.inject('rate_limited');
    const res = await client().chat({ model: 'm', messages: msgs, signal });
    expect(res.content).toBe('You said: hello');
    expect(clock.sleeps).toEqual([5000, 4000]);
    expect(server.chatRequests()).toHaveLength(3);
  });

  it('gives up after three retries of 500 with the provider message', async () => {
    server.inject('server_error', { times: Infinity });
    const err = await client().chat({ model: 'm', messages: msgs, signal }).catch((e: unknown) => e);
    expect((err as Error).message).toBe('500 The server had an error while processing your request. Sorry about that!');
    expect(clock.sleeps).toEqual([2000, 4000, 8000]);
    expect(server.chatRequests()).toHaveLength(4);
  });

  it('does not retry insufficient_quota', async () => {
    server.inject('insufficient_quota');
    const err = await client().chat({ model: 'm', messages: msgs, signal }).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 429, code: 'insufficient_quota' });
    expect(server.chatRequests()).toHaveLength(1);
  });

  it('retries a connection reset', async () => {
    server.inject('reset');
    const res = await client().chat({ model: 'm', messages: msgs, signal });
    expect(res.content).toBe('You said: hello');
    expect(clock.sleeps).toEqual([2000]);
  });

  it('reports malformed JSON without retrying', async () => {
    server.inject('malformed_json');
    const err = await client().chat({ model: 'm', messages: msgs, signal }).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'provider_error' });
    expect((err as Error).message).toMatch(/^malformed response \(not JSON\)/);
    expect(server.chatRequests()).toHaveLength(1);
  });

  it('rejects a well-formed body of the wrong shape', async () => {
    const bad = createLlmClient({
      baseUrl: 'http://127.0.0.1:1/v1',
      clock,
      fetch: async () => new Response(JSON.stringify({ choices: [] }), { status: 200 }),
    });
    await expect(bad.chat({ model: 'm', messages: msgs, signal })).rejects.toThrow(/^malformed response: \/choices/);
  });

  it('reports an unreachable endpoint after retrying connection refusals', async () => {
    await server.close();
    const err = await client().chat({ model: 'm', messages: msgs, signal }).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'unreachable', network: true });
    expect((err as Error).message).toMatch(/^connection failed: .*ECONNREFUSED/);
    expect(clock.sleeps).toEqual([2000, 4000, 8000]);
    server = await startFakeOpenAi();
  });

  it('aborts a hanging request when the signal fires', async () => {
    server.inject('hang');
    const ac = new AbortController();
    const started = Date.now();
    const p = client().chat({ model: 'm', messages: msgs, signal: ac.signal });
    await server.nextRequest();
    ac.abort(new Error('canceled by test'));
    await expect(p).rejects.toThrow('canceled by test');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('works over the global fetch as well as the default node:http transport', async () => {
    server.setReply(() => ({ content: 'ok', tool_calls: [] }));
    server.inject('rate_limited', { retryAfterMs: '2500' });
    const viaFetch = createLlmClient({ baseUrl: server.baseUrl, apiKey: 'sk-test', clock, fetch });
    expect((await viaFetch.chat({ model: 'm', messages: msgs, signal })).content).toBe('ok');
    expect(clock.sleeps).toEqual([2500]);
  });

  it('omits the Authorization header without an API key', async () => {
    await server.close();
    server = await startFakeOpenAi({ apiKey: null });
    await createLlmClient({ baseUrl: `${server.baseUrl}/`, clock }).chat({ model: 'm', messages: msgs, signal });
    expect(server.chatRequests()[0].headers.authorization).toBeUndefined();
  });
});
