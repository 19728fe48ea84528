import { randomBytes } from 'node:crypto';
import { and, eq, lt } from 'drizzle-orm';
import { uuidv7 } from 'uuidv7';
import { apiKeys, organizations, sessions } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import { authenticateKey, hashSessionToken, type AuthContext } from '../../http/auth.js';
import { iso } from '../../http/common.js';
import { AppError } from '../../lib/errors.js';

/** A dashboard session lasts a working day; the key's own revocation or expiry ends it sooner. */
export const SESSION_TTL_SECONDS = 12 * 3600;

export interface SessionView {
  organization: { id: string; name: string };
  api_key: { id: string; name: string; prefix: string; last_four: string; expires_at: string | null };
  created_at: string;
  expires_at: string;
}

const notASession = () =>
  new AppError('NOT_FOUND', 'No session: this request is authenticated with an API key, not with the dashboard session cookie');

/**
 * Exchanges an API key for a session. The token exists only in the returned value (it goes into the
 * HttpOnly cookie); the database keeps its SHA-256 digest. `previousToken` is the cookie the browser still
 * held, which is closed so that signing in again never leaves a live session behind.
 */
export async function openSession(deps: Deps, apiKey: string, previousToken: string | null) {
  const auth = await authenticateKey(deps.db, deps.clock, apiKey);
  const now = new Date(deps.clock.now());
  const token = randomBytes(32).toString('base64url');
  const id = uuidv7();
  await deps.db.orm.delete(sessions).where(and(eq(sessions.apiKeyId, auth.keyId), lt(sessions.expiresAt, now)));
  if (previousToken) await deps.db.orm.delete(sessions).where(eq(sessions.tokenHash, hashSessionToken(previousToken)));
  await deps.db.orm.insert(sessions).values({
    id, orgId: auth.orgId, apiKeyId: auth.keyId, tokenHash: hashSessionToken(token),
    createdAt: now, expiresAt: new Date(now.getTime() + SESSION_TTL_SECONDS * 1000),
  });
  return { token, session: await describeSession(deps, { ...auth, sessionId: id }) };
}

export async function describeSession(deps: Deps, auth: AuthContext): Promise<SessionView> {
  if (!auth.sessionId) throw notASession();
  const [row] = await deps.db.orm
    .select({ s: sessions, k: apiKeys, orgName: organizations.name })
    .from(sessions)
    .innerJoin(apiKeys, eq(apiKeys.id, sessions.apiKeyId))
    .innerJoin(organizations, eq(organizations.id, sessions.orgId))
    .where(and(eq(sessions.id, auth.sessionId), eq(sessions.orgId, auth.orgId)));
  if (!row) throw notASession();
  return {
    organization: { id: row.s.orgId, name: row.orgName },
    api_key: { id: row.k.id, name: row.k.name, prefix: row.k.prefix, last_four: row.k.lastFour, expires_at: iso(row.k.expiresAt) },
    created_at: row.s.createdAt.toISOString(),
    expires_at: row.s.expiresAt.toISOString(),
  };
}

export async function closeSession(deps: Deps, auth: AuthContext): Promise<void> {
  if (!auth.sessionId) throw notASession();
  await deps.db.orm.delete(sessions).where(and(eq(sessions.id, auth.sessionId), eq(sessions.orgId, auth.orgId)));
}
