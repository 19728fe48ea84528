import type { Clock } from '../lib/clock.js';
import { ProviderError, type ValidateResult } from '../engine/provider.js';
import type { JsonClient } from './http-json.js';

// Credential checks: the platform's cheapest authenticated call, answered as {valid, message, details}.

/** The longest a credential check may take: a user is waiting for the answer. */
export const VALIDATE_TIMEOUT_MS = 10_000;

export const validateFailure = (error_code: string, message: string, extra: Record<string, unknown> = {}): ValidateResult =>
  ({ valid: false, message, details: { error_code, ...extra } });

/** The `error_code` by error kind: what `requestJson` made of the status decides the code. */
function failureByKind(err: unknown): ValidateResult {
  if (!(err instanceof ProviderError)) return validateFailure('provider_error', `provider: ${err instanceof Error ? err.message : String(err)}`);
  const details = err.status === undefined ? {} : { status: err.status };
  switch (err.kind) {
    case 'invalid_credentials':
    case 'not_found':
    case 'unreachable':
      return validateFailure(err.kind, err.message, details);
    default:
      return validateFailure('provider_error', err.message, details);
  }
}

/**
 * The `error_code` by HTTP status: 401/403 are bad credentials, `notFound` lists the statuses the platform uses for
 * an unknown agent id (some answer 422), anything else is the provider's error.
 */
export function statusFailure(status: number, message: string, notFound: readonly number[], code: string | null = null): ValidateResult {
  const details = { status, ...(code ? { provider_code: code } : {}) };
  if (status === 401 || status === 403) return validateFailure('invalid_credentials', message, details);
  if (notFound.includes(status)) return validateFailure('not_found', message, details);
  return validateFailure('provider_error', message, details);
}

/**
 * Runs one credential-check request with its own time limit (at most VALIDATE_TIMEOUT_MS) and maps a failure
 * with `onError` (by default the `error_code` by error kind); a check that outlives the limit is `timeout`. The
 * caller's signal (the HTTP request going away) still aborts with an exception, as in the reference adapter.
 */
export async function validateWith(
  opts: { signal: AbortSignal; clock: Clock; timeoutMs?: number },
  check: (signal: AbortSignal) => Promise<ValidateResult>,
  onError: (err: unknown) => ValidateResult = failureByKind,
): Promise<ValidateResult> {
  const timeoutMs = Math.min(opts.timeoutMs ?? VALIDATE_TIMEOUT_MS, VALIDATE_TIMEOUT_MS);
  const ac = new AbortController();
  let timedOut = false;
  const onAbort = () => ac.abort(opts.signal.reason);
  if (opts.signal.aborted) onAbort();
  else opts.signal.addEventListener('abort', onAbort, { once: true });
  opts.clock.sleep(timeoutMs, ac.signal).then(() => {
    timedOut = true;
    ac.abort(new Error('timeout'));
  }, () => undefined);
  try {
    return await check(ac.signal);
  } catch (err) {
    if (timedOut) return validateFailure('timeout', `provider: no answer within ${timeoutMs} ms`);
    if (opts.signal.aborted) throw err;
    return onError(err);
  } finally {
    opts.signal.removeEventListener('abort', onAbort);
    ac.abort(); // ends the timeout's sleep
  }
}

/** The cheapest credential check of a `JsonClient` platform: one GET, no retries, mapped by status. */
export function validateWithGet(
  client: JsonClient,
  path: string,
  opts: { signal: AbortSignal; clock: Clock; notFound: readonly number[]; timeoutMs?: number },
): Promise<ValidateResult> {
  return validateWith(
    opts,
    async (signal) => {
      await client.request('GET', path, { signal, retry: false });
      return { valid: true, message: 'credentials accepted', details: {} };
    },
    (err) => {
      if (!(err instanceof ProviderError)) throw err;
      if (err.status === undefined) return validateFailure(err.kind === 'unreachable' ? 'unreachable' : 'provider_error', err.message);
      return statusFailure(err.status, err.message, opts.notFound, err.code);
    },
  );
}
