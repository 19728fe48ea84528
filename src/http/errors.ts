/**
 * The one error vocabulary. Services throw AppError; only the HTTP edge turns a code into a status.
 */
export const ERROR_STATUS = {
  MISSING_REQUIRED_FIELD: 400,
  INVALID_FIELD_VALUE: 400,
  INVALID_JSON: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  AGENT_NOT_FOUND: 404,
  RUN_NOT_FOUND: 404,
  SCENARIO_RUN_NOT_FOUND: 404,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  ALREADY_EXISTS: 409,
  INVALID_STATE: 409,
  IDEMPOTENCY_CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details?: Record<string, unknown>;
  /** Overrides the code's default status (the spec's "referenced from the body → 400" rule). */
  readonly status: number;
  readonly headers?: Record<string, string>;

  constructor(code: ErrorCode, message: string, opts: { details?: Record<string, unknown>; status?: number; headers?: Record<string, string> } = {}) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.details = opts.details;
    this.status = opts.status ?? ERROR_STATUS[code];
    this.headers = opts.headers;
  }
}

export const missingField = (field: string) =>
  new AppError('MISSING_REQUIRED_FIELD', `${field} is required`, { details: { field } });

export const invalidField = (field: string, message: string, value?: unknown) =>
  new AppError('INVALID_FIELD_VALUE', message, { details: value === undefined ? { field } : { field, value } });

/** A resource named in the request body that does not exist: same code, but 400 (decisions §1). */
export const referencedNotFound = (code: 'AGENT_NOT_FOUND' | 'NOT_FOUND' | 'RUN_NOT_FOUND', message: string, field: string) =>
  new AppError(code, message, { status: 400, details: { field } });

export interface ErrorBody {
  error: string;
  code: ErrorCode;
  details?: Record<string, unknown>;
}
