import { errorFromResponse, parseRetryAfter, RehearsalError } from './errors.js';
import type { Operations } from './openapi-types.js';

export type OperationKey = keyof Operations;
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export interface RetryOptions {
  /** Retries of a 429 answer (default 3; 0 disables). Nothing else is retried: other errors are the caller's to handle. */
  retries?: number;
  /** Upper bound for one wait in ms (default 30000). A Retry-After asking for longer is not waited for: the 429 is thrown. */
  maxDelayMs?: number;
  /** Wait when the 429 carries no Retry-After: 1 s, then doubling (default 1000). */
  baseDelayMs?: number;
}

export interface RequestOptions {
  signal?: AbortSignal;
  /** For creating POSTs: the same key with the same body within 24 h returns the stored response. */
  idempotencyKey?: string;
}

export interface CallInput<K extends OperationKey> extends RequestOptions {
  params?: Operations[K]['params'];
  query?: Operations[K]['query'];
  body?: Operations[K]['body'];
}

export interface TransportOptions {
  baseUrl: string;
  apiKey: string;
  fetch?: FetchLike;
  retry?: RetryOptions | false;
  userAgent?: string;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(abortError());
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(abortError());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

export const abortError = () => new RehearsalError('request aborted', { status: 0, code: 'ABORTED' });

/** The service address with or without the `/api/v1` suffix (the spec uses both forms). */
export function normalizeBaseUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new RehearsalError(`invalid base URL: ${JSON.stringify(url)}`, { status: 0, code: 'INVALID_BASE_URL' });
  }
  return `${u.origin}${u.pathname.replace(/\/+$/, '').replace(/\/api\/v1$/, '')}`;
}

function buildUrl(base: string, op: string, params: Record<string, unknown> = {}, query: Record<string, unknown> = {}): { method: string; url: string } {
  const [method, template] = op.split(' ');
  const path = template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const v = params[name];
    if (v === undefined || v === null || v === '') throw new RehearsalError(`missing path parameter ${name}`, { status: 0, code: 'MISSING_PATH_PARAMETER' });
    return encodeURIComponent(String(v));
  });
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null) qs.set(k, String(v));
  const q = qs.toString();
  return { method, url: `${base}${path}${q ? `?${q}` : ''}` };
}

/** One typed call per operation: JSON in, JSON out, the error envelope mapped to RehearsalError, 429 retried. */
export function createTransport(opts: TransportOptions) {
  const base = normalizeBaseUrl(opts.baseUrl);
  const doFetch: FetchLike = opts.fetch ?? ((url, init) => fetch(url, init));
  const retry = opts.retry === false ? { retries: 0 } : opts.retry ?? {};
  const retries = retry.retries ?? 3;
  const maxDelayMs = retry.maxDelayMs ?? 30_000;
  const baseDelayMs = ('baseDelayMs' in retry ? retry.baseDelayMs : undefined) ?? 1000;

  return async function call<K extends OperationKey>(op: K, input: CallInput<K> = {}): Promise<Operations[K]['response']> {
    const { method, url } = buildUrl(base, op, input.params as Record<string, unknown>, input.query as Record<string, unknown>);
    const headers: Record<string, string> = { authorization: `Bearer ${opts.apiKey}`, accept: 'application/json' };
    if (opts.userAgent) headers['user-agent'] = opts.userAgent;
    if (input.idempotencyKey) headers['idempotency-key'] = input.idempotencyKey;
    let payload: string | undefined;
    if (input.body !== undefined) {
      payload = JSON.stringify(input.body);
      headers['content-type'] = 'application/json';
    }
    for (let attempt = 0; ; attempt++) {
      if (input.signal?.aborted) throw abortError();
      let res: Response;
      let text: string;
      try {
        res = await doFetch(url, { method, headers, body: payload, signal: input.signal });
        text = await res.text();
      } catch (err) {
        if (input.signal?.aborted) throw abortError();
        const detail = (err as { cause?: { code?: string } })?.cause?.code ?? (err as Error)?.message ?? String(err);
        throw new RehearsalError(`cannot reach ${base}: ${detail}`, { status: 0, code: 'NETWORK_ERROR', cause: err });
      }
      if (res.ok) {
        if (res.status === 204 || text === '') return undefined as Operations[K]['response'];
        try {
          return JSON.parse(text) as Operations[K]['response'];
        } catch (err) {
          throw new RehearsalError(`the response to ${op} is not JSON`, { status: res.status, code: 'INVALID_RESPONSE', requestId: res.headers.get('x-request-id'), cause: err });
        }
      }
      const retryAfterMs = parseRetryAfter(res.headers.get('retry-after'));
      const error = errorFromResponse(res.status, text, res.headers, retryAfterMs);
      // A 429 was not processed, so even a POST is safe to send again; the wait stays bounded.
      const wait = retryAfterMs ?? baseDelayMs * 2 ** attempt;
      if (res.status !== 429 || attempt >= retries || wait > maxDelayMs) throw error;
      await sleep(wait, input.signal);
    }
  };
}

export type Transport = ReturnType<typeof createTransport>;
