import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../../test/harness.js';
import { loadBuiltinLibrary } from './library.js';

const FIELDS = ['category', 'created_at', 'criteria', 'description', 'goal', 'id', 'instructions', 'is_builtin', 'max_turns', 'name',
  'opening_message', 'pass_threshold', 'persona', 'script', 'slug', 'source', 'tags', 'updated_at'];
const library = loadBuiltinLibrary();
const criteria = [{ criterion: 'Greets the caller' }];
const MISSING_ID = '01900000-0000-7000-8000-000000000000';

let ctx: TestContext;
beforeAll(async () => { ctx = await createTestContext(); });
afterAll(async () => { await ctx?.close(); });

const create = (body: Record<string, unknown>, key?: string) => ctx.call('POST', '/api/v1/scenarios', { body: { criteria, ...body }, key });

describe('POST /scenarios', () => {
  it('creates a template with defaults applied and normalized criteria', async () => {
    const res = await create({ name: 'Minimal template' });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(FIELDS);
    expect(res.body).toMatchObject({
      name: 'Minimal template', description: null, category: null, tags: [], persona: null, goal: null, instructions: null,
      opening_message: null, script: [], pass_threshold: 0.75, max_turns: null, is_builtin: false,
      criteria: [{ criterion: 'Greets the caller', max_points: 1, required: false, check: null }],
    });
    expect(Object.keys(res.body.criteria[0]).sort()).toEqual(['check', 'criterion', 'max_points', 'required']);
    expect(res.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('stores every field as given, trimming the name', async () => {
    const body = {
      name: '  Full template ', description: 'A caller books a table', category: 'booking', tags: ['booking', 'Dinner'],
      persona: 'Ana', goal: 'Book', instructions: 'Be brief', opening_message: 'Hello', script: ['Hi', 'Table for two'],
      criteria: [
        { criterion: 'Confirms the date', max_points: 2, required: true, check: null },
        { criterion: 'Says a time', check: { type: 'regex', value: '\\d{1,2}(:\\d\\d)? ?(am|pm)', role: 'assistant' } },
        { criterion: 'Books it', check: { type: 'tool_called', name: 'book_table', arguments: { party: 2 } } },
      ],
      pass_threshold: 0.5, max_turns: 8,
    };
    const res = await create(body);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ ...body, name: 'Full template', criteria: [body.criteria[0], { ...body.criteria[1], max_points: 1, required: false }, { ...body.criteria[2], max_points: 1, required: false }] });
    const got = await ctx.call('GET', `/api/v1/scenarios/${res.body.id}`);
    expect(got.body).toEqual(res.body);
  });

  it('names the missing field', async () => {
    expectError(await ctx.call('POST', '/api/v1/scenarios', { body: { criteria } }), 400, 'MISSING_REQUIRED_FIELD');
    const noCriteria = await ctx.call('POST', '/api/v1/scenarios', { body: { name: 'x' } });
    expectError(noCriteria, 400, 'MISSING_REQUIRED_FIELD');
    expect(noCriteria.body.details.field).toBe('criteria');
    const nullName = await create({ name: null });
    expectError(nullName, 400, 'MISSING_REQUIRED_FIELD');
    expect(nullName.body.details.field).toBe('name');
  });

  it.each([
    ['empty criteria', { name: 'a', criteria: [] }, 'criteria'],
    ['unknown field', { name: 'a', colour: 'red' }, 'colour'],
    ['unknown criterion field', { name: 'a', criteria: [{ criterion: 'x', weight: 2 }] }, 'criteria.0.weight'],
    ['wrong type', { name: 'a', pass_threshold: '0.5' }, 'pass_threshold'],
    ['threshold above 1', { name: 'a', pass_threshold: 1.5 }, 'pass_threshold'],
    ['max_turns 0', { name: 'a', max_turns: 0 }, 'max_turns'],
    ['max_turns 51', { name: 'a', max_turns: 51 }, 'max_turns'],
    ['blank name', { name: '   ' }, 'name'],
    ['script of numbers', { name: 'a', script: [1] }, 'script.0'],
    ['regex that does not compile', { name: 'a', criteria: [{ criterion: 'ok' }, { criterion: 'x', check: { type: 'regex', value: '(unclosed' } }] }, 'criteria.1.check.value'],
  ])('rejects %s with INVALID_FIELD_VALUE', async (_label, body, field) => {
    const res = await create(body);
    expectError(res, 400, 'INVALID_FIELD_VALUE');
    expect(res.body.details.field).toBe(field);
  });

  it.each([
    ['an unknown check type', { type: 'sentiment', value: 'happy' }, 'criteria.0.check.type'],
    ['an empty contains value', { type: 'contains', value: '' }, 'criteria.0.check.value'],
    ['a field of another check type', { type: 'regex', value: 'x', name: 'y' }, 'criteria.0.check.name'],
    ['a max_turns check of 0', { type: 'max_turns', value: 0 }, 'criteria.0.check.value'],
  ])('rejects %s with INVALID_FIELD_VALUE naming the field', async (_label, check, field) => {
    const res = await create({ name: 'a', criteria: [{ criterion: 'x', check }] });
    expectError(res, 400, 'INVALID_FIELD_VALUE');
    expect(res.body.details.field).toBe(field);
  });

  it('names a field missing from a check', async () => {
    const res = await create({ name: 'a', criteria: [{ criterion: 'x', check: { type: 'tool_called' } }] });
    expectError(res, 400, 'MISSING_REQUIRED_FIELD');
    expect(res.body.details.field).toBe('criteria.0.check.name');
  });

  it('answers ALREADY_EXISTS for a taken name, case-insensitively after trimming, and for a built-in name', async () => {
    expect((await create({ name: 'Unique Name' })).status).toBe(201);
    const dup = await create({ name: '  unique NAME  ' });
    expectError(dup, 409, 'ALREADY_EXISTS');
    expect(dup.body.details.field).toBe('name');
    expectError(await create({ name: library[0].name.toUpperCase() }), 409, 'ALREADY_EXISTS');
    // another organization may use the same name
    const other = await ctx.newOrg();
    expect((await create({ name: 'Unique Name' }, other.key)).status).toBe(201);
  });

  it('replays an Idempotency-Key and refuses it with another body', async () => {
    const headers = { 'idempotency-key': 'scenario-create-1' };
    const first = await ctx.call('POST', '/api/v1/scenarios', { body: { name: 'Idem', criteria }, headers });
    const again = await ctx.call('POST', '/api/v1/scenarios', { body: { name: 'Idem', criteria }, headers });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expectError(await ctx.call('POST', '/api/v1/scenarios', { body: { name: 'Idem 2', criteria }, headers }), 409, 'IDEMPOTENCY_CONFLICT');
  });

  it('requires an API key', async () => {
    expectError(await ctx.call('POST', '/api/v1/scenarios', { body: { name: 'x', criteria }, key: null }), 401, 'UNAUTHORIZED');
  });
});

describe('GET /scenarios', () => {
  it('lists own templates newest first, then the built-in library in order', async () => {
    const org = await ctx.newOrg();
    const a = await create({ name: 'Older' }, org.key);
    const b = await create({ name: 'Newer' }, org.key);
    const res = await ctx.call('GET', '/api/v1/scenarios?limit=100', { key: org.key });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['limit', 'offset', 'scenarios', 'total']);
    expect(res.body.total).toBe(library.length + 2);
    const ids = res.body.scenarios.map((s: any) => s.id);
    expect(ids.slice(0, 2)).toEqual([b.body.id, a.body.id]);
    expect(ids.slice(2)).toEqual(library.slice(0, 98).map((t) => t.id));
    const builtin = res.body.scenarios[2];
    expect(Object.keys(builtin).sort()).toEqual(FIELDS);
    expect(builtin.is_builtin).toBe(true);
    for (const c of builtin.criteria) expect(Object.keys(c).sort()).toEqual(['check', 'criterion', 'max_points', 'required']);
  });

  it('paginates: default 50, limit clamped to 100 and reported, offset applied', async () => {
    const def = await ctx.call('GET', '/api/v1/scenarios');
    expect(def.body).toMatchObject({ limit: 50, offset: 0 });
    const clamped = await ctx.call('GET', '/api/v1/scenarios?limit=500');
    expect(clamped.body.limit).toBe(100);
    const all = await ctx.call('GET', '/api/v1/scenarios?limit=10');
    const page = await ctx.call('GET', '/api/v1/scenarios?limit=3&offset=2');
    expect(page.body).toMatchObject({ limit: 3, offset: 2, total: all.body.total });
    expect(page.body.scenarios.map((s: any) => s.id)).toEqual(all.body.scenarios.slice(2, 5).map((s: any) => s.id));
    for (const q of ['limit=0', 'limit=-1', 'limit=abc', 'offset=-1', 'offset=1.5']) {
      expectError(await ctx.call('GET', `/api/v1/scenarios?${q}`), 400, 'INVALID_FIELD_VALUE');
    }
  });

  it('filters by category, tag and q, case-insensitively and combined', async () => {
    const org = await ctx.newOrg();
    const mine = await create({ name: 'Filter me 100%', description: 'Speaks SPANISH halfway', category: 'My-Cat', tags: ['Polyglot'] }, org.key);
    const get = async (qs: string) => (await ctx.call('GET', `/api/v1/scenarios?limit=100&${qs}`, { key: org.key })).body;
    const byCat = await get('category=my-cat');
    expect(byCat.scenarios.map((s: any) => s.id)).toEqual([mine.body.id]);
    expect(byCat.total).toBe(1);
    expect((await get('tag=polyglot')).scenarios.map((s: any) => s.id)).toEqual([mine.body.id]);
    expect((await get('q=spanish')).scenarios.map((s: any) => s.id)).toContain(mine.body.id);
    expect((await get('q=100%25')).scenarios.map((s: any) => s.id)).toEqual([mine.body.id]);
    const percent = library.filter((t) => `${t.name} ${t.description}`.includes('%')).length;
    expect((await get('q=%25')).total).toBe(1 + percent);
    const cat = library[0].category;
    const builtinCat = await get(`category=${cat.toUpperCase()}`);
    expect(builtinCat.total).toBe(library.filter((t) => t.category === cat).length);
    expect(builtinCat.scenarios.every((s: any) => s.category === cat)).toBe(true);
    const tag = library[0].tags[0];
    expect((await get(`tag=${tag}&category=${cat}`)).total).toBe(library.filter((t) => t.category === cat && t.tags.includes(tag)).length);
    expect((await get('q=no-such-thing-anywhere')).total).toBe(0);
  });
});

describe('GET /scenarios/{id}', () => {
  it('returns a built-in template', async () => {
    const res = await ctx.call('GET', `/api/v1/scenarios/${library[3].id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: library[3].id, name: library[3].name, is_builtin: true });
  });

  it("answers NOT_FOUND for an absent id, a non-UUID and another organization's template", async () => {
    const other = await ctx.newOrg();
    const theirs = await create({ name: 'Theirs' }, other.key);
    for (const id of [MISSING_ID, 'nope', theirs.body.id]) expectError(await ctx.call('GET', `/api/v1/scenarios/${id}`), 404, 'NOT_FOUND');
  });
});

describe('PUT /scenarios/{id}', () => {
  it('changes only the fields given', async () => {
    const made = await create({ name: 'Editable', description: 'before', tags: ['a'], max_turns: 5 });
    const res = await ctx.call('PUT', `/api/v1/scenarios/${made.body.id}`, { body: { description: null, max_turns: null, pass_threshold: 1, name: 'Edited' } });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(FIELDS);
    expect(res.body).toMatchObject({ name: 'Edited', description: null, max_turns: null, pass_threshold: 1, tags: ['a'], criteria: made.body.criteria });
    expect(res.body.created_at).toBe(made.body.created_at);
    expect(Date.parse(res.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(made.body.updated_at));
  });

  it('refuses built-ins with FORBIDDEN', async () => {
    expectError(await ctx.call('PUT', `/api/v1/scenarios/${library[0].id}`, { body: { name: 'Mine now' } }), 403, 'FORBIDDEN');
  });

  it('validates like POST and reports taken names', async () => {
    const made = await create({ name: 'Put target' });
    await create({ name: 'Put other' });
    const url = `/api/v1/scenarios/${made.body.id}`;
    expectError(await ctx.call('PUT', url, { body: { name: 'PUT OTHER ' } }), 409, 'ALREADY_EXISTS');
    expectError(await ctx.call('PUT', url, { body: { is_builtin: true } }), 400, 'INVALID_FIELD_VALUE');
    expectError(await ctx.call('PUT', url, { body: { criteria: [] } }), 400, 'INVALID_FIELD_VALUE');
    const bad = await ctx.call('PUT', url, { body: { criteria: [{ criterion: 'x', check: { type: 'not_regex', value: '[' } }] } });
    expectError(bad, 400, 'INVALID_FIELD_VALUE');
    expect(bad.body.details.field).toBe('criteria.0.check.value');
    // renaming to its own name in another case is fine
    expect((await ctx.call('PUT', url, { body: { name: 'put TARGET' } })).body.name).toBe('put TARGET');
  });

  it("answers NOT_FOUND for absent, non-UUID and another organization's ids", async () => {
    const other = await ctx.newOrg();
    const theirs = await create({ name: 'Theirs to edit' }, other.key);
    for (const id of [MISSING_ID, 'nope', theirs.body.id]) {
      expectError(await ctx.call('PUT', `/api/v1/scenarios/${id}`, { body: { name: 'x' } }), 404, 'NOT_FOUND');
    }
  });
});

describe('DELETE /scenarios/{id}', () => {
  it('deletes an own template', async () => {
    const made = await create({ name: 'Doomed' });
    const res = await ctx.call('DELETE', `/api/v1/scenarios/${made.body.id}`);
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
    expectError(await ctx.call('GET', `/api/v1/scenarios/${made.body.id}`), 404, 'NOT_FOUND');
    expectError(await ctx.call('DELETE', `/api/v1/scenarios/${made.body.id}`), 404, 'NOT_FOUND');
  });

  it('refuses built-ins with FORBIDDEN', async () => {
    expectError(await ctx.call('DELETE', `/api/v1/scenarios/${library[0].id}`), 403, 'FORBIDDEN');
  });

  it('refuses a template used by a suite with INVALID_STATE naming the suites', async () => {
    const made = await create({ name: 'In use' });
    const suite = await ctx.call('POST', '/api/v1/test-suites', { body: { name: 'Uses it', scenario_ids: [library[0].id, made.body.id] } });
    expect(suite.status).toBe(201);
    const res = await ctx.call('DELETE', `/api/v1/scenarios/${made.body.id}`);
    expectError(res, 409, 'INVALID_STATE');
    expect(res.body.details.test_suites).toEqual([{ id: suite.body.id, name: 'Uses it' }]);
    expect((await ctx.call('GET', `/api/v1/scenarios/${made.body.id}`)).status).toBe(200);
    await ctx.call('DELETE', `/api/v1/test-suites/${suite.body.id}`);
    expect((await ctx.call('DELETE', `/api/v1/scenarios/${made.body.id}`)).status).toBe(204);
  });

  it("answers NOT_FOUND for absent, non-UUID and another organization's ids", async () => {
    const other = await ctx.newOrg();
    const theirs = await create({ name: 'Theirs to delete' }, other.key);
    for (const id of [MISSING_ID, 'nope', theirs.body.id]) expectError(await ctx.call('DELETE', `/api/v1/scenarios/${id}`), 404, 'NOT_FOUND');
    expect((await ctx.call('GET', `/api/v1/scenarios/${theirs.body.id}`, { key: other.key })).status).toBe(200);
  });
});

describe('POST /scenarios/{id}/duplicate', () => {
  it('copies a built-in into the organization as "(copy)", then "(copy 2)"', async () => {
    const src = library[1];
    const first = await ctx.call('POST', `/api/v1/scenarios/${src.id}/duplicate`);
    expect(first.status).toBe(201);
    expect(Object.keys(first.body).sort()).toEqual(FIELDS);
    expect(first.body).toMatchObject({ name: `${src.name} (copy)`, is_builtin: false, script: src.script, criteria: src.criteria, category: src.category });
    expect(first.body.id).not.toBe(src.id);
    const second = await ctx.call('POST', `/api/v1/scenarios/${src.id}/duplicate`);
    expect(second.body.name).toBe(`${src.name} (copy 2)`);
    const edited = await ctx.call('PUT', `/api/v1/scenarios/${first.body.id}`, { body: { pass_threshold: 0.9 } });
    expect(edited.status).toBe(200);
    const copyOfCopy = await ctx.call('POST', `/api/v1/scenarios/${first.body.id}/duplicate`);
    expect(copyOfCopy.body).toMatchObject({ name: `${src.name} (copy) (copy)`, pass_threshold: 0.9 });
  });

  it("answers NOT_FOUND for absent, non-UUID and another organization's ids", async () => {
    const other = await ctx.newOrg();
    const theirs = await create({ name: 'Theirs to copy' }, other.key);
    for (const id of [MISSING_ID, 'nope', theirs.body.id]) expectError(await ctx.call('POST', `/api/v1/scenarios/${id}/duplicate`), 404, 'NOT_FOUND');
  });
});

const errField = (res: { status: number; body: any }, status: number, code: string) => {
  expectError(res, status, code);
  return res.body.details?.field;
};

describe('slugs', () => {
  it('built-ins keep their library slug; GET /scenarios?slug= matches exactly', async () => {
    const first = library[0];
    const res = await ctx.call('GET', `/api/v1/scenarios?slug=${first.slug}`);
    expect(res.body.scenarios.map((s: any) => [s.id, s.slug, s.source])).toEqual([[first.id, first.slug, 'builtin']]);
    expect((await ctx.call('GET', `/api/v1/scenarios?slug=${first.slug.slice(0, -1)}`)).body.total).toBe(0);
  });

  it('slug on create and update: pattern 400, taken (own or built-in) 409, source "api" unless sync says "files"', async () => {
    const a = await create({ name: 'Slugged', slug: 'slugged-one' });
    expect(a.status).toBe(201);
    expect(a.body).toMatchObject({ slug: 'slugged-one', source: 'api' });
    expect(errField(await create({ name: 'Bad slug', slug: 'Bad_Slug' }), 400, 'INVALID_FIELD_VALUE')).toBe('slug');
    expect(errField(await create({ name: 'Taken slug', slug: 'slugged-one' }), 409, 'ALREADY_EXISTS')).toBe('slug');
    expect(errField(await create({ name: 'Builtin slug', slug: library[0].slug }), 409, 'ALREADY_EXISTS')).toBe('slug');
    const b = await create({ name: 'From files', slug: 'from-files', source: 'files' });
    expect(b.body.source).toBe('files');
    expect(errField(await ctx.call('PUT', `/api/v1/scenarios/${b.body.id}`, { body: { slug: 'slugged-one' } }), 409, 'ALREADY_EXISTS')).toBe('slug');
    const renamed = await ctx.call('PUT', `/api/v1/scenarios/${b.body.id}`, { body: { slug: 'from-files-2' } });
    expect(renamed.body).toMatchObject({ slug: 'from-files-2', source: 'files' });
    expect((await ctx.call('GET', '/api/v1/scenarios?slug=from-files-2')).body.scenarios[0].id).toBe(b.body.id);
    // another organization sees neither slug and may take it
    const other = await ctx.newOrg('slug-org');
    expect((await create({ name: 'Other org', slug: 'slugged-one' }, other.key)).status).toBe(201);
  });
});
