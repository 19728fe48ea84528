import { and, eq, isNull, lt, or, sql } from 'drizzle-orm';
import { uuidv7 } from 'uuidv7';
import type { Tx } from '../../db/client.js';
import { webhookAttempts, webhookDeliveries, webhookEvents, webhooks } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import { DEFAULT_TIMEOUT_MS, postJson, signedHeaders, systemResolver, type OutboundOptions } from './outbound.js';
import { webhookSecret } from './webhooks.service.js';

/**
 * Auto-disable rule: a webhook is switched off after this many deliveries in a row ended `failed`
 * (every automatic attempt failed) with no successful attempt of any kind in between. With the default
 * schedule a delivery fails only after ~28 h of retries, so this means the endpoint has been down for
 * more than a day. PATCH is_active: true turns it back on and restarts the count.
 */
export const AUTO_DISABLE_AFTER = 5;

export type AttemptTrigger = 'automatic' | 'redeliver' | 'test';
type DeliveryRow = typeof webhookDeliveries.$inferSelect;

/** Enqueues automatic attempt `attempt` of a delivery, in the caller's transaction. */
export type EnqueueAttempt = (tx: Tx, deliveryId: string, attempt: number, delaySeconds: number) => Promise<void>;

export function outboundOptions(deps: Deps): OutboundOptions {
  return {
    timeoutMs: deps.webhookHttp?.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    allowPrivate: deps.config.webhookAllowPrivate,
    resolve: deps.webhookHttp?.resolve ?? systemResolver,
  };
}

/** ±10 %, so deliveries failing together do not retry in lockstep against a recovering endpoint. */
const withJitter = (seconds: number) => seconds * (0.9 + Math.random() * 0.2);

async function load(deps: Deps, deliveryId: string) {
  const [row] = await deps.db.orm.select({ d: webhookDeliveries, w: webhooks, e: webhookEvents }).from(webhookDeliveries)
    .innerJoin(webhooks, eq(webhooks.id, webhookDeliveries.webhookId))
    .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId))
    .where(eq(webhookDeliveries.id, deliveryId));
  return row ?? null;
}

/**
 * Sends the event once to the webhook's current URL with a fresh signature, then records the attempt
 * and moves the delivery (and the webhook's failure count) in one transaction. Returns null when the
 * webhook was deleted meanwhile: its history is gone and nothing is recorded.
 */
async function sendAndRecord(deps: Deps, deliveryId: string, trigger: AttemptTrigger, auto: { attempt: number; enqueue: EnqueueAttempt } | null) {
  const loaded = await load(deps, deliveryId);
  if (!loaded) return null;
  const { w, e } = loaded;
  const attemptedAt = new Date(deps.clock.now());
  const headers = signedHeaders(webhookSecret(deps, w), e.id, Math.floor(attemptedAt.getTime() / 1000), e.body);
  const result = await postJson(w.url, headers, e.body, outboundOptions(deps));
  const ok = result.error === null;
  deps.metrics?.webhookDeliveries.inc({ outcome: ok ? 'succeeded' : result.status === null ? 'error' : 'http_error' });
  return deps.db.transaction(async (tx) => {
    const now = new Date(deps.clock.now());
    const [d] = await tx.orm.update(webhookDeliveries).set({ attemptCount: sql`${webhookDeliveries.attemptCount} + 1`, updatedAt: now })
      .where(eq(webhookDeliveries.id, deliveryId)).returning();
    if (!d) return null;
    await tx.orm.insert(webhookAttempts).values({
      id: uuidv7(), deliveryId, attempt: d.attemptCount, trigger, attemptedAt, responseStatus: result.status,
      responseBody: result.body, durationMs: result.durationMs, error: result.error,
    });
    const set: Partial<DeliveryRow> = {};
    let finalFailure = false;
    if (auto) {
      set.autoAttempts = auto.attempt;
      set.lockedUntil = null;
      // a manual redelivery may have settled it while this attempt was in flight
      if (d.status === 'pending') {
        const schedule = deps.config.webhookRetryScheduleSec;
        if (ok) Object.assign(set, { status: 'succeeded', nextAttemptAt: null });
        else if (auto.attempt <= schedule.length) {
          const delay = withJitter(schedule[auto.attempt - 1]);
          set.nextAttemptAt = new Date(now.getTime() + delay * 1000);
          await auto.enqueue(tx, deliveryId, auto.attempt + 1, delay);
        } else {
          Object.assign(set, { status: 'failed', nextAttemptAt: null });
          finalFailure = true;
        }
      }
    } else if (ok) {
      // pending retries see the status and stop
      Object.assign(set, { status: 'succeeded', nextAttemptAt: null });
    } else if (!(d.status === 'pending' && d.nextAttemptAt)) {
      set.status = 'failed';
    }
    const [updated] = await tx.orm.update(webhookDeliveries).set(set).where(eq(webhookDeliveries.id, deliveryId)).returning();
    if (ok) {
      await tx.orm.update(webhooks).set({ consecutiveFailures: 0 }).where(and(eq(webhooks.id, w.id), sql`${webhooks.consecutiveFailures} <> 0`));
    } else if (finalFailure) {
      await countFailure(tx, w.id, result.error ?? 'failed', now);
    }
    return updated;
  });
}

async function countFailure(tx: Tx, webhookId: string, lastError: string, now: Date) {
  const [w] = await tx.orm.update(webhooks).set({ consecutiveFailures: sql`${webhooks.consecutiveFailures} + 1` })
    .where(eq(webhooks.id, webhookId)).returning();
  if (w && w.isActive && w.consecutiveFailures >= AUTO_DISABLE_AFTER) {
    await tx.orm.update(webhooks).set({
      isActive: false, updatedAt: now,
      disabledReason: `Disabled automatically after ${w.consecutiveFailures} consecutive failed deliveries (last error: ${lastError.slice(0, 200)}). Set is_active to true to resume.`,
    }).where(eq(webhooks.id, webhookId));
  }
}

/** A manual attempt now (redeliver, test ping), outside the retry schedule. */
export const attemptNow = (deps: Deps, deliveryId: string, trigger: 'redeliver' | 'test') => sendAndRecord(deps, deliveryId, trigger, null);

export class DeliveryBusy extends Error {}

/**
 * Automatic attempt `attempt` (the delivery job). Claims the delivery first: a duplicate job for an
 * attempt already made, or a delivery settled, deleted or no longer pending, is a no-op. One held by a
 * live attempt elsewhere throws, so pg-boss tries again after that attempt's lock has lapsed.
 */
export async function attemptScheduled(deps: Deps, deliveryId: string, attempt: number, enqueue: EnqueueAttempt) {
  const now = new Date(deps.clock.now());
  const lockMs = outboundOptions(deps).timeoutMs + 30_000;
  const claimed = await deps.db.orm.update(webhookDeliveries).set({ lockedUntil: new Date(now.getTime() + lockMs) })
    .where(and(
      eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.status, 'pending'), eq(webhookDeliveries.autoAttempts, attempt - 1),
      or(isNull(webhookDeliveries.lockedUntil), lt(webhookDeliveries.lockedUntil, now)),
    )).returning({ id: webhookDeliveries.id });
  if (claimed.length === 0) {
    const [d] = await deps.db.orm.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, deliveryId));
    if (d && d.status === 'pending' && d.autoAttempts === attempt - 1) throw new DeliveryBusy(`delivery ${deliveryId} attempt ${attempt} is in flight elsewhere`);
    return null;
  }
  return sendAndRecord(deps, deliveryId, 'automatic', { attempt, enqueue });
}
