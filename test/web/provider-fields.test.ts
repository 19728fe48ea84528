import { describe, expect, it } from 'vitest';
import { PROVIDERS, providerConfigJsonSchemas } from '../../src/providers/configs.js';
import { buildConfig, PROVIDER_FORMS } from '../../web/src/providerFields.js';

// The dashboard's agent form is driven by a static copy of the provider config fields; this keeps the copy
// honest against the schemas the API validates with.

const kindOf = (s: any): string => {
  if (s.writeOnly) return 'secret';
  if (s.enum) return 'enum';
  if (s.anyOf) return 'json-or-text';
  if (s.type === 'object' || s.type === 'array') return 'json';
  return s.type;
};

describe('dashboard provider form fields', () => {
  it.each(PROVIDERS)('%s: same fields, order, required flags, kinds and enum options as the API schema', (p) => {
    const schema = providerConfigJsonSchemas[p] as any;
    const form = PROVIDER_FORMS[p];
    expect(form.fields.map((f) => f.name)).toEqual(Object.keys(schema.properties));
    for (const f of form.fields) {
      const s = schema.properties[f.name];
      expect(Boolean(f.required), `${p}.${f.name} required`).toBe((schema.required ?? []).includes(f.name));
      const kind = kindOf(s);
      const formKind = { text: 'string', url: 'string', longtext: 'string' }[f.kind as string] ?? f.kind;
      expect(formKind, `${p}.${f.name} kind`).toBe(kind);
      if (f.kind === 'enum') expect(f.options).toEqual(s.enum);
    }
  });

  it('turns the form strings into a config: empty fields left out, numbers and JSON parsed', () => {
    expect(buildConfig('provider_4', {
      base_url: ' http://127.0.0.1:9/v1 ', model: 'm', api_key: '', temperature: '0.2', tools: '[]', system_prompt: '  Be brief.\n',
    })).toEqual({ base_url: 'http://127.0.0.1:9/v1', model: 'm', temperature: 0.2, tools: [], system_prompt: '  Be brief.\n' });
    expect(buildConfig('provider_6', { text_only_override: 'false', region: 'eu' })).toEqual({ text_only_override: false, region: 'eu' });
    expect(buildConfig('provider_2', { dispatch_metadata: 'plain text' })).toEqual({ dispatch_metadata: 'plain text' });
    expect(() => buildConfig('provider_4', { tool_mocks: '{oops' })).toThrow('config.tool_mocks is not valid JSON');
  });
});
