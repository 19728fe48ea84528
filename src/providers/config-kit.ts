import { Type, type TObject } from '@sinclair/typebox';
import { hintPattern } from '../lib/field-errors.js';

// The building blocks every platform's config schema is made of, and the shape of a platform's config module.

export const DEFAULT_TIMEOUT_MS = 120_000;

export const HTTP_URL_PATTERN = hintPattern('^[hH][tT][tT][pP][sS]?://\\S+$', 'must be an absolute http(s) URL');
export const WS_OR_HTTP_URL_PATTERN = hintPattern('^([wW][sS][sS]?|[hH][tT][tT][pP][sS]?)://\\S+$', 'must be an absolute wss://, ws://, https:// or http:// URL');
export const E164_PATTERN = hintPattern('^\\+[1-9][0-9]{1,14}$', 'must be an E.164 phone number such as +14155550123');
export const TOOL_NAME_PATTERN = hintPattern('^[a-zA-Z0-9_-]{1,64}$', 'must be 1-64 characters of letters, digits, "_" or "-"');

export const secret = (description: string) => Type.String({ minLength: 1, maxLength: 4096, description, writeOnly: true });
export const text = (maxLength: number, description: string, extra: Record<string, unknown> = {}) =>
  Type.String({ minLength: 1, maxLength, description, ...extra });
export const httpUrl = (description: string, extra: Record<string, unknown> = {}) =>
  Type.String({ minLength: 1, maxLength: 2048, pattern: HTTP_URL_PATTERN, description, ...extra });
export const jsonObject = (description: string, maxProperties = 100) =>
  Type.Record(Type.String(), Type.Unknown(), { maxProperties, description });
export const stringMap = (description: string, maxProperties = 100) =>
  Type.Record(Type.String(), Type.String({ maxLength: 10_000 }), { maxProperties, description });
export const oneOfStrings = <T extends string>(values: readonly [T, ...T[]], description: string, defaultValue?: T) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    defaultValue === undefined ? { description } : { description, default: defaultValue },
  );
export const timeoutMs = () =>
  Type.Integer({
    minimum: 1000,
    maximum: 600_000,
    default: DEFAULT_TIMEOUT_MS,
    description: 'Upper bound for one whole conversation, in milliseconds.',
  });
export const costPerMinute = () =>
  Type.Number({
    minimum: 0,
    maximum: 1000,
    description: 'Your rate in USD per minute of conversation; cost_usd is estimated as duration × rate (null when unset).',
  });

/** A problem with one config field, before it becomes the error the API answers. */
export interface ConfigIssue {
  kind: 'missing' | 'invalid';
  field: string;
  message: string;
  value?: unknown;
}

/** What the shared validation and defaulting need to know about one platform's config. */
export interface PlatformConfig<S extends TObject = TObject> {
  schema: S;
  /** Documented defaults that do not depend on other fields. */
  defaults: Record<string, unknown>;
  /** Defaults computed from the given fields (run after the static ones). */
  derive?: (out: Record<string, unknown>, given: Record<string, unknown>) => void;
  /** Requirements that depend on other fields (reported like missing fields). */
  crossFieldIssues?: (config: Record<string, unknown>) => ConfigIssue[];
  /** Checks of one field that JSON Schema cannot express (after the schema accepted the field). */
  fieldIssues?: (field: string, value: unknown) => ConfigIssue[];
}

/** cost_usd for a platform billed by the minute: duration × the configured rate, to the micro-dollar. */
export function costForDuration(ratePerMinuteUsd: number | null, durationMs: number): number | null {
  if (ratePerMinuteUsd === null) return null;
  return Math.round((durationMs / 60_000) * ratePerMinuteUsd * 1e6) / 1e6;
}
