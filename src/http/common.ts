import { Type, type TSchema } from '@sinclair/typebox';
import { AppError, ERROR_STATUS, type ErrorCode } from './errors.js';

export const Nullable = <T extends TSchema>(t: T, opts?: { description?: string }) => Type.Union([t, Type.Null()], opts);
export const Timestamp = Type.String({ format: 'date-time', examples: ['2026-11-21T15:07:08.346Z'] });
export const Uuid = Type.String({ format: 'uuid' });

export const ErrorBodySchema = Type.Object({
  error: Type.String({ description: 'A message for people' }),
  code: Type.String({ enum: Object.keys(ERROR_STATUS), description: 'What went wrong, for programs' }),
  details: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'For a field error: the field (and, where safe, the value)' })),
}, { $id: 'Error', additionalProperties: false, description: 'Every error answer: { error, code, details? }' });

export const IdParams = Type.Object({ id: Type.String() });

export const PageQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 999_999_999, description: 'Page size; values above the maximum are clamped' })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 999_999_999, description: 'Items to skip' })),
};

export interface Page { limit: number; offset: number }

export function page(q: { limit?: number; offset?: number }, def = 50, max = 100): Page {
  return { limit: Math.min(q.limit ?? def, max), offset: q.offset ?? 0 };
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (s: unknown): s is string => typeof s === 'string' && UUID_RE.test(s);

/** A path id that is not a UUID names nothing: the resource's 404, never a validation error. */
export function pathId(id: string, code: ErrorCode, what: string): string {
  if (!isUuid(id)) throw new AppError(code, `${what} not found`);
  return id.toLowerCase();
}

export const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

/** Error responses documented per route for the OpenAPI document. */
export function errors(...statuses: number[]) {
  const out: Record<number, typeof ErrorBodySchema> = {};
  for (const s of [401, 429, ...statuses]) out[s] = ErrorBodySchema;
  return out;
}

export const nameKey = (name: string) => name.trim().toLowerCase();
