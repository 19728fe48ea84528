import { Type, type Static } from '@sinclair/typebox';
import { DEFAULT_TIMEOUT_MS, E164_PATTERN, httpUrl, jsonObject, oneOfStrings, secret, text, timeoutMs, type ConfigIssue, type PlatformConfig } from './config-kit.js';

export const VapiConfig = Type.Object(
  {
    api_key: secret('Vapi private API key (a public pbk_ key is rejected by the server API).'),
    assistant_id: text(256, 'Id of the Vapi assistant under test.'),
    phone_number: Type.Optional(
      Type.String({
        pattern: E164_PATTERN,
        description: 'Customer number (E.164) for a voice call. Setting it selects mode "call" unless mode says otherwise, and requires phone_number_id.',
      }),
    ),
    phone_number_id: Type.Optional(text(256, 'Id of the Vapi phone-number resource that places the call.')),
    metadata: Type.Optional(jsonObject('Free-form key/value map, passed as assistantOverrides.metadata on calls.')),
    variable_values: Type.Optional(jsonObject('Template variables for the assistant (assistantOverrides.variableValues).')),
    mode: Type.Optional(
      oneOfStrings(['chat', 'call'], 'chat: text turns through the Chat API; call: a voice call (needs phone_number). Default chat, or call when phone_number is set.', 'chat'),
    ),
    base_url: Type.Optional(httpUrl('Vapi API base URL.', { default: 'https://api.vapi.ai' })),
    timeout_ms: Type.Optional(timeoutMs()),
  },
  { additionalProperties: false, title: 'provider_1 (Vapi)' },
);
export type VapiConfig = Static<typeof VapiConfig>;
export type ResolvedVapiConfig = VapiConfig & Required<Pick<VapiConfig, 'mode' | 'base_url' | 'timeout_ms'>>;

export const vapiConfig: PlatformConfig<typeof VapiConfig> = {
  schema: VapiConfig,
  defaults: { base_url: 'https://api.vapi.ai', timeout_ms: DEFAULT_TIMEOUT_MS },
  // A phone number means a voice call unless the mode says otherwise.
  derive(out, given) {
    if (out.mode === undefined) out.mode = given.phone_number !== undefined ? 'call' : 'chat';
  },
  crossFieldIssues(config) {
    const issues: ConfigIssue[] = [];
    if (config.phone_number !== undefined && config.phone_number_id === undefined) {
      issues.push({ kind: 'missing', field: 'config.phone_number_id', message: 'config.phone_number_id is required when config.phone_number is set' });
    }
    if (config.mode === 'call' && config.phone_number === undefined) {
      issues.push({ kind: 'missing', field: 'config.phone_number', message: 'config.phone_number is required when config.mode is "call"' });
    }
    return issues;
  },
};
