
// The one translator from a schema failure to the words a field error says, shared by request validation
// (Ajv, at the HTTP edge) and agent-config validation (TypeBox): both name the field and say what it must be,
// in the same words, and neither ever echoes a credential.

/** A JSON Schema (TypeBox's and Ajv's are both plain objects). */
type TSchema = Record<string, any>;

/** Field names whose values are credentials: never echoed in errors, logs or responses. */
export const SECRET_FIELDS: ReadonlySet<string> = new Set([
  'api_key',
  'api_secret',
  'private_api_key',
  'public_api_key',
  'secret',
  'password',
  'token',
]);
/** Fields that are not credentials by name but whose values may carry them (an Authorization header). */
const CREDENTIAL_CARRIERS: ReadonlySet<string> = new Set(['extra_headers']);

/** True when any segment of a dotted field path names a credential or a field that may carry one. */
export const isSecretPath = (path: string): boolean =>
  path.split('.').some((segment) => SECRET_FIELDS.has(segment) || CREDENTIAL_CARRIERS.has(segment));

/** The ways a value can fail its schema, named as JSON Schema keywords. */
export type Failure =
  | 'type'
  | 'const'
  | 'enum'
  | 'anyOf'
  | 'range'
  | 'minLength'
  | 'maxLength'
  | 'pattern'
  | 'format'
  | 'additionalProperties'
  | 'maxProperties'
  | 'maxItems'
  | 'minItems'
  | 'other';

/** Phrases for the patterns whose regular expression would mean nothing to a reader. */
const patternHints = new Map<string, string>();
export function hintPattern(pattern: string, hint: string): string {
  patternHints.set(pattern, hint);
  return pattern;
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

function describeType(schema: TSchema): string {
  switch (schema.type) {
    case 'string':
      return 'must be a string';
    case 'boolean':
      return 'must be true or false';
    case 'object':
      return 'must be an object';
    case 'array':
      return 'must be an array';
    case 'integer':
    case 'number':
      return describeNumber(schema);
    case 'null':
      return 'must be null';
    default:
      if (Array.isArray(schema.type)) return `must be ${listOr(schema.type.map((t: string) => article(t === 'null' ? 'null' : t)))}`;
      return 'is invalid';
  }
}

/** What the field must be, as the end of a sentence that starts with the field's name. */
export function describeFailure(failure: Failure, schema: TSchema): string {
  switch (failure) {
    case 'type':
      return describeType(schema);
    case 'const':
      return `must be ${JSON.stringify(schema.const)}`;
    case 'enum':
      return `must be one of: ${(schema.enum as unknown[]).map(String).join(', ')}`;
    case 'anyOf':
      if (isEnumSchema(schema)) return `must be one of: ${schema.anyOf.map((m) => String(m.const)).join(', ')}`;
      return Array.isArray(schema.anyOf) ? `must be ${listOr((schema.anyOf as TSchema[]).map((m) => article(typeNoun(m))))}` : 'is invalid';
    case 'range':
      return describeNumber(schema);
    case 'minLength':
      return schema.minLength === 1 ? 'must not be empty' : `must be at least ${schema.minLength} characters long`;
    case 'maxLength':
      return `must be at most ${schema.maxLength} characters long`;
    case 'pattern':
      return patternHints.get(schema.pattern as string) ?? 'has an invalid format';
    case 'format':
      return `must be a valid ${String(schema.format)}`;
    case 'additionalProperties':
      return 'is not a recognised field';
    case 'maxProperties':
      return `must have at most ${schema.maxProperties} entries`;
    case 'maxItems':
      return `must have at most ${schema.maxItems} items`;
    case 'minItems':
      return `must have at least ${schema.minItems} items`;
    default:
      return 'is invalid';
  }
}

/**
 * The value an error may show back: only values that cannot be a credential (numbers, booleans and short
 * enum strings), and nothing under a secret path.
 */
export function echoableValue(path: string, value: unknown, schema: TSchema): unknown {
  if (isSecretPath(path)) return undefined;
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value === 'string' && value.length <= 100 && (isEnumSchema(schema) || 'const' in schema || Array.isArray(schema.enum))) return value;
  return undefined;
}
