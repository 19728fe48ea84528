import { describe, expect, it } from 'vitest';
import { Value } from '@sinclair/typebox/value';
import { PROVIDERS, providerConfigJsonSchema, providerConfigJsonSchemas, configSchemaOf } from './configs.js';
import { full, requiredFields } from '../../test/providers/config-fixtures.js';

describe('JSON Schema for the OpenAPI document', () => {
  it('is plain JSON with one documented schema per provider', () => {
    const json = JSON.parse(JSON.stringify(providerConfigJsonSchema));
    expect(json).toEqual(providerConfigJsonSchema);
    expect(json.oneOf).toHaveLength(6);
    for (const [i, p] of PROVIDERS.entries()) {
      expect(json.oneOf[i].title).toContain(p);
      expect(json.oneOf[i].required).toEqual(requiredFields[p]);
      expect(json.oneOf[i].additionalProperties).toBe(false);
      expect(Object.keys(json.oneOf[i].properties)).toContain('base_url');
    }
    const text = JSON.stringify(json);
    expect(text).not.toContain('"const"');
    expect(text).not.toContain('patternProperties');
  });

  it('carries enums and defaults', () => {
    const vapi = providerConfigJsonSchemas.provider_1 as { properties: Record<string, Record<string, unknown>> };
    expect(vapi.properties.mode).toMatchObject({ type: 'string', enum: ['chat', 'call'], default: 'chat' });
    expect(vapi.properties.timeout_ms).toMatchObject({ type: 'integer', minimum: 1000, maximum: 600000, default: 120000 });
    const el = providerConfigJsonSchemas.provider_6 as { properties: Record<string, Record<string, unknown>> };
    expect(el.properties.region).toMatchObject({ enum: ['global', 'us', 'eu', 'in', 'sg'], default: 'global' });
    expect(el.properties.client_tool_results).toMatchObject({ type: 'object', additionalProperties: {} });
  });

  it('TypeBox schemas accept the full configs directly', () => {
    for (const p of PROVIDERS) expect(Value.Check(configSchemaOf(p), full[p])).toBe(true);
  });
});
