import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../../test/harness.js';
import { webhooks } from '../../db/schema.js';
import { webhookSecret } from './webhooks.service.js';

const FIELDS = ['agent_id', 'created_at', 'description', 'disabled_reason', 'events', 'id', 'is_active', 'updated_at', 'url'];
const ALL_EVENTS = ['test_run_completed', 'test_run_failed', 'test_run_canceled', 'test_run_regressed'];
const MISSING_ID = '01900000-0000-7000-8000-000000000000';
const URL_ = 'https://hooks.example.com/rehearsal';

let ctx: TestContext;
beforeAll(async () => { ctx = await createTestContext(); });
afterAll(async () => { await ctx?.close(); });

const create = (body: Record<string, unknown>, key?: string) => ctx.call('POST', '/api/v1/webhooks', { body: { url: URL_, ...body }, key });
const newAgent = async (name: string, key?: string) => {
  const res = await ctx.call('POST', '/api/v1/agents', {
    body: { provider: 'provider_4', name, config: { base_url: 'https://llm.example.com/v1', model: 'm' } }, key,
  });
  expect(res.status).toBe(201);
  return res.body.id as string;
};
const row = async (id: string) => (await ctx.deps.db.orm.select().from(webhooks).where(eq(webhooks.id, id)))[0];

describe('POST /webhooks', () => {
  it('creates an organization-level webhook with a generated secret and every event', async () => {
    const res = await ctx.call('POST', '/api/v1/webhooks', { body: { url: URL_ } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual([...FIELDS, 'secret'].sort());
    expect(res.body).toMatchObject({ url: URL_, description: null, agent_id: null, events: ALL_EVENTS, is_active: true, disabled_reason: null });
    expect(res.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(res.body.secret.slice(6), 'base64')).toHaveLength(32);
  });

  it('creates an agent-specific webhook with the given secret and events', async () => {
    const agentId = await newAgent('Hooked agent');
    const res = await create({ secret: 'my-signing-secret', description: 'CI', agent_id: agentId.toUpperCase(), events: ['test_run_failed'] });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ secret: 'my-signing-secret', description: 'CI', agent_id: agentId, events: ['test_run_failed'] });
  });

  it('keeps the secret sealed: never in GET, list or PATCH responses, never in clear text in the database', async () => {
    const secret = 'whsec_c3VwZXItc2VjcmV0LXZhbHVlLXRoYXQtbm9ib2R5LXNlZXM=';
    const made = await create({ secret });
    const id = made.body.id;
    const got = await ctx.call('GET', `/api/v1/webhooks/${id}`);
    expect(Object.keys(got.body).sort()).toEqual(FIELDS);
    const list = await ctx.call('GET', '/api/v1/webhooks?limit=100');
    for (const w of list.body.webhooks) expect(Object.keys(w).sort()).toEqual(FIELDS);
    const patched = await ctx.call('PATCH', `/api/v1/webhooks/${id}`, { body: { description: 'x' } });
    expect(Object.keys(patched.body).sort()).toEqual(FIELDS);
    for (const res of [got, list, patched]) expect(JSON.stringify(res.body)).not.toContain('c3VwZXItc2VjcmV0');
    const stored = await row(id);
    expect(JSON.stringify(stored)).not.toContain('c3VwZXItc2VjcmV0');
    expect(stored.secretSealed.startsWith('v1.')).toBe(true);
    expect(webhookSecret(ctx.deps, stored)).toBe(secret);
    // bound to its row: the sealed value does not open as another webhook's
    expect(() => webhookSecret(ctx.deps, { ...stored, id: MISSING_ID })).toThrow();
  });

  it('names the missing field', async () => {
    for (const body of [{}, { url: null }]) {
      const res = await ctx.call('POST', '/api/v1/webhooks', { body });
      expectError(res, 400, 'MISSING_REQUIRED_FIELD');
      expect(res.body.details.field).toBe('url');
    }
  });

  it.each([
    ['a relative url', { url: '/hooks' }, 'url'],
    ['a non-http url', { url: 'ftp://example.com/x' }, 'url'],
    ['a url over 2048 characters', { url: `https://example.com/${'a'.repeat(2030)}` }, 'url'],
    ['a url of the wrong type', { url: 42 }, 'url'],
    ['an empty secret', { secret: '' }, 'secret'],
    ['a secret over 256 characters', { secret: 's'.repeat(257) }, 'secret'],
    ['empty events', { events: [] }, 'events'],
    ['an unknown event', { events: ['ping'] }, 'events.0'],
    ['repeated events', { events: ['test_run_failed', 'test_run_failed'] }, 'events'],
    ['a non-UUID agent_id', { agent_id: 'agent-1' }, 'agent_id'],
    ['an unknown field', { headers: {} }, 'headers'],
  ])('rejects %s with INVALID_FIELD_VALUE', async (_label, body, field) => {
    const res = await create(body);
    expectError(res, 400, 'INVALID_FIELD_VALUE');
    expect(res.body.details.field).toBe(field);
    if (field === 'secret') expect(res.body.details.value).toBeUndefined();
  });

  it("answers 400 AGENT_NOT_FOUND for an unknown, deleted or another organization's agent", async () => {
    const other = await ctx.newOrg();
    const theirs = await newAgent('Their agent', other.key);
    const deleted = await newAgent('Deleted agent');
    expect((await ctx.call('DELETE', `/api/v1/agents/${deleted}`)).status).toBe(204);
    for (const agentId of [MISSING_ID, theirs, deleted]) {
      const res = await create({ agent_id: agentId });
      expectError(res, 400, 'AGENT_NOT_FOUND');
      expect(res.body.details.field).toBe('agent_id');
    }
  });

  it('replays an Idempotency-Key and refuses it with another body', async () => {
    const headers = { 'idempotency-key': 'hook-1' };
    const first = await ctx.call('POST', '/api/v1/webhooks', { body: { url: URL_ }, headers });
    const again = await ctx.call('POST', '/api/v1/webhooks', { body: { url: URL_ }, headers });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expectError(await ctx.call('POST', '/api/v1/webhooks', { body: { url: `${URL_}/2` }, headers }), 409, 'IDEMPOTENCY_CONFLICT');
  });
});

describe('GET /webhooks', () => {
  it('lists newest first, filters by agent_id and paginates', async () => {
    const org = await ctx.newOrg();
    const agentId = await newAgent('Listed agent', org.key);
    const a = await create({ description: 'a' }, org.key);
    const b = await create({ description: 'b', agent_id: agentId }, org.key);
    const c = await create({ description: 'c' }, org.key);
    const res = await ctx.call('GET', '/api/v1/webhooks', { key: org.key });
    expect(Object.keys(res.body).sort()).toEqual(['limit', 'offset', 'total', 'webhooks']);
    expect(res.body).toMatchObject({ total: 3, limit: 50, offset: 0 });
    expect(res.body.webhooks.map((w: any) => w.id)).toEqual([c.body.id, b.body.id, a.body.id]);
    const filtered = await ctx.call('GET', `/api/v1/webhooks?agent_id=${agentId}`, { key: org.key });
    expect(filtered.body).toMatchObject({ total: 1, webhooks: [{ id: b.body.id, agent_id: agentId }] });
    expect((await ctx.call('GET', `/api/v1/webhooks?agent_id=${MISSING_ID}`, { key: org.key })).body.total).toBe(0);
    expectError(await ctx.call('GET', '/api/v1/webhooks?agent_id=nope', { key: org.key }), 400, 'INVALID_FIELD_VALUE');
    const page = await ctx.call('GET', '/api/v1/webhooks?limit=1&offset=2', { key: org.key });
    expect(page.body).toMatchObject({ total: 3, limit: 1, offset: 2, webhooks: [{ id: a.body.id }] });
    expect((await ctx.call('GET', '/api/v1/webhooks?limit=101', { key: org.key })).body.limit).toBe(100);
    expectError(await ctx.call('GET', '/api/v1/webhooks?limit=0', { key: org.key }), 400, 'INVALID_FIELD_VALUE');
  });
});

describe('GET /webhooks/{id}', () => {
  it("answers NOT_FOUND for absent, non-UUID and another organization's ids", async () => {
    const other = await ctx.newOrg();
    const theirs = await create({}, other.key);
    for (const id of [MISSING_ID, 'nope', theirs.body.id]) expectError(await ctx.call('GET', `/api/v1/webhooks/${id}`), 404, 'NOT_FOUND');
  });
});

describe('PATCH /webhooks/{id}', () => {
  it('changes only the fields given and can rotate the secret', async () => {
    const made = await create({ description: 'before', secret: 'old-secret' });
    const url = `/api/v1/webhooks/${made.body.id}`;
    const res = await ctx.call('PATCH', url, { body: { url: 'http://hooks.example.com/v2', events: ['test_run_canceled'], secret: 'new-secret' } });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(FIELDS);
    expect(res.body).toMatchObject({ url: 'http://hooks.example.com/v2', description: 'before', events: ['test_run_canceled'], is_active: true });
    expect(webhookSecret(ctx.deps, await row(made.body.id))).toBe('new-secret');
    expect((await ctx.call('PATCH', url, { body: { description: null } })).body.description).toBeNull();
  });

  it('re-enabling clears the failure count and the disabled reason', async () => {
    const made = await create({});
    await ctx.deps.db.orm.update(webhooks).set({ isActive: false, consecutiveFailures: 9, disabledReason: 'too many failed deliveries' }).where(eq(webhooks.id, made.body.id));
    const url = `/api/v1/webhooks/${made.body.id}`;
    expect((await ctx.call('GET', url)).body).toMatchObject({ is_active: false, disabled_reason: 'too many failed deliveries' });
    const res = await ctx.call('PATCH', url, { body: { is_active: true } });
    expect(res.body).toMatchObject({ is_active: true, disabled_reason: null });
    expect((await row(made.body.id)).consecutiveFailures).toBe(0);
    expect((await ctx.call('PATCH', url, { body: { is_active: false } })).body).toMatchObject({ is_active: false, disabled_reason: null });
  });

  it('validates like POST', async () => {
    const made = await create({});
    const url = `/api/v1/webhooks/${made.body.id}`;
    for (const body of [{ url: 'not a url' }, { events: [] }, { agent_id: MISSING_ID }, { secret: '' }, { is_active: 'yes' }]) {
      expectError(await ctx.call('PATCH', url, { body }), 400, 'INVALID_FIELD_VALUE');
    }
  });

  it("answers NOT_FOUND for absent, non-UUID and another organization's ids", async () => {
    const other = await ctx.newOrg();
    const theirs = await create({}, other.key);
    for (const id of [MISSING_ID, 'nope', theirs.body.id]) {
      expectError(await ctx.call('PATCH', `/api/v1/webhooks/${id}`, { body: { is_active: false } }), 404, 'NOT_FOUND');
    }
    expect((await ctx.call('GET', `/api/v1/webhooks/${theirs.body.id}`, { key: other.key })).body.is_active).toBe(true);
  });
});

describe('DELETE /webhooks/{id}', () => {
  it('deletes a webhook permanently', async () => {
    const made = await create({});
    const res = await ctx.call('DELETE', `/api/v1/webhooks/${made.body.id}`);
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
    expect(await row(made.body.id)).toBeUndefined();
    expectError(await ctx.call('DELETE', `/api/v1/webhooks/${made.body.id}`), 404, 'NOT_FOUND');
  });

  it("answers NOT_FOUND for absent, non-UUID and another organization's ids", async () => {
    const other = await ctx.newOrg();
    const theirs = await create({}, other.key);
    for (const id of [MISSING_ID, 'nope', theirs.body.id]) expectError(await ctx.call('DELETE', `/api/v1/webhooks/${id}`), 404, 'NOT_FOUND');
    expect(await row(theirs.body.id)).toBeDefined();
  });
});
