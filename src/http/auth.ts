import { timingSafeEqual } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Database } from '../db/client.js';
import { apiKeys } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';
import { hashApiKey, KEY_PATTERN } from '../modules/api-keys/key-format.js';
import { AppError } from './errors.js';

export interface AuthContext {
  orgId: string;
  keyId: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext;
  }
}

const LAST_USED_RESOLUTION_MS = 60_000;
const unauthorized = (message: string) =>
  new AppError('UNAUTHORIZED', message, { headers: { 'www-authenticate': 'Bearer realm="rehearsal"' } });

/** Every request is checked against the database: a revoked key fails on the very next request, in any process. */
export async function authenticate(db: Database, clock: Clock, header: string | undefined): Promise<AuthContext> {
  if (!header) throw unauthorized('Missing API key: send the header "Authorization: Bearer <API key>"');
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m) throw unauthorized('Malformed Authorization header: expected "Bearer <API key>"');
  const key = m[1];
  if (!KEY_PATTERN.test(key)) throw unauthorized('Malformed API key: expected sk_live_ followed by 40 letters and digits');
  const digest = hashApiKey(key);
  const [row] = await db.orm
    .select({ id: apiKeys.id, orgId: apiKeys.orgId, keyHash: apiKeys.keyHash, expiresAt: apiKeys.expiresAt, lastUsedAt: apiKeys.lastUsedAt, revokedAt: apiKeys.revokedAt })
    .from(apiKeys).where(eq(apiKeys.keyHash, digest)).limit(1);
  if (!row || row.revokedAt || !timingSafeEqual(Buffer.from(row.keyHash), Buffer.from(digest))) {
    throw unauthorized('Invalid API key: it is unknown or has been revoked');
  }
  const now = clock.now();
  if (row.expiresAt && row.expiresAt.getTime() <= now) throw unauthorized('API key has expired');
  if (!row.lastUsedAt || now - row.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
    await db.orm.update(apiKeys).set({ lastUsedAt: new Date(now) }).where(eq(apiKeys.id, row.id));
  }
  return { orgId: row.orgId, keyId: row.id };
}

const PUBLIC = new Set(['/api/v1/openapi.json']);

export function isProtected(req: FastifyRequest) {
  const path = req.url.split('?')[0];
  return (path === '/api/v1' || path.startsWith('/api/v1/')) && !PUBLIC.has(path);
}

export function registerAuth(app: FastifyInstance, db: Database, clock: Clock) {
  app.decorateRequest('auth', null as unknown as AuthContext);
  app.addHook('onRequest', async (req) => {
    if (!isProtected(req)) return;
    req.auth = await authenticate(db, clock, req.headers.authorization);
  });
}
