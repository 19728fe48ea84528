import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../../test/harness.js';
import { loadBuiltinLibrary } from '../scenarios/library.js';
import { getSuiteForRun } from './test-suites.service.js';

const FIELDS = ['created_at', 'description', 'id', 'is_default', 'name', 'scenario_count', 'scenario_ids', 'source', 'updated_at'];
const library = loadBuiltinLibrary();
const [s0, s1, s2] = library.map((t) => t.id);
const MISSING_ID = '01900000-0000-7000-8000-000000000000';

let ctx: TestContext;
beforeAll(async () => { ctx = await createTestContext(); });
afterAll(async () => { await ctx?.close(); });

const create = (body: Record<string, unknown>, key?: string) => ctx.call('POST', '/api/v1/test-suites', { body, key });
const ownTemplate = async (name: string, key?: string) =>
  (await ctx.call('POST', '/api/v1/scenarios', { body: { name, criteria: [{ criterion: 'x' }] }, key })).body.id as string;

describe('the Default suite', () => {
  it('exists for a new organization and holds the whole library in library order', async () => {
    const org = await ctx.newOrg();
    const res = await ctx.call('GET', '/api/v1/test-suites', { key: org.key });
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(1);
    const [def] = res.body.test_suites;
    expect(Object.keys(def).sort()).toEqual(FIELDS);
    expect(def).toMatchObject({ name: 'Default', is_default: true, scenario_count: library.length, scenario_ids: library.map((t) => t.id) });
    expect(library.length).toBeGreaterThanOrEqual(40);
  });

  it('can be renamed and edited but not deleted, and stays what runs use by default', async () => {
    const org = await ctx.newOrg();
    const def = await getSuiteForRun(ctx.deps, { orgId: org.orgId }, null);
    expect(def).not.toBeNull();
    const renamed = await ctx.call('PUT', `/api/v1/test-suites/${def!.id}`, { body: { name: 'Everything', scenario_ids: [s1, s0] }, key: org.key });
    expect(renamed.body).toMatchObject({ name: 'Everything', is_default: true, scenario_ids: [s1, s0], scenario_count: 2 });
    const del = await ctx.call('DELETE', `/api/v1/test-suites/${def!.id}`, { key: org.key });
    expectError(del, 409, 'INVALID_STATE');
    expect(await getSuiteForRun(ctx.deps, { orgId: org.orgId }, null)).toEqual({ id: def!.id, name: 'Everything', scenario_ids: [s1, s0] });
  });
});

describe('POST /test-suites', () => {
  it('creates a suite keeping the order of scenario_ids', async () => {
    const own = await ownTemplate('Suite member');
    const res = await create({ name: '  Smoke ', description: 'Fast checks', scenario_ids: [s2, own, s0] });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(FIELDS);
    expect(res.body).toMatchObject({ name: 'Smoke', description: 'Fast checks', scenario_ids: [s2, own, s0], scenario_count: 3, is_default: false });
    expect((await ctx.call('GET', `/api/v1/test-suites/${res.body.id}`)).body).toEqual(res.body);
    const noDesc = await create({ name: 'No description', scenario_ids: [s0.toUpperCase()] });
    expect(noDesc.body).toMatchObject({ description: null, scenario_ids: [s0] });
  });

  it('names the missing field', async () => {
    for (const [body, field] of [[{ scenario_ids: [s0] }, 'name'], [{ name: 'x' }, 'scenario_ids'], [{ name: 'x', scenario_ids: null }, 'scenario_ids']] as const) {
      const res = await create(body);
      expectError(res, 400, 'MISSING_REQUIRED_FIELD');
      expect(res.body.details.field).toBe(field);
    }
  });

  it.each([
    ['scenario_ids not an array', { scenario_ids: s0 }, 'scenario_ids'],
    ['empty scenario_ids', { scenario_ids: [] }, 'scenario_ids'],
    ['a non-UUID id', { scenario_ids: [s0, 'abc'] }, 'scenario_ids.1'],
    ['a non-string id', { scenario_ids: [7] }, 'scenario_ids.0'],
    ['an unknown field', { scenario_ids: [s0], is_default: true }, 'is_default'],
    ['a name of the wrong type', { name: 5, scenario_ids: [s0] }, 'name'],
    ['a blank name', { name: ' ', scenario_ids: [s0] }, 'name'],
  ])('rejects %s with INVALID_FIELD_VALUE', async (_label, body, field) => {
    const res = await create({ name: 'Invalid', ...body });
    expectError(res, 400, 'INVALID_FIELD_VALUE');
    expect(res.body.details.field).toBe(field);
  });

  it('rejects repeated ids', async () => {
    const res = await create({ name: 'Repeats', scenario_ids: [s0, s1, s0.toUpperCase()] });
    expectError(res, 400, 'INVALID_FIELD_VALUE');
    expect(res.body.details).toEqual({ field: 'scenario_ids', duplicate_ids: [s0] });
  });

  it("lists unknown and other organizations' template ids in details.unknown_ids", async () => {
    const other = await ctx.newOrg();
    const theirs = await ownTemplate('Not yours', other.key);
    const res = await create({ name: 'Unknowns', scenario_ids: [s0, MISSING_ID, theirs] });
    expectError(res, 400, 'INVALID_FIELD_VALUE');
    expect(res.body.details).toEqual({ field: 'scenario_ids', unknown_ids: [MISSING_ID, theirs] });
  });

  it('answers ALREADY_EXISTS for a taken name, case-insensitively after trimming', async () => {
    expect((await create({ name: 'Regression', scenario_ids: [s0] })).status).toBe(201);
    expectError(await create({ name: ' REGRESSION ', scenario_ids: [s1] }), 409, 'ALREADY_EXISTS');
    expectError(await create({ name: 'default', scenario_ids: [s1] }), 409, 'ALREADY_EXISTS');
  });

  it('replays an Idempotency-Key and refuses it with another body', async () => {
    const headers = { 'idempotency-key': 'suite-1' };
    const first = await ctx.call('POST', '/api/v1/test-suites', { body: { name: 'Idem suite', scenario_ids: [s0] }, headers });
    const again = await ctx.call('POST', '/api/v1/test-suites', { body: { name: 'Idem suite', scenario_ids: [s0] }, headers });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expectError(await ctx.call('POST', '/api/v1/test-suites', { body: { name: 'Idem suite', scenario_ids: [s1] }, headers }), 409, 'IDEMPOTENCY_CONFLICT');
  });
});

describe('GET /test-suites', () => {
  it('lists newest first with pagination', async () => {
    const org = await ctx.newOrg();
    const a = await create({ name: 'A', scenario_ids: [s0] }, org.key);
    const b = await create({ name: 'B', scenario_ids: [s1] }, org.key);
    const res = await ctx.call('GET', '/api/v1/test-suites', { key: org.key });
    expect(Object.keys(res.body).sort()).toEqual(['limit', 'offset', 'test_suites', 'total']);
    expect(res.body).toMatchObject({ total: 3, limit: 50, offset: 0 });
    expect(res.body.test_suites.map((s: any) => s.name)).toEqual(['B', 'A', 'Default']);
    expect(res.body.test_suites[0].id).toBe(b.body.id);
    const page = await ctx.call('GET', '/api/v1/test-suites?limit=1&offset=1', { key: org.key });
    expect(page.body).toMatchObject({ total: 3, limit: 1, offset: 1 });
    expect(page.body.test_suites.map((s: any) => s.id)).toEqual([a.body.id]);
    expect((await ctx.call('GET', '/api/v1/test-suites?limit=1000', { key: org.key })).body.limit).toBe(100);
    for (const q of ['limit=0', 'limit=x', 'offset=-3']) expectError(await ctx.call('GET', `/api/v1/test-suites?${q}`), 400, 'INVALID_FIELD_VALUE');
  });
});

describe('GET /test-suites/{id}', () => {
  it("answers NOT_FOUND for absent, non-UUID and another organization's ids", async () => {
    const other = await ctx.newOrg();
    const theirs = await create({ name: 'Theirs', scenario_ids: [s0] }, other.key);
    for (const id of [MISSING_ID, 'nope', theirs.body.id]) expectError(await ctx.call('GET', `/api/v1/test-suites/${id}`), 404, 'NOT_FOUND');
  });
});

describe('PUT /test-suites/{id}', () => {
  it('changes only the fields given and replaces scenario_ids in order', async () => {
    const made = await create({ name: 'Editable suite', description: 'before', scenario_ids: [s0, s1] });
    const url = `/api/v1/test-suites/${made.body.id}`;
    const res = await ctx.call('PUT', url, { body: { scenario_ids: [s2, s0] } });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(FIELDS);
    expect(res.body).toMatchObject({ name: 'Editable suite', description: 'before', scenario_ids: [s2, s0], scenario_count: 2 });
    const res2 = await ctx.call('PUT', url, { body: { name: 'Edited suite', description: null } });
    expect(res2.body).toMatchObject({ name: 'Edited suite', description: null, scenario_ids: [s2, s0] });
  });

  it('validates like POST', async () => {
    await create({ name: 'Taken suite', scenario_ids: [s0] });
    const made = await create({ name: 'Put suite', scenario_ids: [s0] });
    const url = `/api/v1/test-suites/${made.body.id}`;
    expectError(await ctx.call('PUT', url, { body: { name: 'taken SUITE' } }), 409, 'ALREADY_EXISTS');
    expectError(await ctx.call('PUT', url, { body: { scenario_ids: [] } }), 400, 'INVALID_FIELD_VALUE');
    expectError(await ctx.call('PUT', url, { body: { is_default: true } }), 400, 'INVALID_FIELD_VALUE');
    const unknown = await ctx.call('PUT', url, { body: { scenario_ids: [MISSING_ID] } });
    expectError(unknown, 400, 'INVALID_FIELD_VALUE');
    expect(unknown.body.details.unknown_ids).toEqual([MISSING_ID]);
    expect((await ctx.call('GET', url)).body.scenario_ids).toEqual([s0]);
  });

  it("answers NOT_FOUND for absent, non-UUID and another organization's ids", async () => {
    const other = await ctx.newOrg();
    const theirs = await create({ name: 'Theirs to edit', scenario_ids: [s0] }, other.key);
    for (const id of [MISSING_ID, 'nope', theirs.body.id]) {
      expectError(await ctx.call('PUT', `/api/v1/test-suites/${id}`, { body: { name: 'x' } }), 404, 'NOT_FOUND');
    }
  });
});

describe('DELETE /test-suites/{id}', () => {
  it('deletes a suite', async () => {
    const made = await create({ name: 'Doomed suite', scenario_ids: [s0] });
    const res = await ctx.call('DELETE', `/api/v1/test-suites/${made.body.id}`);
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
    expectError(await ctx.call('GET', `/api/v1/test-suites/${made.body.id}`), 404, 'NOT_FOUND');
    expectError(await ctx.call('DELETE', `/api/v1/test-suites/${made.body.id}`), 404, 'NOT_FOUND');
  });

  it("answers NOT_FOUND for absent, non-UUID and another organization's ids", async () => {
    const other = await ctx.newOrg();
    const theirs = await create({ name: 'Theirs to delete', scenario_ids: [s0] }, other.key);
    for (const id of [MISSING_ID, 'nope', theirs.body.id]) expectError(await ctx.call('DELETE', `/api/v1/test-suites/${id}`), 404, 'NOT_FOUND');
    expect((await ctx.call('GET', `/api/v1/test-suites/${theirs.body.id}`, { key: other.key })).status).toBe(200);
  });
});

describe('getSuiteForRun', () => {
  it('returns the named suite, the default for null, and null for absent or foreign ids', async () => {
    const made = await create({ name: 'For a run', scenario_ids: [s1, s0] });
    const me = { orgId: ctx.orgId };
    expect(await getSuiteForRun(ctx.deps, me, made.body.id)).toEqual({ id: made.body.id, name: 'For a run', scenario_ids: [s1, s0] });
    expect(await getSuiteForRun(ctx.deps, me, null)).toMatchObject({ name: 'Default', scenario_ids: library.map((t) => t.id) });
    const other = await ctx.newOrg();
    expect(await getSuiteForRun(ctx.deps, { orgId: other.orgId }, made.body.id)).toBeNull();
    expect(await getSuiteForRun(ctx.deps, me, MISSING_ID)).toBeNull();
    expect(await getSuiteForRun(ctx.deps, me, 'TR-1')).toBeNull();
    const inTx = await ctx.deps.db.transaction((tx) => getSuiteForRun(ctx.deps, me, made.body.id, tx));
    expect(inTx?.id).toBe(made.body.id);
  });
});
