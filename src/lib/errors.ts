/**
 * The one error vocabulary. Services throw AppError with a code; only the HTTP edge (src/http/errors.ts)
 * turns a code into a status.
 */
export const ERROR_CODES = [
  'BAD_REQUEST',
  'MISSING_REQUIRED_FIELD',
  'INVALID_FIELD_VALUE',
  'INVALID_JSON',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'AGENT_NOT_FOUND',
  'RUN_NOT_FOUND',
  'SCENARIO_RUN_NOT_FOUND',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'ALREADY_EXISTS',
  'INVALID_STATE',
  'IDEMPOTENCY_CONFLICT',
  'PAYLOAD_TOO_LARGE',
  'RATE_LIMITED',
  'HEADERS_TOO_LARGE',
  'INTERNAL_ERROR',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details?: Record<string, unknown>;
  /**
   * The missing resource was named in the request body rather than in the path: the request itself is
   * wrong, so the edge answers it like invalid input (400) while keeping the resource's code.
   */
  readonly referenced: boolean;
  readonly headers?: Record<string, string>;

  constructor(code: ErrorCode, message: string, opts: { details?: Record<string, unknown>; referenced?: boolean; headers?: Record<string, string> } = {}) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.details = opts.details;
    this.referenced = opts.referenced ?? false;
    this.headers = opts.headers;
  }
}

export const missingField = (field: string) =>
  new AppError('MISSING_REQUIRED_FIELD', `${field} is required`, { details: { field } });

export const invalidField = (field: string, message: string, value?: unknown) =>
  new AppError('INVALID_FIELD_VALUE', message, { details: value === undefined ? { field } : { field, value } });

/** A resource named in the request body that does not exist. */
export const referencedNotFound = (code: 'AGENT_NOT_FOUND' | 'NOT_FOUND' | 'RUN_NOT_FOUND', message: string, field: string) =>
  new AppError(code, message, { referenced: true, details: { field } });
