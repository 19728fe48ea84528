// The one way the dashboard talks to the service: same-origin fetches to the public API with the session
// cookie (HttpOnly: this code never sees it, nor the API key after sign-in).

export const API_BASE = '/api/v1';

export class ApiError extends Error {
  constructor(message: string, readonly status: number, readonly code: string, readonly details?: Record<string, unknown>) {
    super(message);
    this.name = 'ApiError';
  }
}

type UnauthorizedListener = (message: string) => void;
let onUnauthorized: UnauthorizedListener | null = null;

/** The session provider listens here: any 401 means the session is gone (signed out, key revoked or expired). */
export function setUnauthorizedListener(fn: UnauthorizedListener | null) {
  onUnauthorized = fn;
}

export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  // the service refuses cookie-authenticated changes without it (CSRF defence)
  if (method !== 'GET' && method !== 'HEAD') headers['x-rehearsal-csrf'] = '1';
  let res: Response;
  try {
    res = await fetch(`${API_BASE}${path}`, {
      method, headers, credentials: 'same-origin', cache: 'no-store',
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError('Cannot reach the Rehearsal service. Is it running?', 0, 'NETWORK_ERROR');
  }
  if (res.status === 204) return undefined as T;
  const data = await res.json().catch(() => null);
  if (!res.ok) {
    const err = new ApiError(data?.error ?? `Request failed with HTTP ${res.status}`, res.status, data?.code ?? 'HTTP_ERROR', data?.details);
    if (res.status === 401 && path !== '/sessions') onUnauthorized?.(err.message);
    throw err;
  }
  return data as T;
}

export const get = <T>(path: string) => api<T>('GET', path);
export const post = <T>(path: string, body?: unknown) => api<T>('POST', path, body);
export const put = <T>(path: string, body: unknown) => api<T>('PUT', path, body);
export const patch = <T>(path: string, body: unknown) => api<T>('PATCH', path, body);
export const del = (path: string) => api<void>('DELETE', path);

/** A query string from the set values only. */
export function qs(params: Record<string, string | number | boolean | null | undefined>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : '';
}

export const errorMessage = (e: unknown) => (e instanceof Error ? e.message : String(e));
