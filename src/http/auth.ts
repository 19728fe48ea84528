import { createHash, timingSafeEqual } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Database } from '../db/client.js';
import { apiKeys, sessions } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';
import { hashApiKey, KEY_PATTERN } from '../lib/api-key-format.js';
import { clearedSessionCookies, readCookie, SESSION_COOKIE } from './cookies.js';
import { AppError } from './errors.js';

export interface AuthContext {
  orgId: string;
  keyId: string;
  /** Set when the request was authenticated with the dashboard's session cookie instead of a Bearer key. */
  sessionId?: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext;
  }
}

const LAST_USED_RESOLUTION_MS = 60_000;
export const CSRF_HEADER = 'x-rehearsal-csrf';
const unauthorized = (message: string) =>
  new AppError('UNAUTHORIZED', message, { headers: { 'www-authenticate': 'Bearer realm="rehearsal"' } });

type KeyRow = Pick<typeof apiKeys.$inferSelect, 'id' | 'orgId' | 'expiresAt' | 'lastUsedAt' | 'revokedAt'>;
const keyColumns = { id: apiKeys.id, orgId: apiKeys.orgId, keyHash: apiKeys.keyHash, expiresAt: apiKeys.expiresAt, lastUsedAt: apiKeys.lastUsedAt, revokedAt: apiKeys.revokedAt };

/** The checks every credential ends in, key or session: the key must be live right now. */
async function liveKey(db: Database, clock: Clock, row: KeyRow, expired: string): Promise<AuthContext> {
  const now = clock.now();
  if (row.expiresAt && row.expiresAt.getTime() <= now) throw unauthorized(expired);
  if (!row.lastUsedAt || now - row.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
    await db.orm.update(apiKeys).set({ lastUsedAt: new Date(now) }).where(eq(apiKeys.id, row.id));
  }
  return { orgId: row.orgId, keyId: row.id };
}

/** Every request is checked against the database: a revoked key fails on the very next request, in any process. */
export async function authenticateKey(db: Database, clock: Clock, key: string): Promise<AuthContext> {
  if (!KEY_PATTERN.test(key)) throw unauthorized('Malformed API key: expected sk_live_ followed by 40 letters and digits');
  const digest = hashApiKey(key);
  const [row] = await db.orm.select(keyColumns).from(apiKeys).where(eq(apiKeys.keyHash, digest)).limit(1);
  if (!row || row.revokedAt || !timingSafeEqual(Buffer.from(row.keyHash), Buffer.from(digest))) {
    throw unauthorized('Invalid API key: it is unknown or has been revoked');
  }
  return liveKey(db, clock, row, 'API key has expired');
}

export async function authenticate(db: Database, clock: Clock, header: string | undefined): Promise<AuthContext> {
  if (!header) throw unauthorized('Missing API key: send the header "Authorization: Bearer <API key>"');
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m) throw unauthorized('Malformed Authorization header: expected "Bearer <API key>"');
  return authenticateKey(db, clock, m[1]);
}

export const hashSessionToken = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

/**
 * The session cookie resolves to its API key on every request (one indexed join), so revoking or expiring
 * the key ends the session at once, exactly like the key itself.
 */
export async function authenticateSession(db: Database, clock: Clock, token: string): Promise<AuthContext> {
  const digest = hashSessionToken(token);
  const [row] = await db.orm
    .select({ sessionId: sessions.id, sessionExpiresAt: sessions.expiresAt, ...keyColumns })
    .from(sessions).innerJoin(apiKeys, eq(apiKeys.id, sessions.apiKeyId))
    .where(eq(sessions.tokenHash, digest)).limit(1);
  if (!row) throw unauthorized('Your session has ended: sign in again');
  if (row.revokedAt) throw unauthorized('Your session has ended: its API key was revoked');
  if (row.sessionExpiresAt.getTime() <= clock.now()) throw unauthorized('Your session has expired: sign in again');
  const ctx = await liveKey(db, clock, row, 'Your session has ended: its API key has expired');
  return { ...ctx, sessionId: row.sessionId };
}

/** Needs no credential: the document itself (any method, as before), and signing in (the key is in the body). */
// the API description and the project-file schemas: editors fetch them without a key
const PUBLIC_PATHS = new Set(['/api/v1/openapi.json', '/api/v1/schemas/rehearsal.json', '/api/v1/schemas/scenario.json', '/api/v1/schemas/suite.json']);
const PUBLIC_OPERATIONS = new Set(['POST /api/v1/sessions']);
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function isProtected(req: FastifyRequest) {
  const path = req.url.split('?')[0];
  if (path !== '/api/v1' && !path.startsWith('/api/v1/')) return false;
  return !PUBLIC_PATHS.has(path) && !PUBLIC_OPERATIONS.has(`${req.method} ${path.replace(/\/$/, '')}`);
}

/**
 * A Bearer key, else the dashboard's session cookie. The Authorization header wins whenever it is present,
 * so API clients behave exactly as before. Cookie-authenticated requests that change something also need
 * the header x-rehearsal-csrf: 1: a cross-site page cannot set a custom header without a CORS preflight,
 * which this service never grants (defence in depth next to SameSite=Strict).
 */
export function registerAuth(app: FastifyInstance, db: Database, clock: Clock) {
  app.decorateRequest('auth', null as unknown as AuthContext);
  app.addHook('onRequest', async (req, reply) => {
    if (!isProtected(req)) return;
    const header = req.headers.authorization;
    const token = header === undefined ? readCookie(req, SESSION_COOKIE) : null;
    if (!token) {
      req.auth = await authenticate(db, clock, header);
      return;
    }
    try {
      req.auth = await authenticateSession(db, clock, token);
    } catch (err) {
      // a dead session cookie is dropped, so the browser stops sending it
      reply.header('set-cookie', clearedSessionCookies(req));
      throw err;
    }
    if (!SAFE_METHODS.has(req.method) && req.headers[CSRF_HEADER] !== '1') {
      throw new AppError('FORBIDDEN', `Requests authenticated with the session cookie that change data must send the header "${CSRF_HEADER}: 1"`);
    }
  });
}
