import { and, desc, eq, isNull, sql } from 'drizzle-orm';
import { uuidv7 } from 'uuidv7';
import { apiKeys } from '../../db/schema.js';
import type { Ctx, Deps } from '../../deps.js';
import { AppError, invalidField } from '../../lib/errors.js';
import { iso, type Page } from '../../http/common.js';
import { displayPrefix, generateApiKey, hashApiKey, lastFour } from '../../lib/api-key-format.js';
import type { CreateApiKeyInput } from './api-keys.schemas.js';

export interface ApiKeyView {
  id: string; name: string; prefix: string; last_four: string;
  created_at: string; expires_at: string | null; last_used_at: string | null;
}

const view = (r: typeof apiKeys.$inferSelect): ApiKeyView => ({
  id: r.id, name: r.name, prefix: r.prefix, last_four: r.lastFour,
  created_at: r.createdAt.toISOString(), expires_at: iso(r.expiresAt), last_used_at: iso(r.lastUsedAt),
});

// `rehearsal keys create` opens only the database (src/control.ts): it has no full Deps to pass.
type KeyDeps = Pick<Deps, 'db' | 'clock'>;

/** The full key exists only in this function's return value; the database keeps its SHA-256 digest. */
export async function createApiKey(deps: KeyDeps, ctx: Ctx, input: CreateApiKeyInput) {
  const now = new Date(deps.clock.now());
  const name = input.name.trim();
  if (!name) throw invalidField('name', 'name must not be empty');
  let expiresAt: Date | null = null;
  if (input.expires_at != null) {
    expiresAt = new Date(input.expires_at);
    if (Number.isNaN(expiresAt.getTime())) throw invalidField('expires_at', 'expires_at must be an ISO-8601 date-time', input.expires_at);
    if (expiresAt.getTime() <= now.getTime()) throw invalidField('expires_at', 'expires_at must be in the future', input.expires_at);
  }
  const key = generateApiKey();
  const [row] = await deps.db.orm.insert(apiKeys).values({
    id: uuidv7(), orgId: ctx.orgId, name, keyHash: hashApiKey(key), prefix: displayPrefix(key), lastFour: lastFour(key),
    createdAt: now, expiresAt,
  }).returning();
  return { ...view(row), key };
}

const live = (ctx: Ctx) => and(eq(apiKeys.orgId, ctx.orgId), isNull(apiKeys.revokedAt));

export async function listApiKeys(deps: KeyDeps, ctx: Ctx, p: Page) {
  const [rows, [{ n }]] = await Promise.all([
    deps.db.orm.select().from(apiKeys).where(live(ctx)).orderBy(desc(apiKeys.createdAt), desc(apiKeys.id)).limit(p.limit).offset(p.offset),
    deps.db.orm.select({ n: sql<number>`count(*)::int` }).from(apiKeys).where(live(ctx)),
  ]);
  return { api_keys: rows.map(view), total: n, ...p };
}

export async function revokeApiKey(deps: KeyDeps, ctx: Ctx, id: string) {
  const rows = await deps.db.orm.update(apiKeys).set({ revokedAt: new Date(deps.clock.now()) })
    .where(and(live(ctx), eq(apiKeys.id, id))).returning({ id: apiKeys.id });
  if (rows.length === 0) throw new AppError('NOT_FOUND', 'API key not found');
}
