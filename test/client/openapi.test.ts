import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_ONLY_TAGS, OPERATION_METHODS, RehearsalClient } from '../../src/client/index.js';
import { createTestContext, type TestContext } from '../harness.js';
import { generateClientTypes, listOperations, type OpenApiDoc } from './codegen.js';

// The client cannot drift from the API: its types are generated from the live OpenAPI document (this file
// regenerates them and compares), and every documented operation must have a client method.
// After changing a route: `npm run client:types`, then add the method OPERATION_METHODS now asks for.

describe('client ↔ OpenAPI document', () => {
  let t: TestContext;
  let doc: OpenApiDoc;
  beforeAll(async () => {
    t = await createTestContext();
    doc = (await t.call('GET', '/api/v1/openapi.json', { key: null })).body;
  });
  afterAll(async () => { await t.close(); });

  it('src/client/openapi-types.ts is what the document generates', async () => {
    await expect(generateClientTypes(doc, { skipTags: BROWSER_ONLY_TAGS })).toMatchFileSnapshot('../../src/client/openapi-types.ts');
  });

  it('every documented operation has a client method, and every method names a documented operation', () => {
    const documented = listOperations(doc, { skipTags: BROWSER_ONLY_TAGS }).sort();
    expect(documented.length).toBeGreaterThan(30);
    expect(Object.keys(OPERATION_METHODS).sort()).toEqual(documented);
    const client = new RehearsalClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'sk_live_x' }) as unknown as Record<string, Record<string, unknown>>;
    for (const [op, method] of Object.entries(OPERATION_METHODS)) {
      const [group, name] = method.split('.');
      expect(typeof client[group]?.[name], `${op} → client.${method}`).toBe('function');
    }
  });

  it('documents only real operations: the 405 answers for other methods are hidden', () => {
    expect(doc.paths['/api/v1/runs'].put).toBeUndefined();
    expect(doc.paths['/api/v1/openapi.json']).toBeUndefined();
  });
});
