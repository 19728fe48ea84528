import { describe, expect, it } from 'vitest';
import { PROVIDERS, configSchemaOf, validateAgentConfig, type ProviderName } from './configs.js';
import { SECRET, minimal, full, requiredFields, catchError, expectError, expectNoSecret } from '../../test/providers/config-fixtures.js';

describe('validateAgentConfig: valid configs', () => {
  for (const p of PROVIDERS) {
    it(`${p}: minimal config passes and reports its fields`, () => {
      const { config, fields } = validateAgentConfig(p, minimal[p]);
      expect(config).toEqual(minimal[p]);
      expect(fields).toEqual(Object.keys(minimal[p]).sort());
    });

    it(`${p}: full config passes (every documented field)`, () => {
      const { config, fields } = validateAgentConfig(p, full[p]);
      expect(config).toEqual(full[p]);
      expect(fields).toEqual(Object.keys(configSchemaOf(p).properties).sort());
    });
  }

  it('returns a copy, not the caller object', () => {
    const input = structuredClone(full.provider_1);
    const { config } = validateAgentConfig('provider_1', input);
    (config.metadata as Record<string, unknown>).team = 'changed';
    expect((input.metadata as Record<string, unknown>).team).toBe('qa');
  });

  it('treats optional fields given as null as not set', () => {
    const { config, fields } = validateAgentConfig('provider_5', { ...minimal.provider_5, metadata: null, agent_version: null });
    expect(config).toEqual(minimal.provider_5);
    expect(fields).toEqual(['agent_id', 'api_key']);
  });

  it('accepts ws:// and wss:// and http(s):// for the LiveKit url', () => {
    for (const url of ['ws://localhost:7880', 'wss://x.livekit.cloud', 'http://localhost:7880', 'HTTPS://x.livekit.cloud']) {
      expect(() => validateAgentConfig('provider_2', { ...minimal.provider_2, url })).not.toThrow();
    }
  });

  it('accepts a LiveKit dispatch_metadata string', () => {
    expect(() => validateAgentConfig('provider_2', { ...minimal.provider_2, dispatch_metadata: '{"a":1}' })).not.toThrow();
  });

  it('provider_1: phone_number with its id and no mode is valid', () => {
    expect(() => validateAgentConfig('provider_1', { ...minimal.provider_1, phone_number: '+442071838750', phone_number_id: 'pn' })).not.toThrow();
  });

  it('provider_4: api_key is optional (local servers)', () => {
    expect(validateAgentConfig('provider_4', minimal.provider_4).fields).toEqual(['base_url', 'model']);
  });
});

describe('validateAgentConfig: missing fields', () => {
  for (const p of PROVIDERS) {
    for (const field of requiredFields[p]) {
      it(`${p}: ${field} absent → MISSING_REQUIRED_FIELD config.${field}`, () => {
        const config = { ...minimal[p] };
        delete config[field];
        const err = expectError(p, config, 'MISSING_REQUIRED_FIELD', `config.${field}`);
        expect(err.message).toBe(`config.${field} is required`);
        expectNoSecret(err);
      });

      it(`${p}: ${field} null → MISSING_REQUIRED_FIELD config.${field}`, () => {
        expectError(p, { ...minimal[p], [field]: null }, 'MISSING_REQUIRED_FIELD', `config.${field}`);
      });
    }

    it(`${p}: empty object → first required field in schema order`, () => {
      expectError(p, {}, 'MISSING_REQUIRED_FIELD', `config.${requiredFields[p][0]}`);
    });
  }

  it('reports a missing field before an invalid one', () => {
    expectError('provider_1', { api_key: SECRET, timeout_ms: 'soon', bogus: 1 }, 'MISSING_REQUIRED_FIELD', 'config.assistant_id');
  });

  it('provider_1: phone_number without phone_number_id → MISSING config.phone_number_id', () => {
    const err = expectError('provider_1', { ...minimal.provider_1, phone_number: '+14155550123' }, 'MISSING_REQUIRED_FIELD', 'config.phone_number_id');
    expect(err.message).toContain('config.phone_number');
  });

  it('provider_1: mode "call" without phone_number → MISSING config.phone_number', () => {
    expectError('provider_1', { ...minimal.provider_1, mode: 'call' }, 'MISSING_REQUIRED_FIELD', 'config.phone_number');
  });

  it('provider_1: mode "chat" needs no phone number', () => {
    expect(() => validateAgentConfig('provider_1', { ...minimal.provider_1, mode: 'chat' })).not.toThrow();
  });

  it('nested required property → MISSING with the dotted path', () => {
    expectError('provider_4', { ...minimal.provider_4, tools: [{ type: 'function', function: {} }] }, 'MISSING_REQUIRED_FIELD', 'config.tools.0.function.name');
  });
});

describe('validateAgentConfig: invalid values', () => {
  it.each([null, [], 'config', 42, true])('config %j is not an object → INVALID_FIELD_VALUE config', (config) => {
    const err = expectError('provider_1', config, 'INVALID_FIELD_VALUE', 'config');
    expect(err.message).toBe('config must be an object');
  });

  it('rejects an unknown provider', () => {
    const err = catchError(() => validateAgentConfig('provider_9' as ProviderName, {}));
    expect(err.code).toBe('INVALID_FIELD_VALUE');
    expect(err.details?.field).toBe('provider');
  });

  const cases: [ProviderName, string, unknown, string][] = [
    // wrong types
    ['provider_1', 'assistant_id', 123, 'config.assistant_id'],
    ['provider_1', 'timeout_ms', '120000', 'config.timeout_ms'],
    ['provider_1', 'timeout_ms', 1500.5, 'config.timeout_ms'],
    ['provider_1', 'metadata', 'x', 'config.metadata'],
    ['provider_1', 'metadata', [1, 2], 'config.metadata'],
    ['provider_2', 'reply_idle_ms', true, 'config.reply_idle_ms'],
    ['provider_2', 'dispatch_metadata', 5, 'config.dispatch_metadata'],
    ['provider_3', 'body', 'x', 'config.body'],
    ['provider_4', 'tools', { name: 'x' }, 'config.tools'],
    ['provider_4', 'tools', [{ type: 'tool', function: { name: 'x' } }], 'config.tools.0.type'],
    ['provider_4', 'tools', [{ type: 'function', function: { name: 'has space' } }], 'config.tools.0.function.name'],
    ['provider_4', 'tools', [{ type: 'function', function: { name: 'x', parameters: 'no' } }], 'config.tools.0.function.parameters'],
    ['provider_4', 'tools', [{ type: 'function', function: { name: 'x', extra: 1 } }], 'config.tools.0.function.extra'],
    ['provider_4', 'tools', [{ type: 'function', function: { name: 'x' } }, { type: 'function', function: { name: 'x' } }], 'config.tools.1.function.name'],
    ['provider_4', 'tool_mocks', ['x'], 'config.tool_mocks'],
    ['provider_4', 'extra_headers', { 'X-A': 1 }, 'config.extra_headers.X-A'],
    ['provider_4', 'extra_headers', { 'bad header': 'v' }, 'config.extra_headers.bad header'],
    ['provider_5', 'dynamic_variables', { a: 1 }, 'config.dynamic_variables.a'],
    ['provider_5', 'agent_version', -1, 'config.agent_version'],
    ['provider_6', 'text_only_override', 'yes', 'config.text_only_override'],
    ['provider_6', 'dynamic_variables', { a: { b: 1 } }, 'config.dynamic_variables.a'],
    ['provider_6', 'client_tool_results', 'x', 'config.client_tool_results'],
    // ranges and bounds
    ['provider_1', 'timeout_ms', 999, 'config.timeout_ms'],
    ['provider_1', 'timeout_ms', 600_001, 'config.timeout_ms'],
    ['provider_2', 'cost_per_minute_usd', -0.01, 'config.cost_per_minute_usd'],
    ['provider_3', 'cost_per_minute_usd', -1, 'config.cost_per_minute_usd'],
    ['provider_4', 'price_per_1k_input', -1, 'config.price_per_1k_input'],
    ['provider_4', 'price_per_1k_output', -1, 'config.price_per_1k_output'],
    ['provider_4', 'temperature', 3, 'config.temperature'],
    ['provider_4', 'max_completion_tokens', 0, 'config.max_completion_tokens'],
    ['provider_6', 'post_call_poll_ms', 10, 'config.post_call_poll_ms'],
    ['provider_1', 'assistant_id', '', 'config.assistant_id'],
    ['provider_1', 'assistant_id', '   ', 'config.assistant_id'],
    ['provider_1', 'assistant_id', 'x'.repeat(257), 'config.assistant_id'],
    ['provider_3', 'body', { blob: 'x'.repeat(5000) }, 'config.body'],
    // enums
    ['provider_1', 'mode', 'voice', 'config.mode'],
    ['provider_3', 'transport', 'daily', 'config.transport'],
    ['provider_3', 'serializer', 'json', 'config.serializer'],
    ['provider_6', 'region', 'asia', 'config.region'],
    // formats
    ['provider_1', 'base_url', 'api.vapi.ai', 'config.base_url'],
    ['provider_1', 'base_url', 'ftp://api.vapi.ai', 'config.base_url'],
    ['provider_2', 'url', 'demo.livekit.cloud', 'config.url'],
    ['provider_2', 'url', 'ftp://demo.livekit.cloud', 'config.url'],
    ['provider_2', 'base_url', 'wss://demo.livekit.cloud', 'config.base_url'],
    ['provider_3', 'base_url', '/relative', 'config.base_url'],
    ['provider_4', 'base_url', 'localhost:8080/v1', 'config.base_url'],
    ['provider_4', 'base_url', 'https://user:pw@example.com/v1', 'config.base_url'],
    ['provider_4', 'base_url', 'https://example.com/v1?key=abc', 'config.base_url'],
    ['provider_5', 'base_url', 'http://', 'config.base_url'],
    ['provider_6', 'base_url', 'https://exa mple.com', 'config.base_url'],
    // unknown fields
    ['provider_1', 'assistantId', 'asst', 'config.assistantId'],
    ['provider_2', 'room', 'x', 'config.room'],
    ['provider_3', 'api_key', SECRET, 'config.api_key'],
    ['provider_4', 'prompt', 'x', 'config.prompt'],
    ['provider_5', 'llm_id', 'x', 'config.llm_id'],
    ['provider_6', 'voice_id', 'x', 'config.voice_id'],
  ];

  it.each(cases)('%s: %s = %j → INVALID_FIELD_VALUE %s', (provider, field, value, path) => {
    const err = expectError(provider, { ...minimal[provider], [field]: value }, 'INVALID_FIELD_VALUE', path);
    expect(err.message.startsWith(path)).toBe(true);
    expectNoSecret(err);
  });

  it('provider_1: a phone number that is not E.164 → INVALID config.phone_number', () => {
    for (const phone_number of ['4155550123', '+0123', '+1 415 555 0123', '+1234567890123456']) {
      expectError('provider_1', { ...minimal.provider_1, phone_number, phone_number_id: 'pn' }, 'INVALID_FIELD_VALUE', 'config.phone_number');
    }
  });

  it('writes readable messages', () => {
    expect(catchError(() => validateAgentConfig('provider_1', { ...minimal.provider_1, timeout_ms: 5 })).message).toBe(
      'config.timeout_ms must be an integer between 1000 and 600000',
    );
    expect(catchError(() => validateAgentConfig('provider_6', { ...minimal.provider_6, region: 'asia' })).message).toBe(
      'config.region must be one of: global, us, eu, in, sg',
    );
    expect(catchError(() => validateAgentConfig('provider_1', { ...minimal.provider_1, base_url: 'nope' })).message).toBe(
      'config.base_url must be an absolute http(s) URL',
    );
    expect(catchError(() => validateAgentConfig('provider_2', { ...minimal.provider_2, dispatch_metadata: 1 })).message).toBe(
      'config.dispatch_metadata must be a string or an object',
    );
    expect(catchError(() => validateAgentConfig('provider_1', { ...minimal.provider_1, asistant: 'x' })).message).toBe(
      'config.asistant is not a recognised field for provider_1 (Vapi)',
    );
  });

  it('echoes safe values (numbers, enum strings) in details.value', () => {
    expect(catchError(() => validateAgentConfig('provider_1', { ...minimal.provider_1, mode: 'voice' })).details).toEqual({
      field: 'config.mode',
      value: 'voice',
    });
    expect(catchError(() => validateAgentConfig('provider_1', { ...minimal.provider_1, timeout_ms: 5 })).details).toEqual({
      field: 'config.timeout_ms',
      value: 5,
    });
    // free-form strings are not echoed: they could be anything the user pasted
    expect(catchError(() => validateAgentConfig('provider_1', { ...minimal.provider_1, base_url: 'nope' })).details).toEqual({
      field: 'config.base_url',
    });
  });
});

describe('validateAgentConfig: secrets never leak', () => {
  const leaks: [ProviderName, Record<string, unknown>, string][] = [
    ['provider_1', { api_key: 42_424_242, assistant_id: 'a' }, 'config.api_key'],
    ['provider_1', { api_key: ['SECRET'], assistant_id: 'a' }, 'config.api_key'],
    ['provider_1', { api_key: 'SECRET'.repeat(1000), assistant_id: 'a' }, 'config.api_key'],
    ['provider_1', { api_key: true, assistant_id: 'a' }, 'config.api_key'],
    ['provider_2', { ...minimal.provider_2, api_secret: { SECRET } }, 'config.api_secret'],
    ['provider_3', { ...minimal.provider_3, private_api_key: 7 }, 'config.private_api_key'],
    ['provider_3', { public_api_key: 12345, agent_name: 'x' }, 'config.public_api_key'],
    ['provider_4', { ...minimal.provider_4, api_key: 99 }, 'config.api_key'],
    ['provider_4', { ...minimal.provider_4, extra_headers: { Authorization: `Bearer ${SECRET}\r\n` } }, 'config.extra_headers.Authorization'],
    ['provider_4', { ...minimal.provider_4, extra_headers: { Authorization: 12 } }, 'config.extra_headers.Authorization'],
    ['provider_5', { ...minimal.provider_5, apiKey: SECRET }, 'config.apiKey'],
    ['provider_6', { ...minimal.provider_6, xi_api_key: 1234 }, 'config.xi_api_key'],
  ];

  it.each(leaks)('%s → %s without the value', (provider, config, field) => {
    const err = expectError(provider, config, 'INVALID_FIELD_VALUE', field);
    expect(err.details).not.toHaveProperty('value');
    expectNoSecret(err);
    expect(JSON.stringify(err.details)).not.toMatch(/4242|12345|99|1234/);
  });

  it('missing-field errors carry no values either', () => {
    const err = expectError('provider_2', { url: 'wss://x.livekit.cloud', api_key: SECRET, agent_name: 'a' }, 'MISSING_REQUIRED_FIELD', 'config.api_secret');
    expect(err.details).toEqual({ field: 'config.api_secret' });
    expectNoSecret(err);
  });
});
