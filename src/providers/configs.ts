import type { TObject } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import { AppError, invalidField, missingField } from '../lib/errors.js';
import { describeFailure, echoableValue, type Failure } from '../lib/field-errors.js';
import { PLATFORM_OF, PROVIDER_IDS, isProviderId, type Platform, type ProviderId } from '../engine/provider.js';
import type { ConfigIssue, PlatformConfig } from './config-kit.js';
import { elevenLabsConfig, type ResolvedElevenLabsConfig } from './elevenlabs-config.js';
import { liveKitConfig, type ResolvedLiveKitConfig } from './livekit-config.js';
import { openAiCompatibleConfig, type ResolvedOpenAiCompatibleConfig } from './openai-compatible-config.js';
import { pipecatConfig, type ResolvedPipecatCloudConfig } from './pipecat-config.js';
import { retellConfig, type ResolvedRetellConfig } from './retell-config.js';
import { vapiConfig, type ResolvedVapiConfig } from './vapi-config.js';

// An agent's config: one TypeBox schema per platform (beside its adapter, in <platform>-config.ts) is the single
// source for validation, the OpenAPI document and the TypeScript types. Validation goes through
// `validateAgentConfig`, which maps every problem to MISSING_REQUIRED_FIELD / INVALID_FIELD_VALUE with a
// `config.<path>` field and never echoes a credential.

export const PROVIDERS = PROVIDER_IDS;
export type ProviderName = ProviderId;
export const isProviderName = isProviderId;

/** The product each neutral provider value stands for, as error messages name it. */
const PLATFORM_LABELS: Record<Platform, string> = {
  vapi: 'Vapi',
  livekit: 'LiveKit Agents',
  pipecat: 'Pipecat Cloud',
  openai_compatible: 'OpenAI-compatible Chat Completions',
  retell: 'Retell AI',
  elevenlabs: 'ElevenLabs Agents',
};

const CONFIGS: { [P in Platform]: PlatformConfig } = {
  vapi: vapiConfig,
  livekit: liveKitConfig,
  pipecat: pipecatConfig,
  openai_compatible: openAiCompatibleConfig,
  retell: retellConfig,
  elevenlabs: elevenLabsConfig,
};

/** A config after `configWithDefaults`: every documented default is present. */
export interface ResolvedConfigs {
  vapi: ResolvedVapiConfig;
  livekit: ResolvedLiveKitConfig;
  pipecat: ResolvedPipecatCloudConfig;
  openai_compatible: ResolvedOpenAiCompatibleConfig;
  retell: ResolvedRetellConfig;
  elevenlabs: ResolvedElevenLabsConfig;
}

/** The config schema agents with this provider value are validated against. */
export const configSchemaOf = (provider: ProviderId): TObject => CONFIGS[PLATFORM_OF[provider]].schema;

// ---------------------------------------------------------------------------------------------------------
// Validation
// ---------------------------------------------------------------------------------------------------------

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null);

function pointerToDots(pointer: string): string {
  if (pointer === '') return '';
  return pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
}

/** TypeBox's error kinds in the keyword vocabulary the shared translator speaks. */
function failureOf(type: ValueErrorType): Failure {
  switch (type) {
    case ValueErrorType.String:
    case ValueErrorType.Boolean:
    case ValueErrorType.Object:
    case ValueErrorType.Array:
    case ValueErrorType.Number:
    case ValueErrorType.Integer:
      return 'type';
    case ValueErrorType.Literal:
      return 'const';
    case ValueErrorType.Union:
      return 'anyOf';
    case ValueErrorType.NumberMinimum:
    case ValueErrorType.NumberMaximum:
    case ValueErrorType.IntegerMinimum:
    case ValueErrorType.IntegerMaximum:
    case ValueErrorType.NumberExclusiveMinimum:
    case ValueErrorType.NumberExclusiveMaximum:
    case ValueErrorType.IntegerExclusiveMinimum:
    case ValueErrorType.IntegerExclusiveMaximum:
      return 'range';
    case ValueErrorType.StringMinLength:
      return 'minLength';
    case ValueErrorType.StringMaxLength:
      return 'maxLength';
    case ValueErrorType.StringPattern:
      return 'pattern';
    case ValueErrorType.ObjectAdditionalProperties:
      return 'additionalProperties';
    case ValueErrorType.ObjectMaxProperties:
      return 'maxProperties';
    case ValueErrorType.ArrayMaxItems:
      return 'maxItems';
    case ValueErrorType.ArrayMinItems:
      return 'minItems';
    default:
      return 'other';
  }
}

function issueFromValueError(field: string, e: ValueError): ConfigIssue {
  const sub = pointerToDots(e.path);
  const path = sub ? `config.${field}.${sub}` : `config.${field}`;
  if (e.type === ValueErrorType.ObjectRequiredProperty) return { kind: 'missing', field: path, message: `${path} is required` };
  const value = e.type === ValueErrorType.ObjectAdditionalProperties ? undefined : echoableValue(`config.${field}`, e.value, e.schema);
  return { kind: 'invalid', field: path, message: `${path} ${describeFailure(failureOf(e.type), e.schema)}`, ...(value === undefined ? {} : { value }) };
}

/** Checks every platform shares that JSON Schema cannot express readably: blank strings and URL structure. */
function commonFieldIssues(field: string, value: unknown): ConfigIssue[] {
  const path = `config.${field}`;
  const invalid = (message: string): ConfigIssue[] => [{ kind: 'invalid', field: path, message }];
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
  return [];
}

function toAppError(issue: ConfigIssue): AppError {
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
 *   missing fields are reported before any invalid one). Conditional requirements (Vapi phone_number →
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

  const platform = PLATFORM_OF[provider];
  const spec = CONFIGS[platform];
  const schema = spec.schema;
  const required = new Set<string>(schema.required ?? []);
  const issues: ConfigIssue[] = [];
  const set: Record<string, unknown> = {};

  for (const field of Object.keys(schema.properties)) {
    const value = Object.hasOwn(config, field) ? config[field] : undefined;
    if (value === undefined || value === null) {
      if (required.has(field)) issues.push({ kind: 'missing', field: `config.${field}`, message: `config.${field} is required` });
      continue;
    }
    set[field] = value;
  }
  issues.push(...(spec.crossFieldIssues?.(set) ?? []));

  for (const [field, value] of Object.entries(set)) {
    const fieldIssues = [...Value.Errors(schema.properties[field], value)].map((e) => issueFromValueError(field, e));
    if (fieldIssues.length > 0) {
      issues.push(...fieldIssues);
      continue;
    }
    const common = commonFieldIssues(field, value);
    issues.push(...(common.length > 0 ? common : (spec.fieldIssues?.(field, value) ?? [])));
  }

  for (const field of Object.keys(config)) {
    if (!Object.hasOwn(schema.properties, field)) {
      issues.push({
        kind: 'invalid',
        field: `config.${field}`,
        message: `config.${field} is not a recognised field for ${provider} (${PLATFORM_LABELS[platform]})`,
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

/**
 * The config with every documented default applied (for adapters; expects a config that passed
 * `validateAgentConfig`). Null fields count as unset; each platform's module derives the defaults that depend
 * on other fields. `base_url` (given or default) is returned without trailing slashes, so `${base_url}/path`
 * is safe.
 */
export function configWithDefaults<P extends Platform>(platform: P, config: Record<string, unknown>): ResolvedConfigs[P] {
  const spec = CONFIGS[platform];
  if (!spec) throw new TypeError(`unknown platform: ${String(platform)}`);
  const given: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(config)) if (v !== null && v !== undefined) given[k] = v;
  const out: Record<string, unknown> = { ...spec.defaults, ...given };
  spec.derive?.(out, given);
  if (typeof out.base_url === 'string') out.base_url = out.base_url.replace(/\/+$/, '');
  return out as unknown as ResolvedConfigs[P];
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
  PROVIDERS.map((p) => [p, toOpenApiJson(JSON.parse(JSON.stringify(configSchemaOf(p))))]),
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
