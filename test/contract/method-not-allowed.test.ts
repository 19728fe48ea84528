/**
 * Every documented path answers a method it does not serve with 405 METHOD_NOT_ALLOWED and an Allow header
 * naming exactly the methods the document lists for it (HEAD wherever GET is), whatever the method.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../harness.js';
import { enumerateOperations, envelopeProblems, urlOf } from './routes.js';

const OPS = await enumerateOperations();
const ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
// standard ones, and ones Fastify's router has no tree for at all
const CANDIDATES = ['OPTIONS', 'PROPFIND', 'PUT', 'PATCH', 'DELETE', 'POST', 'GET', 'HEAD', 'TRACE', 'LOCK'];

interface PathCase { path: string; url: string; allow: string; method: string }
const CASES: PathCase[] = [...new Set(OPS.map((o) => o.path))].sort().map((path, i) => {
  const served = new Set(OPS.filter((o) => o.path === path).map((o) => o.method));
  if (served.has('GET')) served.add('HEAD');
  // a different unserved method per path, so that all of them get tried across the paths
  const rotated = [...CANDIDATES.slice(i % CANDIDATES.length), ...CANDIDATES.slice(0, i % CANDIDATES.length)];
  const method = rotated.find((m) => !served.has(m))!;
  const op = OPS.find((o) => o.path === path)!;
  return { path, url: urlOf(op, null), allow: ORDER.filter((m) => served.has(m)).join(', '), method };
});

describe('405 for a method a known path does not serve', () => {
  let t: TestContext;
  beforeAll(async () => { t = await createTestContext(); });
  afterAll(async () => { await t.close(); });

  it('covers every documented path', () => {
    expect(CASES.length).toBeGreaterThan(20);
    expect(new Set(CASES.map((c) => c.method)).size).toBeGreaterThanOrEqual(6);
  });

  it.each(CASES)('$method $path → 405, Allow: $allow', async ({ url, method, allow }) => {
    const res = await t.call(method, url);
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe(allow);
    if (method !== 'HEAD') {
      expect(envelopeProblems(res)).toEqual([]);
      expect(res.body.code).toBe('METHOD_NOT_ALLOWED');
    }
    // authentication still comes first
    expect((await t.call(method, url, { key: null })).status).toBe(401);
  });

  it('OPTIONS and PROPFIND on one path, HEAD where only POST is served; unknown paths stay 404', async () => {
    for (const method of ['OPTIONS', 'PROPFIND', 'MKCOL', 'SEARCH']) {
      const res = await t.call(method, '/api/v1/runs');
      expect(res.status, method).toBe(405);
      expect(res.body.code).toBe('METHOD_NOT_ALLOWED');
      expect(res.headers.allow).toBe('GET, HEAD, POST');
    }
    const head = await t.call('HEAD', '/api/v1/runs/00000000-0000-7000-8000-000000000000/cancel');
    expect(head.status).toBe(405);
    expect(head.headers.allow).toBe('POST');
    expect((await t.call('GET', '/api/v1/runs/')).status).toBe(200);
    const unknown = await t.call('OPTIONS', '/api/v1/nothing-here');
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('NOT_FOUND');
  });
});
