import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../harness.js';
import { envelopeProblems } from '../contract/routes.js';
import { exchange, request, type RawResponse } from './raw-socket.js';

// What Node's HTTP parser rejects never reaches Fastify's router: these go over a real socket.

function expectRejected(res: RawResponse | undefined, status: number, code: string) {
  expect(res, 'an answer').toBeDefined();
  expect(envelopeProblems(res!)).toEqual([]);
  expect(res!.status).toBe(status);
  expect(res!.body.code).toBe(code);
  expect(Object.keys(res!.body).sort()).toEqual(['code', 'error']);
  expect(res!.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  expect(res!.headers.connection).toBe('close');
  expect(res!.headers['content-type']).toBe('application/json; charset=utf-8');
}

describe('requests rejected before routing answer in the envelope', () => {
  let t: TestContext;
  let port: number;
  let auth: Record<string, string>;
  beforeAll(async () => {
    t = await createTestContext();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as { port: number }).port;
    auth = { authorization: `Bearer ${t.key}` };
  });
  afterAll(async () => { await t.close(); });

  it('an unknown method → 400 BAD_REQUEST, then the connection closes', async () => {
    const { responses, closed } = await exchange(port, [request('FOO', '/api/v1/agents', auth)]);
    expect(responses).toHaveLength(1);
    expectRejected(responses[0], 400, 'BAD_REQUEST');
    expect(closed).toBe(true);
  });

  it('a malformed request line → 400 BAD_REQUEST', async () => {
    for (const line of ['GET /api/v1/agents HTTP/9.9\r\n\r\n', 'GET\r\n\r\n', 'GET /api/v1/ag ents HTTP/1.1\r\nhost: x\r\n\r\n', '\u0001\u0002 garbage\r\n\r\n']) {
      const { responses, closed } = await exchange(port, [line]);
      expectRejected(responses[0], 400, 'BAD_REQUEST');
      expect(closed).toBe(true);
    }
  });

  it('headers over the limit → 431 HEADERS_TOO_LARGE, read in full before the connection closes', async () => {
    const { responses, closed, error } = await exchange(port, [request('GET', '/api/v1/agents', { ...auth, 'x-big': 'a'.repeat(20_000) })]);
    expectRejected(responses[0], 431, 'HEADERS_TOO_LARGE');
    expect(closed).toBe(true);
    expect(error).toBeNull();
    // the same with a 40 KB URL
    const long = await exchange(port, [request('GET', `/api/v1/agents?q=${'z'.repeat(40_000)}`, auth)]);
    expectRejected(long.responses[0], 431, 'HEADERS_TOO_LARGE');
  });

  it('a keep-alive client gets the answer to its valid request first, then the rejection', async () => {
    // one after the other on the same connection
    const seq = await exchange(port, [request('GET', '/api/v1/agents', auth), request('FOO', '/api/v1/agents', auth)], { waitFor: [0, 1] });
    expect(seq.responses.map((r) => r.status)).toEqual([200, 400]);
    expect(seq.responses[0].headers.connection).toBe('keep-alive');
    expectRejected(seq.responses[1], 400, 'BAD_REQUEST');
    // pipelined: the bad request arrives while the valid ones are still being answered
    const piped = await exchange(port, [
      request('GET', '/api/v1/agents', auth) + request('GET', '/api/v1/scenarios?limit=100', auth) + request('GET', '/api/v1/agents', { ...auth, 'x-big': 'b'.repeat(20_000) }),
    ]);
    expect(piped.responses.map((r) => r.status)).toEqual([200, 200, 431]);
    expect(piped.responses[1].body.scenarios.length).toBe(piped.responses[1].body.total); // a large answer, complete
    expectRejected(piped.responses[2], 431, 'HEADERS_TOO_LARGE');
    expect(piped.closed).toBe(true);
    expect(piped.error).toBeNull();
  });

  it('a request that does not arrive in full in time → 400 BAD_REQUEST', async () => {
    // Node reports its request timeout through the same event; waiting minutes for it is no test, so the
    // server's own socket gets the error Node would emit
    const server = t.app.server;
    const accepted = new Promise<import('node:net').Socket>((resolve) => server.once('connection', resolve));
    const answer = exchange(port, ['GET /api/v1/agents HTTP/1.1\r\nhost: x\r\n']);
    const socket = await accepted;
    await new Promise((r) => setTimeout(r, 50));
    server.emit('clientError', Object.assign(new Error('Request timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }), socket);
    const { responses, closed } = await answer;
    expectRejected(responses[0], 400, 'BAD_REQUEST');
    expect(responses[0].body.error).toMatch(/in time/);
    expect(closed).toBe(true);
  });

  it('the server still serves new connections', async () => {
    const { responses } = await exchange(port, [request('GET', '/api/v1/agents', { ...auth, connection: 'close' })]);
    expect(responses[0].status).toBe(200);
  });
});
