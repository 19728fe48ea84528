import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../../test/harness.js';

const AGENT_FIELDS = ['config_fields', 'created_at', 'description', 'id', 'is_active', 'name', 'provider', 'tool_aliases', 'tool_names', 'updated_at'];
const p4 = { base_url: 'http://127.0.0.1:9/v1', model: 'receptionist', api_key: 'sk-provider-secret-123' };

describe('agents', () => {
  let t: TestContext;
  beforeAll(async () => { t = await createTestContext(); });
  afterAll(async () => { await t.close(); });

  it('creates, reads, lists, updates and deletes an agent; config is write-only', async () => {
    const created = await t.call('POST', '/api/v1/agents', { body: { provider: 'provider_4', name: 'Front desk', config: p4 } });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(AGENT_FIELDS);
    expect(created.body).toMatchObject({ provider: 'provider_4', name: 'Front desk', description: null, is_active: true, config_fields: ['api_key', 'base_url', 'model'] });
    expect(JSON.stringify(created.body)).not.toContain('sk-provider-secret-123');

    const got = await t.call('GET', `/api/v1/agents/${created.body.id}`);
    expect(got.body).toEqual(created.body);
    const list = await t.call('GET', '/api/v1/agents?provider=provider_4');
    expect(list.body).toMatchObject({ total: 1, limit: 50, offset: 0 });
    expect(list.body.agents[0].id).toBe(created.body.id);
    expect((await t.call('GET', '/api/v1/agents?provider=provider_1')).body.total).toBe(0);

    const upd = await t.call('PUT', `/api/v1/agents/${created.body.id}`, { body: { description: 'Main line', is_active: false } });
    expect(upd.status).toBe(200);
    expect(upd.body).toMatchObject({ description: 'Main line', is_active: false, name: 'Front desk' });

    expect((await t.call('DELETE', `/api/v1/agents/${created.body.id}`)).status).toBe(204);
    expectError(await t.call('GET', `/api/v1/agents/${created.body.id}`), 404, 'AGENT_NOT_FOUND');
    expectError(await t.call('DELETE', `/api/v1/agents/${created.body.id}`), 404, 'AGENT_NOT_FOUND');
  });

  it('stores the config encrypted', async () => {
    const a = await t.call('POST', '/api/v1/agents', { body: { provider: 'provider_4', name: 'Encrypted', config: p4 } });
    const { rows } = await t.deps.db.executeSql('select * from agents where id = $1', [a.body.id]);
    expect(JSON.stringify(rows)).not.toContain('sk-provider-secret-123');
    expect(rows[0].config_sealed).toMatch(/^v1\./);
  });

  it('validates the body per provider', async () => {
    expectError(await t.call('POST', '/api/v1/agents', { body: { name: 'x', config: {} } }), 400, 'MISSING_REQUIRED_FIELD');
    expectError(await t.call('POST', '/api/v1/agents', { body: { provider: 'provider_4', config: p4 } }), 400, 'MISSING_REQUIRED_FIELD');
    const noConfig = await t.call('POST', '/api/v1/agents', { body: { provider: 'provider_4', name: 'x' } });
    expectError(noConfig, 400, 'MISSING_REQUIRED_FIELD');
    expect(noConfig.body.details.field).toBe('config');
    expectError(await t.call('POST', '/api/v1/agents', { body: { provider: 'provider_4', name: null, config: p4 } }), 400, 'MISSING_REQUIRED_FIELD');
    const badProvider = await t.call('POST', '/api/v1/agents', { body: { provider: 'vapi', name: 'x', config: p4 } });
    expectError(badProvider, 400, 'INVALID_FIELD_VALUE');
    expect(badProvider.body.details.field).toBe('provider');
    const missingCfg = await t.call('POST', '/api/v1/agents', { body: { provider: 'provider_1', name: 'v', config: { api_key: 'k' } } });
    expectError(missingCfg, 400, 'MISSING_REQUIRED_FIELD');
    expect(missingCfg.body.details.field).toBe('config.assistant_id');
    expect(JSON.stringify(missingCfg.body)).not.toContain('"k"');
    const wrongType = await t.call('POST', '/api/v1/agents', { body: { provider: 'provider_1', name: 'v', config: { api_key: 'k', assistant_id: 'a', timeout_ms: 'soon' } } });
    expectError(wrongType, 400, 'INVALID_FIELD_VALUE');
    expect(wrongType.body.details.field).toBe('config.timeout_ms');
    const unknown = await t.call('POST', '/api/v1/agents', { body: { provider: 'provider_4', name: 'x', config: p4, colour: 'red' } });
    expectError(unknown, 400, 'INVALID_FIELD_VALUE');
    expect(unknown.body.details.field).toBe('colour');
    expectError(await t.call('POST', '/api/v1/agents', { body: { provider: 'provider_4', name: 42, config: p4 } }), 400, 'INVALID_FIELD_VALUE');
    expectError(await t.call('POST', '/api/v1/agents', { body: { provider: 'provider_4', name: 'x', config: 'nope' } }), 400, 'INVALID_FIELD_VALUE');
    expectError(await t.call('GET', '/api/v1/agents?provider=nope'), 400, 'INVALID_FIELD_VALUE');
  });

  it('accepts a valid config for every provider', async () => {
    const configs: Record<string, unknown> = {
      provider_1: { api_key: 'k', assistant_id: 'asst_1' },
      provider_2: { url: 'wss://example.livekit.cloud', api_key: 'k', api_secret: 's', agent_name: 'agent' },
      provider_3: { public_api_key: 'pk', agent_name: 'bot' },
      provider_4: p4,
      provider_5: { api_key: 'k', agent_id: 'agent_1' },
      provider_6: { api_key: 'k', agent_id: 'agent_1' },
    };
    for (const [provider, config] of Object.entries(configs)) {
      const res = await t.call('POST', '/api/v1/agents', { body: { provider, name: `any ${provider}`, config } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body.provider).toBe(provider);
    }
  });

  it('names are unique per organization, case-insensitively after trimming', async () => {
    await t.call('POST', '/api/v1/agents', { body: { provider: 'provider_4', name: 'Billing bot', config: p4 } });
    expectError(await t.call('POST', '/api/v1/agents', { body: { provider: 'provider_4', name: '  billing BOT ', config: p4 } }), 409, 'ALREADY_EXISTS');
    const other = await t.newOrg();
    expect((await t.call('POST', '/api/v1/agents', { key: other.key, body: { provider: 'provider_4', name: 'Billing bot', config: p4 } })).status).toBe(201);
    const second = await t.call('POST', '/api/v1/agents', { body: { provider: 'provider_4', name: 'Second', config: p4 } });
    expectError(await t.call('PUT', `/api/v1/agents/${second.body.id}`, { body: { name: 'BILLING bot' } }), 409, 'ALREADY_EXISTS');
  });

  it('provider cannot change; config is re-validated on update', async () => {
    const a = await t.call('POST', '/api/v1/agents', { body: { provider: 'provider_4', name: 'Immutable', config: p4 } });
    expectError(await t.call('PUT', `/api/v1/agents/${a.body.id}`, { body: { provider: 'provider_1' } }), 400, 'INVALID_FIELD_VALUE');
    expect((await t.call('PUT', `/api/v1/agents/${a.body.id}`, { body: { provider: 'provider_4' } })).status).toBe(200);
    const bad = await t.call('PUT', `/api/v1/agents/${a.body.id}`, { body: { config: { model: 'm' } } });
    expectError(bad, 400, 'MISSING_REQUIRED_FIELD');
    expect(bad.body.details.field).toBe('config.base_url');
    const ok = await t.call('PUT', `/api/v1/agents/${a.body.id}`, { body: { config: { base_url: 'http://127.0.0.1:9/v1', model: 'm2' } } });
    expect(ok.body.config_fields).toEqual(['base_url', 'model']);
  });

  it('validate answers 200 with the outcome for an unreachable endpoint', async () => {
    const a = await t.call('POST', '/api/v1/agents', { body: { provider: 'provider_4', name: 'Unreachable', config: { base_url: 'http://127.0.0.1:9/v1', model: 'm' } } });
    const res = await t.call('POST', `/api/v1/agents/${a.body.id}/validate`);
    expect(res.status).toBe(200);
    expect(res.body.valid).toBe(false);
    expect(res.body.details.error_code).toBe('unreachable');
    expectError(await t.call('POST', '/api/v1/agents/00000000-0000-7000-8000-000000000000/validate'), 404, 'AGENT_NOT_FOUND');
  });

  describe('tool_names and tool_aliases', () => {
    const tool = (name: string) => ({ type: 'function', function: { name, parameters: { type: 'object', properties: {} } } });

    it('default: the names in config.tools for provider_4, null elsewhere, aliases {}', async () => {
      const plain = await t.call('POST', '/api/v1/agents', { body: { provider: 'provider_4', name: 'No tools declared', config: p4 } });
      expect(plain.body).toMatchObject({ tool_names: [], tool_aliases: {} });
      const withTools = await t.call('POST', '/api/v1/agents', { body: { provider: 'provider_4', name: 'Tools declared', config: { ...p4, tools: [tool('lookup_order'), tool('refund_payment')] } } });
      expect(withTools.body).toMatchObject({ tool_names: ['lookup_order', 'refund_payment'], tool_aliases: {} });
      const vapi = await t.call('POST', '/api/v1/agents', { body: { provider: 'provider_1', name: 'Platform tools', config: { api_key: 'k', assistant_id: 'a' } } });
      expect(vapi.body).toMatchObject({ tool_names: null, tool_aliases: {} });
      // replacing the config moves a default along with it
      const upd = await t.call('PUT', `/api/v1/agents/${withTools.body.id}`, { body: { config: { ...p4, tools: [tool('book_slot')] } } });
      expect(upd.body.tool_names).toEqual(['book_slot']);
    });

    it('POST and PUT accept them, responses show them, explicit names survive a config change', async () => {
      const created = await t.call('POST', '/api/v1/agents', {
        body: { provider: 'provider_5', name: 'Refunder', config: { api_key: 'k', agent_id: 'a1' }, tool_names: ['refund_payment'], tool_aliases: { issue_refund: 'refund_payment', apply_discount: null } },
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ tool_names: ['refund_payment'], tool_aliases: { issue_refund: 'refund_payment', apply_discount: null } });
      expect((await t.call('GET', `/api/v1/agents/${created.body.id}`)).body.tool_aliases).toEqual({ issue_refund: 'refund_payment', apply_discount: null });

      const p4agent = await t.call('POST', '/api/v1/agents', { body: { provider: 'provider_4', name: 'Explicit', config: { ...p4, tools: [tool('a')] }, tool_names: ['x', 'y'] } });
      expect(p4agent.body.tool_names).toEqual(['x', 'y']);
      const kept = await t.call('PUT', `/api/v1/agents/${p4agent.body.id}`, { body: { config: { ...p4, tools: [tool('b')] } } });
      expect(kept.body.tool_names).toEqual(['x', 'y']);
      const cleared = await t.call('PUT', `/api/v1/agents/${p4agent.body.id}`, { body: { tool_names: null, tool_aliases: { lookup_order: 'find_order' } } });
      expect(cleared.body).toMatchObject({ tool_names: null, tool_aliases: { lookup_order: 'find_order' } });
      const untouched = await t.call('PUT', `/api/v1/agents/${p4agent.body.id}`, { body: { description: 'd' } });
      expect(untouched.body).toMatchObject({ tool_names: null, tool_aliases: { lookup_order: 'find_order' } });
    });

    it('rejects malformed tool fields with 400', async () => {
      const post = (extra: Record<string, unknown>) => t.call('POST', '/api/v1/agents', { body: { provider: 'provider_4', name: `bad ${Math.random()}`, config: p4, ...extra } });
      for (const bad of [{ tool_names: 'refund' }, { tool_names: [''] }, { tool_names: [' '] }, { tool_names: ['a', 'a'] }, { tool_names: [3] },
        { tool_aliases: [] }, { tool_aliases: { issue_refund: 3 } }, { tool_aliases: { issue_refund: '' } }, { tool_aliases: { ' ': 'x' } }, { tool_aliases: null }]) {
        const res = await post(bad);
        expectError(res, 400, 'INVALID_FIELD_VALUE');
        expect(String(res.body.details.field), JSON.stringify(bad)).toMatch(/^tool_(names|aliases)/);
      }
    });
  });

  it('a path id that is not a UUID → AGENT_NOT_FOUND', async () => {
    expectError(await t.call('GET', '/api/v1/agents/abc'), 404, 'AGENT_NOT_FOUND');
    expectError(await t.call('PUT', '/api/v1/agents/abc', { body: { name: 'x' } }), 404, 'AGENT_NOT_FOUND');
  });
});
