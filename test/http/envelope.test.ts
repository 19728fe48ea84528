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

  it('text with a NUL character, or nesting deeper than 64 levels, is a field error, not a database error', async () => {
    const nul = await t.call('POST', '/api/v1/agents', { body: { provider: 'provider_4', name: 'a\u0000b', config: {} } });
    expectError(nul, 400, 'INVALID_FIELD_VALUE');
    expect(nul.body.details.field).toBe('name');
    let deep: unknown = 'x';
    for (let i = 0; i < 2000; i++) deep = { d: deep };
    expectError(await t.call('POST', '/api/v1/agents', { body: { provider: 'provider_4', name: 'n', config: { base_url: 'http://127.0.0.1:9/v1', model: 'm', tool_mocks: deep } } }), 400, 'INVALID_FIELD_VALUE');
    expectError(await t.call('GET', '/api/v1/scenarios?q=%00'), 400, 'INVALID_FIELD_VALUE');
    const lone = await t.call('POST', '/api/v1/scenarios', { body: JSON.stringify({ name: 'x', tags: [' \ud800'], criteria: [{ criterion: 'c' }] }) });
    expectError(lone, 400, 'INVALID_FIELD_VALUE');
    expect(lone.body.details.field).toBe('tags.0');
  });

  it('limit and offset are plain decimal integers below 10^9', async () => {
    for (const q of ['offset=99999999999999999999', 'offset=1e20', 'limit=0x10', 'limit=%2B5', 'offset=-1']) {
      expectError(await t.call('GET', `/api/v1/runs?${q}`), 400, 'INVALID_FIELD_VALUE');
    }
    expect((await t.call('GET', '/api/v1/runs?offset=999999999')).status).toBe(200);
  });

  it('a malformed or over-long path segment answers in the envelope, after authentication, as the resource not found', async () => {
    for (const path of ['/api/v1/runs/%ZZ', `/api/v1/agents/${'a'.repeat(300)}`]) {
      expect((await t.call('GET', path, { key: null })).status).toBe(401);
      const res = await t.call('GET', path);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe(path.includes('runs') ? 'RUN_NOT_FOUND' : 'AGENT_NOT_FOUND');
      expect(res.headers['x-request-id']).toBeTruthy();
    }
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
