import { Type, type Static } from '@sinclair/typebox';
import { DEFAULT_TIMEOUT_MS, httpUrl, jsonObject, secret, stringMap, text, timeoutMs, type PlatformConfig } from './config-kit.js';

export const RetellConfig = Type.Object(
  {
    api_key: secret('Retell API key.'),
    agent_id: text(256, 'Id of a Retell chat agent.'),
    agent_version: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'Agent version to talk to (default: latest).' })),
    metadata: Type.Optional(jsonObject('Stored with each chat at Retell.')),
    dynamic_variables: Type.Optional(stringMap('retell_llm_dynamic_variables (string → string).')),
    base_url: Type.Optional(httpUrl('Retell API base URL.', { default: 'https://api.retellai.com' })),
    timeout_ms: Type.Optional(timeoutMs()),
  },
  { additionalProperties: false, title: 'provider_5 (Retell AI)' },
);
export type RetellConfig = Static<typeof RetellConfig>;
export type ResolvedRetellConfig = RetellConfig & Required<Pick<RetellConfig, 'base_url' | 'timeout_ms'>>;

export const retellConfig: PlatformConfig<typeof RetellConfig> = {
  schema: RetellConfig,
  defaults: { base_url: 'https://api.retellai.com', timeout_ms: DEFAULT_TIMEOUT_MS },
};
