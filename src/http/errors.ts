import type { AppError, ErrorCode } from '../lib/errors.js';

// The error vocabulary lives in src/lib/errors.ts; re-exported here for the route and service files that
// still import it from the edge.
export { AppError, invalidField, missingField, referencedNotFound, type ErrorCode } from '../lib/errors.js';

/** The HTTP status of each error code: the only place where an error becomes a status. */
export const ERROR_STATUS = {
  MISSING_REQUIRED_FIELD: 400,
  INVALID_FIELD_VALUE: 400,
  INVALID_JSON: 400,
  BAD_REQUEST: 400,
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
  HEADERS_TOO_LARGE: 431,
  INTERNAL_ERROR: 500,
} as const satisfies Record<ErrorCode, number>;

/** A resource named in the request body answers 400: the request is what is wrong, not the path. */
export const statusOf = (err: AppError): number => (err.referenced ? 400 : ERROR_STATUS[err.code]);

export interface ErrorBody {
  error: string;
  code: ErrorCode;
  details?: Record<string, unknown>;
}
