import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../harness.js';

describe('the one error envelope at the HTTP edge', () => {
  let t: TestContext;
  beforeAll(async () => { t = await createTestContext(); });
  afterAll(async () => { await t.close(); });

  it('every response carries x-request-id', async () => {
    const ok = await t.call('GET', '/api/v1/agents');
    const bad = await t.call('GET', '/api/v1/agents', { key: null });
    expect(ok.headers['x-request-id']).toMatch(/[0-9a-f-]{36}/);
    expect(bad.headers['x-request-id']).toMatch(/[0-9a-f-]{36}/);
  });

  it('malformed JSON → 400 INVALID_JSON', async () => {
    expectError(await t.call('POST', '/api/v1/agents', { body: '{"name": ' }), 400, 'INVALID_JSON');
  });

  it('a body that is not an object → 400 INVALID_JSON', async () => {
    expectError(await t.call('POST', '/api/v1/agents', { body: '[1,2]' }), 400, 'INVALID_JSON');
    expectError(await t.call('POST', '/api/v1/agents', { body: '"text"' }), 400, 'INVALID_JSON');
    expectError(await t.call('POST', '/api/v1/agents', { body: 'null' }), 400, 'INVALID_JSON');
  });

  it('prototype pollution attempts are refused', async () => {
    expectError(await t.call('POST', '/api/v1/agents', { body: '{"__proto__": {"x": 1}, "name": "a"}' }), 400, 'INVALID_JSON');
  });

  it('a non-JSON content type → 400 INVALID_JSON', async () => {
    expectError(await t.call('POST', '/api/v1/agents', { body: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 400, 'INVALID_JSON');
  });

  it('a body over 1 MiB → 413 PAYLOAD_TOO_LARGE', async () => {
    const big = JSON.stringify({ provider: 'provider_4', name: 'x', description: 'a'.repeat(1024 * 1024 + 10), config: {} });
    expectError(await t.call('POST', '/api/v1/agents', { body: big }), 413, 'PAYLOAD_TOO_LARGE');
  });

  it('unknown paths → 404 NOT_FOUND; known path with a wrong method → 405', async () => {
    expectError(await t.call('GET', '/api/v1/nothing-here'), 404, 'NOT_FOUND');
    const res = await t.call('PATCH', '/api/v1/agents');
    expectError(res, 405, 'METHOD_NOT_ALLOWED');
    expect(res.headers.allow).toContain('GET');
    expectError(await t.call('DELETE', '/api/v1/runs'), 405, 'METHOD_NOT_ALLOWED');
  });

  it('the OpenAPI document is generated from the route schemas', async () => {
    const res = await t.call('GET', '/api/v1/openapi.json', { key: null });
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    for (const p of ['/api/v1/runs', '/api/v1/runs/{id}/results', '/api/v1/agents/{id}/validate', '/api/v1/scenario-runs', '/api/v1/api-keys']) {
      expect(Object.keys(res.body.paths)).toContain(p);
    }
    expect(res.body.paths['/api/v1/runs'].post.requestBody.content['application/json'].schema.required).toEqual(['agent_id']);
  });

  it('serves interactive docs at /docs', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('swagger');
  });
});
