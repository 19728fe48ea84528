import type { FastifyRequest } from 'fastify';

// A few lines instead of @fastify/cookie: the service reads exactly one cookie and writes it in two shapes.

export const SESSION_COOKIE = 'rehearsal_session';
/** The cookie only travels with API calls, never with static assets or the docs. */
const COOKIE_PATH = '/api/v1';

export function readCookie(req: FastifyRequest, name: string): string | null {
  const header = req.headers.cookie;
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    try {
      return decodeURIComponent(value);
    } catch {
      return null;
    }
  }
  return null;
}

/**
 * Secure only when the browser reached us over https (directly, or through a proxy that says so):
 * a Secure cookie set over plain http would never come back, and local http use must keep working.
 * Trusting x-forwarded-proto here is harmless: it can only add the Secure attribute, never remove it.
 */
export function isHttps(req: FastifyRequest): boolean {
  if (req.protocol === 'https') return true;
  const fwd = req.headers['x-forwarded-proto'];
  const first = (Array.isArray(fwd) ? fwd[0] : fwd)?.split(',')[0]?.trim().toLowerCase();
  return first === 'https';
}

/**
 * Not a credential: tells the dashboard's script that a session cookie is probably there, so a signed-out
 * visitor sees the sign-in form without a request that would only answer 401. Path=/ so every page can read it.
 */
export const SIGNED_IN_HINT_COOKIE = 'rehearsal_signed_in';

function cookie(req: FastifyRequest, name: string, value: string, path: string, maxAgeSeconds: number, httpOnly: boolean) {
  const attrs = [`${name}=${encodeURIComponent(value)}`, `Path=${path}`, `Max-Age=${maxAgeSeconds}`];
  if (maxAgeSeconds === 0) attrs.push('Expires=Thu, 01 Jan 1970 00:00:00 GMT');
  if (httpOnly) attrs.push('HttpOnly');
  attrs.push('SameSite=Strict');
  if (isHttps(req)) attrs.push('Secure');
  return attrs.join('; ');
}

/** The Set-Cookie values of a new session: the HttpOnly token first, then the script-readable hint. */
export function sessionCookies(req: FastifyRequest, token: string, maxAgeSeconds: number): string[] {
  return [cookie(req, SESSION_COOKIE, token, COOKIE_PATH, maxAgeSeconds, true), cookie(req, SIGNED_IN_HINT_COOKIE, '1', '/', maxAgeSeconds, false)];
}

export function clearedSessionCookies(req: FastifyRequest): string[] {
  return [cookie(req, SESSION_COOKIE, '', COOKIE_PATH, 0, true), cookie(req, SIGNED_IN_HINT_COOKIE, '', '/', 0, false)];
}
