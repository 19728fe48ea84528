/**
 * The OpenAPI document lists what the service really answers. For each operation of the document, the
 * requests that produce its error statuses (400 for a bad query and for a body that is not JSON, 401, 403 for a
 * cookie session without the CSRF header, 404 for an unknown path id, 405 for a path id of "", "." or "..",
 * 413, 429 and — over a real socket — 431) are sent; each answer's status must be listed in the operation's
 * `responses` and its body must match the schema documented for that status.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../harness.js';
import { exchange, request } from '../http/raw-socket.js';
import { documentChecker } from './documented.js';
import { createFixtures, enumerateOperations, envelopeProblems, localAdapters, openApiDocument, urlOf, type Fixtures, type Operation } from './routes.js';

const DOC = await openApiDocument();
const OPS = await enumerateOperations();
const check = documentChecker(DOC);
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

type Res = { status: number; body: any; headers: Record<string, any> };

describe('every status an operation answers is documented', () => {
  let t: TestContext;
  let own: Fixtures;
  let port: number;
  beforeAll(async () => {
    t = await createTestContext({ config: { maxConcurrentRuns: 1000 }, adapters: localAdapters() });
    own = await createFixtures(t, t.key, 'documented');
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as { port: number }).port;
  });
  afterAll(async () => { await t.close(); });

  it('the document has operations to walk', () => {
    expect(OPS.length).toBeGreaterThan(30);
  });

  it.each(OPS)('$label', async (op: Operation) => {
    const problems: string[] = [];
    const expectAnswer = (what: string, res: Res, status: number) => {
      if (res.status !== status) problems.push(`${what}: expected ${status}, got ${res.status} ${JSON.stringify(res.body)?.slice(0, 200)}`);
      problems.push(...check.problems(op.method, op.path, res).map((p) => `${what}: ${p}`), ...envelopeProblems(res).map((p) => `${what}: ${p}`));
    };
    const query = op.spec?.query?.(own) ?? '';
    const body = () => op.spec?.body?.(own, `doc-${randomUUID().slice(0, 8)}`);
    const url = urlOf(op, own, {}, query);
    const withQuery = (extra: string) => urlOf(op, own, {}, [query, extra].filter(Boolean).join('&'));
    const credentials = op.public ? { key: null } : {};

    // 401: no key (a public operation: an unknown key in its body)
    if (op.public) {
      const cred = op.spec!.credentialField!;
      expectAnswer('unknown key', await t.call(op.method, url, { key: null, body: { ...(body() as object), [cred]: `sk_live_${'x'.repeat(40)}` } }), 401);
    } else {
      expectAnswer('no key', await t.call(op.method, url, { key: null }), 401);
    }
    // 400: a query parameter out of range, and a body that is not JSON
    expectAnswer('bad query', await t.call(op.method, withQuery('limit=abc'), { ...credentials, body: body() }), 400);
    if (BODY_METHODS.has(op.method)) {
      expectAnswer('not JSON', await t.call(op.method, url, { ...credentials, body: '{"a":' }), 400);
      // 413: a body over 1 MiB
      expectAnswer('large body', await t.call(op.method, url, { ...credentials, body: JSON.stringify({ x: 'a'.repeat(1024 * 1024) }) }), 413);
    }
    // 403: a cookie session changing data without the CSRF header
    if (!op.public && BODY_METHODS.has(op.method)) {
      expectAnswer('cookie without CSRF header', await t.call(op.method, url, { key: null, headers: { cookie: own.cookie }, body: body() }), 403);
    }
    // 404: an id in the path that names nothing
    if (op.pathParams.length > 0) {
      const ids = Object.fromEntries(op.pathParams.map((p) => [p, randomUUID()]));
      expectAnswer('unknown path id', await t.call(op.method, urlOf(op, own, ids, query), { body: body() }), 404);
    }
    // a path id given as "." or ".." (clients resolve dot segments), or an empty last one, names a shorter
    // path: whatever that answers (often 405), the document lists it
    const trailing = /\{([^}]+)\}$/.exec(op.path)?.[1];
    const dotted = [...op.pathParams.flatMap((p) => [{ [p]: '.' }, { [p]: '..' }]), ...(trailing ? [{ [trailing]: '' }] : [])];
    for (const ids of dotted) {
      const res = await t.call(op.method, urlOf(op, own, ids, query), { body: body() });
      problems.push(...check.problems(op.method, op.path, res).map((p) => `path id ${JSON.stringify(ids)}: ${p}`));
    }
    // 431: headers over the server's limit, over a real socket
    const raw = await exchange(port, [request(op.method, url, { authorization: `Bearer ${t.key}`, 'x-big': 'z'.repeat(20_000) })]);
    expectAnswer('oversized headers', { ...raw.responses[0], headers: raw.responses[0].headers }, 431);

    expect(problems).toEqual([]);
  }, 30_000);
});

describe('429 is documented wherever the per-key rate limit applies', () => {
  let t: TestContext;
  beforeAll(async () => { t = await createTestContext({ config: { rateLimitPerMinute: 1 } }); });
  afterAll(async () => { await t.close(); });

  it.each(OPS.filter((o) => !o.public))('$label', async (op: Operation) => {
    const { key } = await t.newOrg();
    const url = urlOf(op, null);
    await t.call(op.method, url, { key });
    const res = await t.call(op.method, url, { key });
    expect(res.status).toBe(429);
    expect(check.problems(op.method, op.path, res)).toEqual([]);
    expect(res.headers['retry-after']).toMatch(/^\d+$/);
  });
});
