import { and, asc, eq, isNotNull, isNull, lt, lte, or, sql } from 'drizzle-orm';
import { webhookAttempts, webhookDeliveries } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import { LOST_ATTEMPT, lockMs, releaseLostAttempt, type EnqueueAttempt } from './delivery-schedule.js';

/**
 * A delivery's job is only what wakes a worker; the delivery row says what is due. A job normally
 * starts within a second of its due time, so a pending delivery still unclaimed this long after its
 * job became due has lost it (a worker died holding it, or pg-boss spent its retries).
 */
export const LOST_JOB_AFTER_MS = 10_000;

/**
 * One pass, in one transaction, skipping rows another worker is sweeping or claiming:
 * - an automatic attempt past its lock (its worker died or stalled) is recorded as lost and the
 *   schedule moves past it (its next job enqueued);
 * - a due delivery whose job is gone gets a new one (a duplicate is a no-op claim);
 * - an attempt row still in flight long after any lock (a manual attempt whose API process died, or an
 *   automatic one of a delivery settled meanwhile) is recorded as lost.
 */
export async function sweepDeliveries(deps: Deps, enqueue: EnqueueAttempt, limit = 100): Promise<number> {
  const now = new Date(deps.clock.now());
  const stale = new Date(now.getTime() - LOST_JOB_AFTER_MS);
  return deps.db.transaction(async (tx) => {
    const due = await tx.orm.select().from(webhookDeliveries).where(and(
      eq(webhookDeliveries.status, 'pending'),
      or(
        and(isNotNull(webhookDeliveries.lockedUntil), lt(webhookDeliveries.lockedUntil, now)),
        and(
          isNull(webhookDeliveries.lockedUntil), lte(webhookDeliveries.nextAttemptAt, stale),
          or(isNull(webhookDeliveries.enqueuedAt), lt(webhookDeliveries.enqueuedAt, stale)),
        ),
      ),
    )).orderBy(asc(webhookDeliveries.nextAttemptAt)).limit(limit).for('update', { skipLocked: true });
    for (const d of due) {
      if (d.lockToken) {
        await releaseLostAttempt(deps, tx, d, now, enqueue);
      } else {
        if (d.lockedUntil) await tx.orm.update(webhookDeliveries).set({ lockedUntil: null }).where(eq(webhookDeliveries.id, d.id));
        await enqueue(tx, d.id, d.autoAttempts + 1, 0);
      }
    }
    await tx.orm.update(webhookAttempts).set({
      claimToken: null, error: LOST_ATTEMPT,
      durationMs: sql`greatest(0, (extract(epoch from ${now.toISOString()}::timestamptz - ${webhookAttempts.attemptedAt}) * 1000)::int)`,
    }).where(and(isNotNull(webhookAttempts.claimToken), lt(webhookAttempts.attemptedAt, new Date(now.getTime() - lockMs(deps) - LOST_JOB_AFTER_MS))));
    return due.length;
  });
}
