import { Type, type Static, type TObject, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import { AppError, invalidField, missingField } from '../http/errors.js';

// Agent config per provider (decisions §4, providers.md §11). One TypeBox schema per provider is the single
// source for validation, the OpenAPI document and the TypeScript types. Validation goes through
// `validateAgentConfig`, which maps every problem to MISSING_REQUIRED_FIELD / INVALID_FIELD_VALUE with a
// `config.<path>` field and never echoes a credential.

export const PROVIDERS = ['provider_1', 'provider_2', 'provider_3', 'provider_4', 'provider_5', 'provider_6'] as const;
export type ProviderName = (typeof PROVIDERS)[number];

/** The platform behind each neutral provider value (decisions §4). */
export const PROVIDER_PLATFORMS: Record<ProviderName, string> = {
  provider_1: 'Vapi',
  provider_2: 'LiveKit Agents',
  provider_3: 'Pipecat Cloud',
  provider_4: 'OpenAI-compatible Chat Completions',
  provider_5: 'Retell AI',
  provider_6: 'ElevenLabs Agents',
};

export function isProviderName(value: unknown): value is ProviderName {
  return typeof value === 'string' && (PROVIDERS as readonly string[]).includes(value);
}

/** Config fields that hold credentials: their values never appear in errors, logs or responses. */
export const SECRET_CONFIG_FIELDS: ReadonlySet<string> = new Set(['api_key', 'api_secret', 'private_api_key', 'public_api_key']);
/** Fields whose values may carry credentials even though they are not credentials by name. */
const SENSITIVE_FIELDS: ReadonlySet<string> = new Set([...SECRET_CONFIG_FIELDS, 'extra_headers']);

export const DEFAULT_TIMEOUT_MS = 120_000;

// ---------------------------------------------------------------------------------------------------------
// Building blocks
// ---------------------------------------------------------------------------------------------------------

const HTTP_URL_PATTERN = '^[hH][tT][tT][pP][sS]?://\\S+$';
const WS_OR_HTTP_URL_PATTERN = '^([wW][sS][sS]?|[hH][tT][tT][pP][sS]?)://\\S+$';
const E164_PATTERN = '^\\+[1-9][0-9]{1,14}$';
const TOOL_NAME_PATTERN = '^[a-zA-Z0-9_-]{1,64}$';

const PATTERN_HINTS: Record<string, string> = {
  [HTTP_URL_PATTERN]: 'must be an absolute http(s) URL',
  [WS_OR_HTTP_URL_PATTERN]: 'must be an absolute wss://, ws://, https:// or http:// URL',
  [E164_PATTERN]: 'must be an E.164 phone number such as +14155550123',
  [TOOL_NAME_PATTERN]: 'must be 1-64 characters of letters, digits, "_" or "-"',
};

const secret = (description: string) => Type.String({ minLength: 1, maxLength: 4096, description, writeOnly: true });
const text = (maxLength: number, description: string, extra: Record<string, unknown> = {}) =>
  Type.String({ minLength: 1, maxLength, description, ...extra });
const httpUrl = (description: string, extra: Record<string, unknown> = {}) =>
  Type.String({ minLength: 1, maxLength: 2048, pattern: HTTP_URL_PATTERN, description, ...extra });
const jsonObject = (description: string, maxProperties = 100) =>
  Type.Record(Type.String(), Type.Unknown(), { maxProperties, description });
const stringMap = (description: string, maxProperties = 100) =>
  Type.Record(Type.String(), Type.String({ maxLength: 10_000 }), { maxProperties, description });
const oneOfStrings = <T extends string>(values: readonly [T, ...T[]], description: string, defaultValue?: T) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    defaultValue === undefined ? { description } : { description, default: defaultValue },
  );
const timeoutMs = () =>
  Type.Integer({
    minimum: 1000,
    maximum: 600_000,
    default: DEFAULT_TIMEOUT_MS,
    description: 'Upper bound for one whole conversation, in milliseconds.',
  });
const costPerMinute = () =>
  Type.Number({
    minimum: 0,
    maximum: 1000,
    description: 'Your rate in USD per minute of conversation; cost_usd is estimated as duration × rate (null when unset).',
  });

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

// ---------------------------------------------------------------------------------------------------------
// Schemas (field order = the order in which missing required fields are reported)
// ---------------------------------------------------------------------------------------------------------

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

export const LiveKitConfig = Type.Object(
  {
    url: Type.String({
      minLength: 1,
      maxLength: 2048,
      pattern: WS_OR_HTTP_URL_PATTERN,
      description: 'LiveKit project URL, e.g. wss://my-project.livekit.cloud.',
    }),
    api_key: secret('LiveKit API key.'),
    api_secret: secret('LiveKit API secret (signs the access tokens).'),
    agent_name: text(256, 'agent_name the agent worker registered with (explicit dispatch).'),
    room_prefix: Type.Optional(text(64, 'Prefix of the rooms created for test conversations.', { default: 'test-' })),
    dispatch_metadata: Type.Optional(
      Type.Union([Type.String({ maxLength: 65_536 }), jsonObject('JSON metadata (sent serialised).')], {
        description: 'Metadata given to the agent dispatch: a string, or an object sent as JSON.',
      }),
    ),
    participant_identity: Type.Optional(text(128, 'Identity of the simulated user in the room.', { default: 'sim-user' })),
    input_topic: Type.Optional(text(128, 'Text-stream topic the agent reads user text from.', { default: 'lk.chat' })),
    output_topic: Type.Optional(text(128, 'Text-stream topic the agent writes its replies to.', { default: 'lk.transcription' })),
    tool_events_topic: Type.Optional(text(128, 'Topic on which the agent publishes its tool calls as JSON (only if it does).')),
    reply_idle_ms: Type.Optional(
      Type.Integer({ minimum: 100, maximum: 60_000, default: 1500, description: 'Quiet time after which the agent turn counts as complete.' }),
    ),
    cost_per_minute_usd: Type.Optional(costPerMinute()),
    base_url: Type.Optional(httpUrl('HTTP base URL of the server API (Twirp). Default: url with ws(s) replaced by http(s).')),
    timeout_ms: Type.Optional(timeoutMs()),
  },
  { additionalProperties: false, title: 'provider_2 (LiveKit Agents)' },
);
export type LiveKitConfig = Static<typeof LiveKitConfig>;

export const PipecatCloudConfig = Type.Object(
  {
    public_api_key: secret('Pipecat Cloud public key (pk_...), used to start sessions.'),
    agent_name: text(256, 'Name of the deployed agent.'),
    private_api_key: Type.Optional(secret('Pipecat Cloud private key: enables the credential check and session details.')),
    transport: Type.Optional(oneOfStrings(['websocket'], 'Session transport. Text tests run over the websocket transport.', 'websocket')),
    body: Type.Optional(jsonObject('Object passed to the bot at session start (at most 4 KB as JSON on the websocket transport).')),
    serializer: Type.Optional(oneOfStrings(['protobuf'], "Frame serializer of the bot (Pipecat's ProtobufFrameSerializer).", 'protobuf')),
    cost_per_minute_usd: Type.Optional(costPerMinute()),
    base_url: Type.Optional(httpUrl('Pipecat Cloud API base URL.', { default: 'https://api.pipecat.daily.co' })),
    timeout_ms: Type.Optional(timeoutMs()),
  },
  { additionalProperties: false, title: 'provider_3 (Pipecat Cloud)' },
);
export type PipecatCloudConfig = Static<typeof PipecatCloudConfig>;

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

export const ElevenLabsConfig = Type.Object(
  {
    api_key: secret('ElevenLabs API key (xi-api-key).'),
    agent_id: text(256, 'Id of the ElevenLabs agent.'),
    text_only_override: Type.Optional(
      Type.Boolean({ default: true, description: 'Ask for a text-only conversation (the override must be allowed in the agent settings).' }),
    ),
    dynamic_variables: Type.Optional(
      Type.Record(Type.String(), Type.Union([Type.String({ maxLength: 10_000 }), Type.Number(), Type.Boolean()]), {
        maxProperties: 100,
        description: 'Dynamic variables (string, number or boolean values).',
      }),
    ),
    first_message: Type.Optional(text(10_000, 'Overrides the agent first message.')),
    prompt_override: Type.Optional(text(100_000, 'Overrides the agent system prompt.')),
    region: Type.Optional(oneOfStrings(['global', 'us', 'eu', 'in'], 'Data-residency region; selects the default base_url.', 'global')),
    client_tool_results: Type.Optional(jsonObject('Client tool name → canned result sent back when the agent calls it.', 128)),
    post_call_poll_ms: Type.Optional(
      Type.Integer({ minimum: 100, maximum: 60_000, default: 2000, description: 'Poll interval while the conversation record is processing.' }),
    ),
    post_call_timeout_ms: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 600_000, default: 60_000, description: 'How long to wait for the finished conversation record (cost, metrics).' }),
    ),
    base_url: Type.Optional(httpUrl('ElevenLabs API base URL. Default depends on region.')),
    timeout_ms: Type.Optional(timeoutMs()),
  },
  { additionalProperties: false, title: 'provider_6 (ElevenLabs Agents)' },
);
export type ElevenLabsConfig = Static<typeof ElevenLabsConfig>;

export const providerConfigSchemas = {
  provider_1: VapiConfig,
  provider_2: LiveKitConfig,
  provider_3: PipecatCloudConfig,
  provider_4: OpenAiCompatibleConfig,
  provider_5: RetellConfig,
  provider_6: ElevenLabsConfig,
} as const satisfies Record<ProviderName, TObject>;

export interface ProviderConfigs {
  provider_1: VapiConfig;
  provider_2: LiveKitConfig;
  provider_3: PipecatCloudConfig;
  provider_4: OpenAiCompatibleConfig;
  provider_5: RetellConfig;
  provider_6: ElevenLabsConfig;
}

/** A config after `configWithDefaults`: every documented default is present. */
export interface ResolvedProviderConfigs {
  provider_1: VapiConfig & Required<Pick<VapiConfig, 'mode' | 'base_url' | 'timeout_ms'>>;
  provider_2: LiveKitConfig &
    Required<Pick<LiveKitConfig, 'room_prefix' | 'participant_identity' | 'input_topic' | 'output_topic' | 'reply_idle_ms' | 'base_url' | 'timeout_ms'>>;
  provider_3: PipecatCloudConfig & Required<Pick<PipecatCloudConfig, 'transport' | 'serializer' | 'base_url' | 'timeout_ms'>>;
  provider_4: OpenAiCompatibleConfig & Required<Pick<OpenAiCompatibleConfig, 'timeout_ms'>>;
  provider_5: RetellConfig & Required<Pick<RetellConfig, 'base_url' | 'timeout_ms'>>;
  provider_6: ElevenLabsConfig &
    Required<Pick<ElevenLabsConfig, 'text_only_override' | 'region' | 'post_call_poll_ms' | 'post_call_timeout_ms' | 'base_url' | 'timeout_ms'>>;
}

// ---------------------------------------------------------------------------------------------------------
// Validation
// ---------------------------------------------------------------------------------------------------------

interface Issue {
  kind: 'missing' | 'invalid';
  field: string;
  message: string;
  value?: unknown;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null);

const hasOwn = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);

function pointerToDots(pointer: string): string {
  if (pointer === '') return '';
  return pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
}

const listOr = (items: string[]) => (items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`);
const article = (noun: string) => (/^("|one of )/.test(noun) ? noun : /^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`);

function isEnumSchema(schema: TSchema): schema is TSchema & { anyOf: { const: unknown }[] } {
  return Array.isArray(schema.anyOf) && schema.anyOf.length > 0 && schema.anyOf.every((s: TSchema) => 'const' in s);
}

function typeNoun(schema: TSchema): string {
  if ('const' in schema) return JSON.stringify(schema.const);
  if (isEnumSchema(schema)) return `one of ${schema.anyOf.map((s) => String(s.const)).join(', ')}`;
  if (schema.patternProperties) return 'object';
  return typeof schema.type === 'string' ? schema.type : 'value';
}

function describeNumber(schema: TSchema): string {
  const noun = schema.type === 'integer' ? 'an integer' : 'a number';
  const { minimum, maximum } = schema as { minimum?: number; maximum?: number };
  if (minimum !== undefined && maximum !== undefined) return `must be ${noun} between ${minimum} and ${maximum}`;
  if (minimum !== undefined) return `must be ${noun} greater than or equal to ${minimum}`;
  if (maximum !== undefined) return `must be ${noun} less than or equal to ${maximum}`;
  return `must be ${noun}`;
}

function describeError(e: ValueError): string {
  const s = e.schema;
  switch (e.type) {
    case ValueErrorType.String:
      return 'must be a string';
    case ValueErrorType.Boolean:
      return 'must be true or false';
    case ValueErrorType.Object:
      return 'must be an object';
    case ValueErrorType.Array:
      return 'must be an array';
    case ValueErrorType.Literal:
      return `must be ${JSON.stringify(s.const)}`;
    case ValueErrorType.Union:
      if (isEnumSchema(s)) return `must be one of: ${s.anyOf.map((m) => String(m.const)).join(', ')}`;
      return `must be ${listOr((s.anyOf as TSchema[]).map((m) => article(typeNoun(m))))}`;
    case ValueErrorType.Number:
    case ValueErrorType.Integer:
    case ValueErrorType.NumberMinimum:
    case ValueErrorType.NumberMaximum:
    case ValueErrorType.IntegerMinimum:
    case ValueErrorType.IntegerMaximum:
    case ValueErrorType.NumberExclusiveMinimum:
    case ValueErrorType.NumberExclusiveMaximum:
    case ValueErrorType.IntegerExclusiveMinimum:
    case ValueErrorType.IntegerExclusiveMaximum:
      return describeNumber(s);
    case ValueErrorType.StringMinLength:
      return s.minLength === 1 ? 'must not be empty' : `must be at least ${s.minLength} characters long`;
    case ValueErrorType.StringMaxLength:
      return `must be at most ${s.maxLength} characters long`;
    case ValueErrorType.StringPattern:
      return PATTERN_HINTS[s.pattern as string] ?? 'has an invalid format';
    case ValueErrorType.ObjectAdditionalProperties:
      return 'is not a recognised field';
    case ValueErrorType.ObjectMaxProperties:
      return `must have at most ${s.maxProperties} entries`;
    case ValueErrorType.ArrayMaxItems:
      return `must have at most ${s.maxItems} items`;
    case ValueErrorType.ArrayMinItems:
      return `must have at least ${s.minItems} items`;
    default:
      return 'is invalid';
  }
}

/** Only values that cannot be a credential are echoed back: numbers, booleans and enum strings. */
function safeValue(topLevelField: string, e: ValueError): unknown {
  if (SENSITIVE_FIELDS.has(topLevelField)) return undefined;
  if (e.type === ValueErrorType.ObjectAdditionalProperties) return undefined;
  const v = e.value;
  if (typeof v === 'number' || typeof v === 'boolean') return v;
  if (typeof v === 'string' && v.length <= 100 && (isEnumSchema(e.schema) || 'const' in e.schema)) return v;
  return undefined;
}

function issueFromValueError(field: string, e: ValueError): Issue {
  const sub = pointerToDots(e.path);
  const path = sub ? `config.${field}.${sub}` : `config.${field}`;
  if (e.type === ValueErrorType.ObjectRequiredProperty) return { kind: 'missing', field: path, message: `${path} is required` };
  const value = safeValue(field, e);
  return { kind: 'invalid', field: path, message: `${path} ${describeError(e)}`, ...(value === undefined ? {} : { value }) };
}

/** Checks JSON Schema cannot express (or not readably): URL structure, header syntax, sizes, uniqueness. */
function extraFieldIssues(provider: ProviderName, field: string, value: unknown): Issue[] {
  const path = `config.${field}`;
  const invalid = (message: string, at = path): Issue[] => [{ kind: 'invalid', field: at, message }];

  if (typeof value === 'string' && value.trim() === '') return invalid(`${path} must not be blank`);

  if ((field === 'base_url' || field === 'url') && typeof value === 'string') {
    let u: URL;
    try {
      u = new URL(value);
    } catch {
      return invalid(`${path} must be an absolute URL`);
    }
    if (!u.hostname) return invalid(`${path} must include a host`);
    if (u.username || u.password) return invalid(`${path} must not contain credentials; use the key fields instead`);
    if (u.search || u.hash || value.includes('?') || value.includes('#')) return invalid(`${path} must not contain a query string or fragment`);
  }

  if (field === 'extra_headers' && isPlainObject(value)) {
    for (const [name, v] of Object.entries(value)) {
      if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) return invalid(`${path}.${name} is not a valid HTTP header name`, `${path}.${name}`);
      if (typeof v === 'string' && /[\r\n\0]/.test(v)) return invalid(`${path}.${name} must not contain line breaks`, `${path}.${name}`);
    }
  }

  if (field === 'tools' && Array.isArray(value)) {
    const seen = new Set<string>();
    for (const [i, tool] of value.entries()) {
      const name = (tool as { function: { name: string } }).function.name;
      if (seen.has(name)) return invalid(`${path}.${i}.function.name duplicates the tool name "${name}"`, `${path}.${i}.function.name`);
      seen.add(name);
    }
  }

  if (provider === 'provider_3' && field === 'body') {
    const bytes = Buffer.byteLength(JSON.stringify(value), 'utf8');
    if (bytes > 4096) return invalid(`${path} must be at most 4096 bytes as JSON on the websocket transport (got ${bytes})`);
  }

  return [];
}

/** Requirements that depend on other fields. Run after the presence checks, before type errors are reported. */
function crossFieldIssues(provider: ProviderName, config: Record<string, unknown>): Issue[] {
  const issues: Issue[] = [];
  if (provider === 'provider_1') {
    if (config.phone_number !== undefined && config.phone_number_id === undefined) {
      issues.push({
        kind: 'missing',
        field: 'config.phone_number_id',
        message: 'config.phone_number_id is required when config.phone_number is set',
      });
    }
    if (config.mode === 'call' && config.phone_number === undefined) {
      issues.push({ kind: 'missing', field: 'config.phone_number', message: 'config.phone_number is required when config.mode is "call"' });
    }
  }
  return issues;
}

function toAppError(issue: Issue): AppError {
  if (issue.kind === 'missing') {
    const err = missingField(issue.field);
    return issue.message === err.message ? err : new AppError('MISSING_REQUIRED_FIELD', issue.message, { details: { field: issue.field } });
  }
  return invalidField(issue.field, issue.message, issue.value);
}

/**
 * Validates an agent config for `provider`.
 *
 * - Not an object → INVALID_FIELD_VALUE `config`.
 * - A required field absent or null → MISSING_REQUIRED_FIELD `config.<name>` (the first one in schema order;
 *   missing fields are reported before any invalid one). Conditional requirements (provider_1 phone_number →
 *   phone_number_id, mode "call" → phone_number) are reported the same way.
 * - Wrong type, out of range, bad enum, bad URL, unknown field → INVALID_FIELD_VALUE `config.<path>` (nested
 *   paths joined with dots, array indexes as numbers, e.g. `config.tools.0.function.name`).
 * - An optional field given as null counts as not set.
 * - `details.value` is only ever a number, a boolean or an enum string; credentials are never echoed.
 *
 * Returns a copy of the config without the null fields (defaults are NOT applied: see `configWithDefaults`),
 * and `fields`, the sorted names of the top-level fields that are set (shown as `config_fields`).
 */
export function validateAgentConfig(provider: ProviderName, config: unknown): { config: Record<string, unknown>; fields: string[] } {
  if (!isProviderName(provider)) {
    const given: unknown = provider;
    throw invalidField('provider', `provider must be one of: ${PROVIDERS.join(', ')}`, typeof given === 'string' && given.length <= 100 ? given : undefined);
  }
  if (!isPlainObject(config)) throw invalidField('config', 'config must be an object');

  const schema: TObject = providerConfigSchemas[provider];
  const required = new Set<string>(schema.required ?? []);
  const issues: Issue[] = [];
  const set: Record<string, unknown> = {};

  for (const field of Object.keys(schema.properties)) {
    const value = hasOwn(config, field) ? config[field] : undefined;
    if (value === undefined || value === null) {
      if (required.has(field)) issues.push({ kind: 'missing', field: `config.${field}`, message: `config.${field} is required` });
      continue;
    }
    set[field] = value;
  }
  issues.push(...crossFieldIssues(provider, set));

  for (const [field, value] of Object.entries(set)) {
    const fieldIssues = [...Value.Errors(schema.properties[field], value)].map((e) => issueFromValueError(field, e));
    issues.push(...(fieldIssues.length > 0 ? fieldIssues : extraFieldIssues(provider, field, value)));
  }

  for (const field of Object.keys(config)) {
    if (!hasOwn(schema.properties, field)) {
      issues.push({
        kind: 'invalid',
        field: `config.${field}`,
        message: `config.${field} is not a recognised field for ${provider} (${PROVIDER_PLATFORMS[provider]})`,
      });
    }
  }

  const first = issues.find((i) => i.kind === 'missing') ?? issues[0];
  if (first) throw toAppError(first);

  const copy = structuredClone(set);
  return { config: copy, fields: Object.keys(copy).sort() };
}

// ---------------------------------------------------------------------------------------------------------
// Defaults
// ---------------------------------------------------------------------------------------------------------

export const ELEVENLABS_REGION_BASE_URLS = {
  global: 'https://api.elevenlabs.io',
  us: 'https://api.us.elevenlabs.io',
  eu: 'https://api.eu.residency.elevenlabs.io',
  in: 'https://api.in.residency.elevenlabs.io',
} as const;

const STATIC_DEFAULTS: Record<ProviderName, Record<string, unknown>> = {
  provider_1: { base_url: 'https://api.vapi.ai', timeout_ms: DEFAULT_TIMEOUT_MS },
  provider_2: {
    room_prefix: 'test-',
    participant_identity: 'sim-user',
    input_topic: 'lk.chat',
    output_topic: 'lk.transcription',
    reply_idle_ms: 1500,
    timeout_ms: DEFAULT_TIMEOUT_MS,
  },
  provider_3: { base_url: 'https://api.pipecat.daily.co', transport: 'websocket', serializer: 'protobuf', timeout_ms: DEFAULT_TIMEOUT_MS },
  provider_4: { timeout_ms: DEFAULT_TIMEOUT_MS },
  provider_5: { base_url: 'https://api.retellai.com', timeout_ms: DEFAULT_TIMEOUT_MS },
  provider_6: {
    text_only_override: true,
    region: 'global',
    post_call_poll_ms: 2000,
    post_call_timeout_ms: 60_000,
    timeout_ms: DEFAULT_TIMEOUT_MS,
  },
};

/**
 * The config with every documented default applied (for adapters; expects a config that passed
 * `validateAgentConfig`). Null fields count as unset. Derived defaults:
 * - provider_1 `mode`: "call" when `phone_number` is set, else "chat";
 * - provider_2 `base_url`: `url` with ws:// → http:// and wss:// → https://;
 * - provider_6 `base_url`: the API host of `region`.
 * `base_url` (given or default) is returned without trailing slashes, so `${base_url}/path` is safe.
 */
export function configWithDefaults<P extends ProviderName>(provider: P, config: Record<string, unknown>): ResolvedProviderConfigs[P] {
  if (!isProviderName(provider)) throw new TypeError(`unknown provider: ${String(provider)}`);
  const given: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(config)) if (v !== null && v !== undefined) given[k] = v;
  const out: Record<string, unknown> = { ...STATIC_DEFAULTS[provider], ...given };

  if (provider === 'provider_1' && out.mode === undefined) out.mode = given.phone_number !== undefined ? 'call' : 'chat';
  if (provider === 'provider_2' && out.base_url === undefined && typeof out.url === 'string') {
    out.base_url = out.url.replace(/^wss:/i, 'https:').replace(/^ws:/i, 'http:');
  }
  if (provider === 'provider_6' && out.base_url === undefined) {
    out.base_url = ELEVENLABS_REGION_BASE_URLS[out.region as keyof typeof ELEVENLABS_REGION_BASE_URLS] ?? ELEVENLABS_REGION_BASE_URLS.global;
  }
  if (typeof out.base_url === 'string') out.base_url = out.base_url.replace(/\/+$/, '');
  return out as unknown as ResolvedProviderConfigs[P];
}

// ---------------------------------------------------------------------------------------------------------
// JSON Schema for the OpenAPI document
// ---------------------------------------------------------------------------------------------------------

/** Plain JSON (no TypeBox symbols), OpenAPI 3.0 friendly: enums instead of const unions, records as additionalProperties. */
function toOpenApiJson(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toOpenApiJson);
  if (typeof schema !== 'object' || schema === null) return schema;
  const s = schema as Record<string, unknown>;
  const anyOf = s.anyOf as Record<string, unknown>[] | undefined;
  if (Array.isArray(anyOf) && anyOf.length > 0 && anyOf.every((m) => 'const' in m)) {
    const { anyOf: _drop, ...rest } = s;
    return { ...rest, type: 'string', enum: anyOf.map((m) => m.const) };
  }
  if ('const' in s) {
    const { const: c, ...rest } = s;
    return { ...rest, type: typeof c === 'string' ? 'string' : rest.type, enum: [c] };
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === 'patternProperties') {
      const values = Object.values(v as Record<string, unknown>);
      out.additionalProperties = toOpenApiJson(values[0] ?? {});
    } else if (k === 'properties') {
      out.properties = Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([pk, pv]) => [pk, toOpenApiJson(pv)]));
    } else {
      out[k] = toOpenApiJson(v);
    }
  }
  return out;
}

/** One plain JSON Schema per provider (with `title`, `required`, defaults and descriptions). */
export const providerConfigJsonSchemas = Object.fromEntries(
  PROVIDERS.map((p) => [p, toOpenApiJson(JSON.parse(JSON.stringify(providerConfigSchemas[p])))]),
) as Record<ProviderName, Record<string, unknown>>;

/**
 * The agent `config` for the OpenAPI document: `oneOf` the six provider schemas, picked by the agent's
 * `provider`. Documentation only: do not use it as a route validation schema (a minimal provider_5 and a
 * minimal provider_6 config have the same shape, so `oneOf` alone cannot tell them apart, and Fastify's
 * Ajv options `removeAdditional`/`useDefaults` would rewrite the body). Validate with `validateAgentConfig`.
 */
export const providerConfigJsonSchema: Record<string, unknown> = {
  type: 'object',
  description:
    'Provider-specific configuration, chosen by `provider` (provider_1 Vapi, provider_2 LiveKit Agents, provider_3 Pipecat Cloud, ' +
    'provider_4 OpenAI-compatible, provider_5 Retell AI, provider_6 ElevenLabs Agents). Write-only: never returned; ' +
    'agent responses list the names of the set fields in `config_fields`. Unknown fields are rejected.',
  writeOnly: true,
  oneOf: PROVIDERS.map((p) => providerConfigJsonSchemas[p]),
};
