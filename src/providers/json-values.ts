import type { TSchema, Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { ProviderError } from '../engine/provider.js';

// Reading what a platform sent: lenient JSON, schema-checked bodies, and credentials kept out of stored text.

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** JSON strings (tool arguments, tool results) become values; anything else is kept verbatim. */
export function parseMaybeJson(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const t = v.trim();
  if (!(t.startsWith('{') || t.startsWith('[') || t.startsWith('"'))) return v;
  const parsed = parseJson(t);
  return parsed === undefined ? v : parsed;
}

/** Checks a 2xx body against its (lenient) TypeBox schema; a body of another shape is the provider's fault. */
export function decode<S extends TSchema>(schema: S, value: unknown, what: string): Static<S> {
  if (Value.Check(schema, value)) return value;
  const first = Value.Errors(schema, value).First();
  throw new ProviderError('provider_error', `malformed ${what}: ${first ? `${first.path || '/'} ${first.message}` : 'unexpected shape'}`);
}

// A JWT anywhere in a message: LiveKit's auth middleware has echoed the bearer token back in its 401 text.
const JWT_PATTERN = /eyJ[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]*){0,2}/g;

/** Removes credentials from text that will be stored as an error message: JWTs and the given secrets. */
export function redact(text: string, secrets: readonly string[] = []): string {
  let out = text.replace(JWT_PATTERN, '[redacted token]');
  // Very short "secrets" would shred the message.
  for (const s of secrets) if (s.length >= 4) out = out.split(s).join('[redacted]');
  return out;
}
