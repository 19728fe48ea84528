import AjvModule, { type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { AppError } from '../lib/errors.js';
import { describeFailure, isSecretPath, type Failure } from '../lib/field-errors.js';

const Ajv = AjvModule.default ?? (AjvModule as any);
const addFormats = (addFormatsModule as any).default ?? addFormatsModule;

function makeAjv(coerce: boolean) {
  // allErrors so that a missing field wins over an invalid one (a request missing a field is answered
  // MISSING_REQUIRED_FIELD even when another field is also invalid); verbose so that the error names the schema
  // it failed (the message says what the field must be); bodies are never coerced ("5" is not a number), query
  // strings are.
  const ajv = new Ajv({ allErrors: true, verbose: true, coerceTypes: coerce, useDefaults: false, removeAdditional: false, strict: false });
  addFormats(ajv);
  return ajv;
}

const bodyAjv = makeAjv(false);
const queryAjv = makeAjv(true);

/** A body validator for schemas checked outside a route (e.g. generated drafts), with the routes' settings. */
export const validateWith = (schema: object) => bodyAjv.compile(schema);

export const validatorCompiler: FastifySchemaCompiler<any> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? bodyAjv : queryAjv).compile(schema);

function fieldOf(e: ErrorObject): string {
  const base = e.instancePath.replace(/^\//, '').replace(/\//g, '.');
  if (e.keyword === 'required') return base ? `${base}.${e.params.missingProperty}` : e.params.missingProperty;
  if (e.keyword === 'additionalProperties') return base ? `${base}.${e.params.additionalProperty}` : e.params.additionalProperty;
  return base;
}

function valueAt(root: unknown, instancePath: string): unknown {
  let cur: any = root;
  for (const seg of instancePath.split('/').slice(1)) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = cur[seg.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return cur;
}

/**
 * A `required` failure inside one branch of a plain union only says that branch did not match; inside
 * an if/then branch (a union keyed on a discriminator) it is the real answer.
 */
function inUntakenBranch(schemaPath: string): boolean {
  const m = /.*\/(anyOf|oneOf)\/\d+\//.exec(schemaPath);
  return m !== null && !schemaPath.slice(m[0].length).includes('/then/');
}

/** Ajv's keywords in the vocabulary of the shared translator. */
function failureOf(keyword: string): Failure {
  switch (keyword) {
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return 'range';
    case 'oneOf':
      return 'anyOf';
    case 'type':
    case 'const':
    case 'enum':
    case 'anyOf':
    case 'minLength':
    case 'maxLength':
    case 'pattern':
    case 'format':
    case 'maxProperties':
    case 'maxItems':
    case 'minItems':
      return keyword;
    default:
      return 'other';
  }
}

/** Turns validation errors into the one envelope: MISSING before INVALID, the field named. */
export function toAppError(errors: ErrorObject[], part: string, input: unknown, requiredTop: string[]): AppError {
  if (part === 'body' && (input === null || typeof input !== 'object' || Array.isArray(input))) {
    return new AppError('INVALID_JSON', 'The request body must be a JSON object');
  }
  const missing = errors.find((e) => e.keyword === 'required' && !inUntakenBranch(e.schemaPath));
  if (missing) {
    const field = fieldOf(missing);
    return new AppError('MISSING_REQUIRED_FIELD', `${field} is required`, { details: { field } });
  }
  for (const name of requiredTop) {
    if (input && typeof input === 'object' && (input as any)[name] === null) {
      return new AppError('MISSING_REQUIRED_FIELD', `${name} is required`, { details: { field: name } });
    }
  }
  const extra = errors.find((e) => e.keyword === 'additionalProperties');
  if (extra) {
    const field = fieldOf(extra);
    return new AppError('INVALID_FIELD_VALUE', `${field} ${describeFailure('additionalProperties', {})}`, { details: { field } });
  }
  // The deepest error is the most specific one (anyOf branches report at their parent too).
  const e = [...errors].sort((a, b) => b.instancePath.length - a.instancePath.length)[0];
  const field = e ? fieldOf(e) : part;
  const value = e ? valueAt(input, e.instancePath) : undefined;
  const details: Record<string, unknown> = { field };
  if (value !== undefined && (typeof value !== 'object' || value === null) && !isSecretPath(field)) details.value = value;
  const message = e ? `${field} ${describeFailure(failureOf(e.keyword), e.parentSchema ?? {})}` : `${field} is invalid`;
  return new AppError('INVALID_FIELD_VALUE', message, { details });
}
