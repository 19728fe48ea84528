import { and, eq, sql } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { webhookAttempts, webhookDeliveries, webhooks } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import { DEFAULT_TIMEOUT_MS } from './outbound.js';

/**
 * Auto-disable rule: a webhook is switched off after this many deliveries in a row ended `failed`
 * (every automatic attempt failed) with no successful attempt of any kind in between. With the default
 * schedule a delivery fails only after ~28 h of retries, so this means the endpoint has been down for
 * more than a day. PATCH is_active: true turns it back on and restarts the count.
 */
export const AUTO_DISABLE_AFTER = 5;

/** What an attempt whose process died (or stalled past its lock) is recorded as. */
export const LOST_ATTEMPT = 'worker lost during the attempt; outcome unknown';

export type DeliveryRow = typeof webhookDeliveries.$inferSelect;

/** Enqueues automatic attempt `attempt` of a delivery, in the caller's transaction. */
export type EnqueueAttempt = (tx: Tx, deliveryId: string, attempt: number, delaySeconds: number) => Promise<void>;

/** ±10 %, so deliveries failing together do not retry in lockstep against a recovering endpoint. */
const withJitter = (seconds: number) => seconds * (0.9 + Math.random() * 0.2);

/**
 * Moves a pending delivery past its failed automatic attempt `attempt`: the next one is due one
 * (jittered) schedule step after `from`, never before now; past the schedule's end the delivery fails.
 * Releases the attempt lock. Runs only in a transaction that holds the delivery's lock token.
 */
export async function afterFailedAttempt(deps: Deps, tx: Tx, d: DeliveryRow, attempt: number, from: Date, now: Date, error: string, enqueue: EnqueueAttempt) {
  const schedule = deps.config.webhookRetryScheduleSec;
  if (attempt <= schedule.length) {
    const due = Math.max(now.getTime(), from.getTime() + withJitter(schedule[attempt - 1]) * 1000);
    const delay = (due - now.getTime()) / 1000;
    const [updated] = await tx.orm.update(webhookDeliveries).set({ autoAttempts: attempt, nextAttemptAt: new Date(due), lockedUntil: null, lockToken: null, updatedAt: now })
      .where(eq(webhookDeliveries.id, d.id)).returning();
    await enqueue(tx, d.id, attempt + 1, delay);
    return updated;
  }
  const [updated] = await tx.orm.update(webhookDeliveries).set({ autoAttempts: attempt, status: 'failed', nextAttemptAt: null, lockedUntil: null, lockToken: null, updatedAt: now })
    .where(eq(webhookDeliveries.id, d.id)).returning();
  await countFailure(tx, d.webhookId, error, now);
  return updated;
}

/**
 * The automatic attempt holding `d` ran past its lock: its process died or stalled. Its row (written
 * before the request went out) becomes a lost attempt, and the schedule moves on as for any failed
 * attempt, from the time the lost one started. Caller holds the delivery row locked.
 */
export async function releaseLostAttempt(deps: Deps, tx: Tx, d: DeliveryRow, now: Date, enqueue: EnqueueAttempt) {
  const [lost] = await tx.orm.update(webhookAttempts)
    .set({ claimToken: null, error: LOST_ATTEMPT, durationMs: sql`greatest(0, (extract(epoch from ${now.toISOString()}::timestamptz - ${webhookAttempts.attemptedAt}) * 1000)::int)` })
    .where(and(eq(webhookAttempts.deliveryId, d.id), eq(webhookAttempts.claimToken, d.lockToken ?? '')))
    .returning({ attemptedAt: webhookAttempts.attemptedAt });
  // the row may already be marked (the in-flight sweep got there first): the lock still dates the attempt
  const startedAt = lost?.attemptedAt ?? new Date((d.lockedUntil ?? now).getTime() - lockMs(deps));
  if (d.status !== 'pending') {
    await tx.orm.update(webhookDeliveries).set({ lockedUntil: null, lockToken: null }).where(eq(webhookDeliveries.id, d.id));
    return;
  }
  await afterFailedAttempt(deps, tx, d, d.autoAttempts, startedAt, now, LOST_ATTEMPT, enqueue);
}

/** How long an automatic attempt holds its delivery: the request's timeout and a few seconds to record it. */
export function lockMs(deps: Deps) {
  return (deps.webhookHttp?.timeoutMs ?? DEFAULT_TIMEOUT_MS) + 5_000;
}

export async function countFailure(tx: Tx, webhookId: string, lastError: string, now: Date) {
  const [w] = await tx.orm.update(webhooks).set({ consecutiveFailures: sql`${webhooks.consecutiveFailures} + 1` })
    .where(eq(webhooks.id, webhookId)).returning();
  if (w && w.isActive && w.consecutiveFailures >= AUTO_DISABLE_AFTER) {
    await tx.orm.update(webhooks).set({
      isActive: false, updatedAt: now,
      disabledReason: `Disabled automatically after ${w.consecutiveFailures} consecutive failed deliveries (last error: ${lastError.slice(0, 200)}). Set is_active to true to resume.`,
    }).where(eq(webhooks.id, webhookId));
  }
}

export async function resetFailures(tx: Tx, webhookId: string) {
  await tx.orm.update(webhooks).set({ consecutiveFailures: 0 }).where(and(eq(webhooks.id, webhookId), sql`${webhooks.consecutiveFailures} <> 0`));
}
