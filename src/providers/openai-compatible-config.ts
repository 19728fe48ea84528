import { Type, type Static } from '@sinclair/typebox';
import { DEFAULT_TIMEOUT_MS, httpUrl, jsonObject, secret, stringMap, text, timeoutMs, TOOL_NAME_PATTERN, type ConfigIssue, type PlatformConfig } from './config-kit.js';

const OpenAiFunctionTool = Type.Object(
  {
    type: Type.Literal('function'),
    function: Type.Object(
      {
        name: Type.String({ pattern: TOOL_NAME_PATTERN, description: 'Function name as the model will call it.' }),
        description: Type.Optional(Type.String({ maxLength: 4096 })),
        parameters: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'JSON Schema of the arguments.' })),
        strict: Type.Optional(Type.Boolean()),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, description: 'An OpenAI function tool: {type:"function", function:{name, description?, parameters?}}.' },
);

export const OpenAiCompatibleConfig = Type.Object(
  {
    base_url: httpUrl('Base URL of the Chat Completions API, e.g. https://api.openai.com/v1 (POST {base_url}/chat/completions).'),
    model: text(256, 'Model name sent with every request.'),
    api_key: Type.Optional(secret('Bearer token; leave out for servers that need none.')),
    system_prompt: Type.Optional(text(100_000, 'System message placed before the conversation.')),
    tools: Type.Optional(Type.Array(OpenAiFunctionTool, { maxItems: 128, description: 'Function tools offered to the model.' })),
    tool_mocks: Type.Optional(jsonObject('Tool name → canned result returned to the model when it calls that tool.', 128)),
    temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 2 })),
    max_completion_tokens: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
    extra_headers: Type.Optional(stringMap('Additional HTTP headers sent with every request (values are treated as secrets).', 50)),
    price_per_1k_input: Type.Optional(Type.Number({ minimum: 0, maximum: 1000, description: 'USD per 1,000 prompt tokens.' })),
    price_per_1k_output: Type.Optional(Type.Number({ minimum: 0, maximum: 1000, description: 'USD per 1,000 completion tokens.' })),
    timeout_ms: Type.Optional(timeoutMs()),
  },
  { additionalProperties: false, title: 'provider_4 (OpenAI-compatible)' },
);
export type OpenAiCompatibleConfig = Static<typeof OpenAiCompatibleConfig>;
export type ResolvedOpenAiCompatibleConfig = OpenAiCompatibleConfig & Required<Pick<OpenAiCompatibleConfig, 'timeout_ms'>>;

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function invalid(field: string, message: string): ConfigIssue[] {
  return [{ kind: 'invalid', field, message }];
}

export const openAiCompatibleConfig: PlatformConfig<typeof OpenAiCompatibleConfig> = {
  schema: OpenAiCompatibleConfig,
  defaults: { timeout_ms: DEFAULT_TIMEOUT_MS },
  fieldIssues(field, value) {
    const path = `config.${field}`;
    if (field === 'extra_headers' && typeof value === 'object' && value !== null) {
      for (const [name, v] of Object.entries(value)) {
        if (!HEADER_NAME.test(name)) return invalid(`${path}.${name}`, `${path}.${name} is not a valid HTTP header name`);
        if (typeof v === 'string' && /[\r\n\0]/.test(v)) return invalid(`${path}.${name}`, `${path}.${name} must not contain line breaks`);
      }
    }
    if (field === 'tools' && Array.isArray(value)) {
      const seen = new Set<string>();
      for (const [i, tool] of value.entries()) {
        const name = (tool as { function: { name: string } }).function.name;
        if (seen.has(name)) return invalid(`${path}.${i}.function.name`, `${path}.${i}.function.name duplicates the tool name "${name}"`);
        seen.add(name);
      }
    }
    return [];
  },
};
