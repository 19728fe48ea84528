import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../../test/harness.js';
import { fakeClock } from '../../../test/fake-clock.js';

describe('API keys and authentication', () => {
  let t: TestContext;
  const clock = fakeClock();
  beforeAll(async () => { t = await createTestContext({ clock }); });
  afterAll(async () => { await t.close(); });

  it('creates a key shown once, lists it without the secret, and the key works', async () => {
    const res = await t.call('POST', '/api/v1/api-keys', { body: { name: 'ci' } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['created_at', 'expires_at', 'id', 'key', 'last_four', 'last_used_at', 'name', 'prefix']);
    expect(res.body.key).toMatch(/^sk_live_[A-Za-z0-9]{40}$/);
    expect(res.body.prefix).toBe(res.body.key.slice(0, 12));
    expect(res.body.last_four).toBe(res.body.key.slice(-4));
    expect(res.body.expires_at).toBeNull();
    const list = await t.call('GET', '/api/v1/api-keys');
    expect(list.status).toBe(200);
    expect(JSON.stringify(list.body)).not.toContain(res.body.key);
    const item = list.body.api_keys.find((k: any) => k.id === res.body.id);
    expect(Object.keys(item).sort()).toEqual(['created_at', 'expires_at', 'id', 'last_four', 'last_used_at', 'name', 'prefix']);
    expect((await t.call('GET', '/api/v1/agents', { key: res.body.key })).status).toBe(200);
  });

  it('stores only a digest of the key', async () => {
    const res = await t.call('POST', '/api/v1/api-keys', { body: { name: 'digest' } });
    const rows = await t.deps.db.executeSql('select * from api_keys where id = $1', [res.body.id]);
    expect(JSON.stringify(rows.rows)).not.toContain(res.body.key);
    expect(rows.rows[0].key_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('records last use at most once a minute', async () => {
    const k = await t.call('POST', '/api/v1/api-keys', { body: { name: 'usage' } });
    await t.call('GET', '/api/v1/agents', { key: k.body.key });
    const first = (await t.call('GET', '/api/v1/api-keys?limit=100')).body.api_keys.find((x: any) => x.id === k.body.id).last_used_at;
    expect(first).not.toBeNull();
    clock.advance(10_000);
    await t.call('GET', '/api/v1/agents', { key: k.body.key });
    const second = (await t.call('GET', '/api/v1/api-keys?limit=100')).body.api_keys.find((x: any) => x.id === k.body.id).last_used_at;
    expect(second).toBe(first);
    clock.advance(60_000);
    await t.call('GET', '/api/v1/agents', { key: k.body.key });
    const third = (await t.call('GET', '/api/v1/api-keys?limit=100')).body.api_keys.find((x: any) => x.id === k.body.id).last_used_at;
    expect(third).not.toBe(first);
  });

  it('revocation takes effect on the next request', async () => {
    const k = await t.call('POST', '/api/v1/api-keys', { body: { name: 'temp' } });
    expect((await t.call('GET', '/api/v1/runs', { key: k.body.key })).status).toBe(200);
    expect((await t.call('DELETE', `/api/v1/api-keys/${k.body.id}`)).status).toBe(204);
    expectError(await t.call('GET', '/api/v1/runs', { key: k.body.key }), 401, 'UNAUTHORIZED');
    expectError(await t.call('DELETE', `/api/v1/api-keys/${k.body.id}`), 404, 'NOT_FOUND');
  });

  it('an expired key is refused', async () => {
    const k = await t.call('POST', '/api/v1/api-keys', { body: { name: 'short', expires_at: new Date(clock.now() + 5_000).toISOString() } });
    expect(k.status).toBe(201);
    expect((await t.call('GET', '/api/v1/runs', { key: k.body.key })).status).toBe(200);
    clock.advance(6_000);
    const res = await t.call('GET', '/api/v1/runs', { key: k.body.key });
    expectError(res, 401, 'UNAUTHORIZED');
    expect(res.body.error).toMatch(/expired/);
  });

  it.each([
    ['no header', undefined, /Missing/],
    ['not bearer', 'Basic abc', /Malformed/],
    ['malformed key', 'Bearer sk_live_short', /Malformed/],
    ['unknown key', `Bearer sk_live_${'a'.repeat(40)}`, /Invalid API key/],
  ])('401 for %s', async (_name, header, msg) => {
    const res = await t.call('GET', '/api/v1/agents', { key: null, headers: header ? { authorization: header } : {} });
    expectError(res, 401, 'UNAUTHORIZED');
    expect(res.body.error).toMatch(msg);
  });

  it('authentication comes before everything else, even unknown paths and bad JSON', async () => {
    expectError(await t.call('GET', '/api/v1/nope', { key: null }), 401, 'UNAUTHORIZED');
    expectError(await t.call('POST', '/api/v1/agents', { key: null, body: '{bad' }), 401, 'UNAUTHORIZED');
  });

  it('validates creation input', async () => {
    expectError(await t.call('POST', '/api/v1/api-keys', { body: {} }), 400, 'MISSING_REQUIRED_FIELD');
    expectError(await t.call('POST', '/api/v1/api-keys', { body: { name: 'x', expires_at: 'tomorrow' } }), 400, 'INVALID_FIELD_VALUE');
    expectError(await t.call('POST', '/api/v1/api-keys', { body: { name: 'x', expires_at: '2001-01-01T00:00:00Z' } }), 400, 'INVALID_FIELD_VALUE');
    expectError(await t.call('POST', '/api/v1/api-keys', { body: { name: 'x', scope: 'all' } }), 400, 'INVALID_FIELD_VALUE');
    expectError(await t.call('DELETE', '/api/v1/api-keys/not-a-uuid'), 404, 'NOT_FOUND');
  });

  it("another organization's key is invisible and cannot be revoked", async () => {
    const other = await t.newOrg();
    const k = await t.call('POST', '/api/v1/api-keys', { body: { name: 'mine' } });
    const theirs = await t.call('GET', '/api/v1/api-keys?limit=100', { key: other.key });
    expect(theirs.body.api_keys.map((x: any) => x.id)).not.toContain(k.body.id);
    expectError(await t.call('DELETE', `/api/v1/api-keys/${k.body.id}`, { key: other.key }), 404, 'NOT_FOUND');
  });
});

describe('per-key request rate limit', () => {
  let t: TestContext;
  beforeAll(async () => { t = await createTestContext({ env: { REHEARSAL_RATE_LIMIT_PER_MINUTE: '3' } }); });
  afterAll(async () => { await t.close(); });

  it('reports RateLimit headers and answers 429 with Retry-After over the limit', async () => {
    const first = await t.call('GET', '/api/v1/agents');
    expect(first.headers['ratelimit-policy']).toBe('"per-key";q=3;w=60');
    expect(first.headers.ratelimit).toMatch(/^"per-key";r=2;t=\d+$/);
    await t.call('GET', '/api/v1/agents');
    await t.call('GET', '/api/v1/agents');
    const over = await t.call('GET', '/api/v1/agents');
    expectError(over, 429, 'RATE_LIMITED');
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
    const other = await t.newOrg();
    expect((await t.call('GET', '/api/v1/agents', { key: other.key })).status).toBe(200);
  });
});
