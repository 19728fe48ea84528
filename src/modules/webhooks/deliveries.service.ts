import { and, asc, desc, eq, isNull, or, sql } from 'drizzle-orm';
import { uuidv7 } from 'uuidv7';
import type { Tx } from '../../db/client.js';
import { runs, webhookAttempts, webhookDeliveries, webhookEvents, webhooks } from '../../db/schema.js';
import type { Ctx, Deps } from '../../deps.js';
import { AppError } from '../../http/errors.js';
import type { Page } from '../../http/common.js';
import { runViews } from '../runs/runs.view.js';
import { comparisonSummary } from '../runs/comparison.service.js';
import { attemptNow, type EnqueueAttempt } from './delivery-attempt.js';
import { getWebhookRow } from './webhooks.service.js';
import type { WebhookEvent } from './webhooks.schemas.js';

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export const DELIVERY_EVENTS = ['test_run_completed', 'test_run_failed', 'test_run_canceled', 'test_run_regressed', 'ping'] as const;

const EVENT_OF_STATUS: Record<string, WebhookEvent> = {
  completed: 'test_run_completed', failed: 'test_run_failed', canceled: 'test_run_canceled',
};

type DeliveryRow = typeof webhookDeliveries.$inferSelect;
type AttemptRow = typeof webhookAttempts.$inferSelect;

/**
 * Runs inside the transaction that gives a run its final state: the events, one delivery per matching
 * webhook and their first jobs commit together with that state or not at all. An event is unique per
 * (run, kind), so a finalizing transaction that runs twice cannot emit one twice. A run with a baseline
 * that ends regressed also emits test_run_regressed with the same payload, so a nightly schedule can page
 * someone without every completed run doing so.
 */
export async function emitRunEvent(deps: Deps, tx: Tx, runId: string, enqueue: EnqueueAttempt): Promise<number> {
  const [run] = await tx.orm.select().from(runs).where(eq(runs.id, runId));
  const event = run && EVENT_OF_STATUS[run.status];
  if (!event) return 0;
  const [testRun] = await runViews(tx, [run]);
  const comparison = run.baselineRunId ? await comparisonSummary(tx, run) : null;
  const events: WebhookEvent[] = [event];
  if (event === 'test_run_completed' && comparison?.verdict === 'regressed') events.push('test_run_regressed');
  let sent = 0;
  for (const e of events) {
    const payload = { test_run: testRun, ...(comparison ? { comparison } : {}) };
    sent += await emitOne(deps, tx, run, e, payload, enqueue);
  }
  return sent;
}

async function emitOne(
  deps: Deps, tx: Tx, run: typeof runs.$inferSelect, event: WebhookEvent, payload: Record<string, unknown>, enqueue: EnqueueAttempt,
): Promise<number> {
  const now = new Date(deps.clock.now());
  const id = uuidv7();
  const body = JSON.stringify({ event, ...payload, id, created_at: now.toISOString() });
  const inserted = await tx.orm.insert(webhookEvents).values({ id, orgId: run.orgId, runId: run.id, event, body, createdAt: now })
    .onConflictDoNothing({ target: [webhookEvents.runId, webhookEvents.event] }).returning({ id: webhookEvents.id });
  if (inserted.length === 0) return 0;
  // filters and is_active as they are now: a webhook switched on later does not receive past events
  const targets = await tx.orm.select({ id: webhooks.id }).from(webhooks).where(and(
    eq(webhooks.orgId, run.orgId), eq(webhooks.isActive, true),
    or(isNull(webhooks.agentId), eq(webhooks.agentId, run.agentId)),
    sql`${webhooks.events} @> ${JSON.stringify([event])}::jsonb`,
  ));
  for (const w of targets) {
    const deliveryId = uuidv7();
    await tx.orm.insert(webhookDeliveries).values({
      id: deliveryId, webhookId: w.id, eventId: id, event, status: 'pending', nextAttemptAt: now, createdAt: now, updatedAt: now,
    });
    await enqueue(tx, deliveryId, 1, 0);
  }
  return targets.length;
}

/** An attempt is recorded before its request goes out; until its outcome is written it reads as in flight. */
export const IN_FLIGHT = 'in flight: no outcome recorded yet';

export const attemptView = (a: AttemptRow) => ({
  attempt: a.attempt, trigger: a.trigger, attempted_at: a.attemptedAt.toISOString(), response_status: a.responseStatus,
  response_body: a.responseBody, duration_ms: a.durationMs, error: a.claimToken ? IN_FLIGHT : a.error,
});

export const deliveryView = (d: DeliveryRow) => ({
  id: d.id, webhook_id: d.webhookId, event_id: d.eventId, event: d.event, status: d.status, attempt_count: d.attemptCount,
  next_attempt_at: d.status === 'pending' && d.nextAttemptAt ? d.nextAttemptAt.toISOString() : null,
  created_at: d.createdAt.toISOString(), updated_at: d.updatedAt.toISOString(),
});

const webhookNotFound = () => new AppError('NOT_FOUND', 'Webhook not found');
const deliveryNotFound = () => new AppError('NOT_FOUND', 'Delivery not found');

async function ownedWebhook(deps: Deps, ctx: Ctx, webhookId: string) {
  const w = await getWebhookRow(deps, ctx, webhookId);
  if (!w) throw webhookNotFound();
  return w;
}

export async function listDeliveries(deps: Deps, ctx: Ctx, webhookId: string, q: { status?: string; event?: string }, p: Page) {
  await ownedWebhook(deps, ctx, webhookId);
  const where = and(
    eq(webhookDeliveries.webhookId, webhookId),
    q.status ? eq(webhookDeliveries.status, q.status) : undefined,
    q.event ? eq(webhookDeliveries.event, q.event) : undefined,
  );
  const [rows, [{ n }]] = await Promise.all([
    deps.db.orm.select().from(webhookDeliveries).where(where)
      .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id)).limit(p.limit).offset(p.offset),
    deps.db.orm.select({ n: sql<number>`count(*)::int` }).from(webhookDeliveries).where(where),
  ]);
  return { deliveries: rows.map(deliveryView), total: n, ...p };
}

async function detail(deps: Deps, deliveryId: string) {
  const [row] = await deps.db.orm.select({ d: webhookDeliveries, body: webhookEvents.body }).from(webhookDeliveries)
    .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId)).where(eq(webhookDeliveries.id, deliveryId));
  if (!row) throw deliveryNotFound();
  const attempts = await deps.db.orm.select().from(webhookAttempts)
    .where(eq(webhookAttempts.deliveryId, deliveryId)).orderBy(asc(webhookAttempts.attempt));
  return { ...deliveryView(row.d), payload: JSON.parse(row.body) as Record<string, unknown>, attempts: attempts.map(attemptView) };
}

async function ownedDelivery(deps: Deps, ctx: Ctx, webhookId: string, deliveryId: string) {
  await ownedWebhook(deps, ctx, webhookId);
  const [d] = await deps.db.orm.select({ id: webhookDeliveries.id }).from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.webhookId, webhookId)));
  if (!d) throw deliveryNotFound();
}

export async function getDelivery(deps: Deps, ctx: Ctx, webhookId: string, deliveryId: string) {
  await ownedDelivery(deps, ctx, webhookId, deliveryId);
  return detail(deps, deliveryId);
}

export async function redeliver(deps: Deps, ctx: Ctx, webhookId: string, deliveryId: string) {
  await ownedDelivery(deps, ctx, webhookId, deliveryId);
  await attemptNow(deps, deliveryId, 'redeliver');
  return detail(deps, deliveryId);
}

/** A `ping` event for this webhook alone, sent once now (no retries), whatever its is_active and events. */
export async function sendTestPing(deps: Deps, ctx: Ctx, webhookId: string) {
  const w = await ownedWebhook(deps, ctx, webhookId);
  const now = new Date(deps.clock.now());
  const eventId = uuidv7();
  const deliveryId = uuidv7();
  const body = JSON.stringify({ event: 'ping', id: eventId, created_at: now.toISOString(), webhook_id: w.id });
  await deps.db.transaction(async (tx) => {
    await tx.orm.insert(webhookEvents).values({ id: eventId, orgId: ctx.orgId, runId: null, event: 'ping', body, createdAt: now });
    await tx.orm.insert(webhookDeliveries).values({ id: deliveryId, webhookId: w.id, eventId, event: 'ping', status: 'pending', createdAt: now, updatedAt: now });
  });
  await attemptNow(deps, deliveryId, 'test');
  return detail(deps, deliveryId);
}
