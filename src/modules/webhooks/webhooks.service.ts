import { randomBytes } from 'node:crypto';
import { and, asc, desc, eq, sql } from 'drizzle-orm';
import { uuidv7 } from 'uuidv7';
import { webhookDeliveries, webhooks } from '../../db/schema.js';
import type { Ctx, Deps } from '../../deps.js';
import { AppError, invalidField, referencedNotFound } from '../../http/errors.js';
import { isUuid, type Page } from '../../http/common.js';
import { getAgentRow } from '../agents/agents.service.js';
import { type CreateWebhookInput, type UpdateWebhookInput, WEBHOOK_EVENTS, type WebhookListQuery } from './webhooks.schemas.js';

type Row = typeof webhooks.$inferSelect;

export interface WebhookView {
  id: string; url: string; description: string | null; agent_id: string | null; events: string[]; is_active: boolean;
  disabled_reason: string | null; created_at: string; updated_at: string;
}

export const webhookView = (r: Row): WebhookView => ({
  id: r.id, url: r.url, description: r.description, agent_id: r.agentId, events: r.events, is_active: r.isActive,
  disabled_reason: r.disabledReason, created_at: r.createdAt.toISOString(), updated_at: r.updatedAt.toISOString(),
});

const notFound = () => new AppError('NOT_FOUND', 'Webhook not found');

/** Binds a sealed secret to its organization and webhook: copied to another row, it cannot be opened. */
export const webhookSecretAad = (orgId: string, webhookId: string) => `rehearsal/webhook-secret:${orgId}:${webhookId}`;

/** The signing secret in clear, for the delivery job only; it is never returned after creation. */
export function webhookSecret(deps: Deps, row: Row): string {
  return deps.box.open(row.secretSealed, webhookSecretAad(row.orgId, row.id));
}

// Standard Webhooks form: the part after whsec_ is the base64 HMAC key.
const generateSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

function checkUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    throw invalidField('url', 'url must be an absolute http(s) URL', raw);
  }
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || !u.hostname) {
    throw invalidField('url', 'url must be an absolute http(s) URL', raw);
  }
  return raw.trim();
}

async function checkAgent(deps: Deps, ctx: Ctx, agentId: string | null | undefined): Promise<string | null> {
  if (agentId === undefined || agentId === null) return null;
  if (!isUuid(agentId)) throw invalidField('agent_id', 'agent_id must be a UUID', agentId);
  const agent = await getAgentRow(deps, ctx, agentId.toLowerCase());
  if (!agent) throw referencedNotFound('AGENT_NOT_FOUND', 'Agent not found', 'agent_id');
  return agent.id;
}

export async function createWebhook(deps: Deps, ctx: Ctx, input: CreateWebhookInput) {
  const url = checkUrl(input.url);
  const agentId = await checkAgent(deps, ctx, input.agent_id);
  const secret = input.secret ?? generateSecret();
  const id = uuidv7();
  const now = new Date(deps.clock.now());
  const [row] = await deps.db.orm.insert(webhooks).values({
    id, orgId: ctx.orgId, url, description: input.description || null, agentId, events: input.events ?? [...WEBHOOK_EVENTS],
    isActive: true, secretSealed: deps.box.seal(secret, webhookSecretAad(ctx.orgId, id)), createdAt: now, updatedAt: now,
  }).returning();
  return { ...webhookView(row), secret };
}

export async function listWebhooks(deps: Deps, ctx: Ctx, q: WebhookListQuery, p: Page) {
  if (q.agent_id !== undefined && !isUuid(q.agent_id)) throw invalidField('agent_id', 'agent_id must be a UUID', q.agent_id);
  const where = and(eq(webhooks.orgId, ctx.orgId), q.agent_id ? eq(webhooks.agentId, q.agent_id.toLowerCase()) : undefined);
  const [rows, [{ n }]] = await Promise.all([
    deps.db.orm.select().from(webhooks).where(where).orderBy(desc(webhooks.createdAt), desc(webhooks.id)).limit(p.limit).offset(p.offset),
    deps.db.orm.select({ n: sql<number>`count(*)::int` }).from(webhooks).where(where),
  ]);
  return { webhooks: rows.map(webhookView), total: n, ...p };
}

export async function getWebhookRow(deps: Deps, ctx: Ctx, id: string): Promise<Row | null> {
  const [row] = await deps.db.orm.select().from(webhooks).where(and(eq(webhooks.orgId, ctx.orgId), eq(webhooks.id, id)));
  return row ?? null;
}

export async function getWebhook(deps: Deps, ctx: Ctx, id: string) {
  const row = await getWebhookRow(deps, ctx, id);
  if (!row) throw notFound();
  return webhookView(row);
}

export async function updateWebhook(deps: Deps, ctx: Ctx, id: string, input: UpdateWebhookInput) {
  const set: Partial<typeof webhooks.$inferInsert> = { updatedAt: new Date(deps.clock.now()) };
  if (input.url !== undefined) set.url = checkUrl(input.url);
  if (input.description !== undefined) set.description = input.description || null;
  if (input.events !== undefined) set.events = input.events;
  if (input.secret !== undefined) set.secretSealed = deps.box.seal(input.secret, webhookSecretAad(ctx.orgId, id));
  if (input.is_active !== undefined) {
    set.isActive = input.is_active;
    // Turning a webhook (back) on starts its failure count afresh; an automatic disable reason no longer applies.
    if (input.is_active) { set.consecutiveFailures = 0; set.disabledReason = null; }
  }
  const [row] = await deps.db.orm.update(webhooks).set(set).where(and(eq(webhooks.orgId, ctx.orgId), eq(webhooks.id, id))).returning();
  if (!row) throw notFound();
  return webhookView(row);
}

/**
 * Permanent. The delivery history goes with it (ON DELETE CASCADE). Every transaction of a delivery
 * worker locks a delivery before its attempts or its webhook; the cascade alone would lock the webhook
 * first and deadlock with an attempt being recorded, so the deliveries are locked first here too.
 */
export async function deleteWebhook(deps: Deps, ctx: Ctx, id: string) {
  const rows = await deps.db.transaction(async (tx) => {
    await tx.orm.select({ id: webhookDeliveries.id }).from(webhookDeliveries)
      .innerJoin(webhooks, eq(webhooks.id, webhookDeliveries.webhookId))
      .where(and(eq(webhooks.orgId, ctx.orgId), eq(webhookDeliveries.webhookId, id)))
      .orderBy(asc(webhookDeliveries.id)).for('update', { of: webhookDeliveries });
    return tx.orm.delete(webhooks).where(and(eq(webhooks.orgId, ctx.orgId), eq(webhooks.id, id))).returning({ id: webhooks.id });
  });
  if (rows.length === 0) throw notFound();
}
