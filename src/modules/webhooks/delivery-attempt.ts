import { eq, sql } from 'drizzle-orm';
import { uuidv7 } from 'uuidv7';
import type { Tx } from '../../db/client.js';
import { webhookAttempts, webhookDeliveries, webhookEvents, webhooks } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import { SecretBoxError } from '../../lib/secret-box.js';
import {
  afterFailedAttempt, lockMs, releaseLostAttempt, resetFailures, type DeliveryRow, type EnqueueAttempt,
} from './delivery-schedule.js';
import { DEFAULT_TIMEOUT_MS, postJson, signedHeaders, systemResolver, type OutboundOptions, type OutboundResult } from './outbound.js';
import { webhookSecret } from './webhooks.service.js';

export { AUTO_DISABLE_AFTER, LOST_ATTEMPT, type EnqueueAttempt } from './delivery-schedule.js';

export type AttemptTrigger = 'automatic' | 'redeliver' | 'test';

export function outboundOptions(deps: Deps): OutboundOptions {
  return {
    timeoutMs: deps.webhookHttp?.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    allowPrivate: deps.config.webhookAllowPrivate,
    resolve: deps.webhookHttp?.resolve ?? systemResolver,
  };
}

/** An attempt written ahead: its row exists (in flight, with `token`) before the request goes out. */
interface Claim {
  deliveryId: string;
  attemptId: string;
  token: string;
  attemptedAt: Date;
  /** The position in the retry schedule of an automatic attempt; null for a manual one. */
  auto: number | null;
  w: typeof webhooks.$inferSelect;
  e: typeof webhookEvents.$inferSelect;
}

// a job may arrive a moment before its due time when the database's clock runs ahead of ours
const EARLY_MS = 1000;

async function lockedDelivery(tx: Tx, deliveryId: string) {
  const [row] = await tx.orm.select({ d: webhookDeliveries, w: webhooks, e: webhookEvents }).from(webhookDeliveries)
    .innerJoin(webhooks, eq(webhooks.id, webhookDeliveries.webhookId))
    .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId))
    .where(eq(webhookDeliveries.id, deliveryId)).for('update', { of: webhookDeliveries });
  return row ?? null;
}

/**
 * Numbers the attempt and inserts its row, in flight. The time is read once the delivery row is
 * locked, so numbers and times agree however many processes attempt the same delivery.
 */
async function writeAhead(deps: Deps, tx: Tx, deliveryId: string, trigger: AttemptTrigger, token: string, set: Partial<DeliveryRow> = {}) {
  const attemptedAt = new Date(deps.clock.now());
  const [{ n }] = await tx.orm.update(webhookDeliveries)
    .set({ ...set, attemptCount: sql`${webhookDeliveries.attemptCount} + 1`, updatedAt: attemptedAt })
    .where(eq(webhookDeliveries.id, deliveryId)).returning({ n: webhookDeliveries.attemptCount });
  const attemptId = uuidv7();
  await tx.orm.insert(webhookAttempts).values({ id: attemptId, deliveryId, attempt: n, trigger, attemptedAt, durationMs: 0, claimToken: token });
  return { attemptId, attemptedAt };
}

/**
 * Claims automatic attempt `attempt`: only for a pending delivery at that point of its schedule, due,
 * and not held by a live attempt. A duplicate job is therefore a no-op. An attempt whose lock ran out
 * (its worker died or stalled) is recorded as lost first and the schedule moves past it.
 */
async function claimAutomatic(deps: Deps, deliveryId: string, attempt: number, workerId: string, enqueue: EnqueueAttempt): Promise<Claim | null> {
  return deps.db.transaction(async (tx) => {
    const row = await lockedDelivery(tx, deliveryId);
    if (!row || row.d.status !== 'pending') return null;
    const now = new Date(deps.clock.now());
    let d = row.d;
    if (d.lockedUntil && d.lockedUntil > now) return null;
    if (d.lockToken) {
      await releaseLostAttempt(deps, tx, d, now, enqueue);
      [d] = await tx.orm.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, deliveryId));
    }
    if (d.status !== 'pending' || d.autoAttempts !== attempt - 1) return null;
    if (d.nextAttemptAt && d.nextAttemptAt.getTime() > now.getTime() + EARLY_MS) return null;
    const token = `${workerId}:${uuidv7()}`;
    const ahead = await writeAhead(deps, tx, deliveryId, 'automatic', token, {
      autoAttempts: attempt, lockedUntil: new Date(now.getTime() + lockMs(deps)), lockToken: token,
    });
    return { deliveryId, ...ahead, token, auto: attempt, w: row.w, e: row.e };
  });
}

async function claimManual(deps: Deps, deliveryId: string, trigger: 'redeliver' | 'test'): Promise<Claim | null> {
  return deps.db.transaction(async (tx) => {
    const row = await lockedDelivery(tx, deliveryId);
    if (!row) return null;
    const token = `manual:${uuidv7()}`;
    const ahead = await writeAhead(deps, tx, deliveryId, trigger, token);
    return { deliveryId, ...ahead, token, auto: null, w: row.w, e: row.e };
  });
}

/**
 * Signs and sends. Signing cannot succeed later if it fails now (a secret sealed under another
 * REHEARSAL_SECRET_KEY, say): that is this attempt's error, recorded like any other failure.
 */
async function send(deps: Deps, c: Claim): Promise<OutboundResult> {
  let headers: Record<string, string>;
  try {
    headers = signedHeaders(webhookSecret(deps, c.w), c.e.id, Math.floor(c.attemptedAt.getTime() / 1000), c.e.body);
  } catch (err) {
    const why = err instanceof SecretBoxError
      ? "the webhook's secret cannot be opened (is REHEARSAL_SECRET_KEY the key it was saved with?)"
      : (err as Error)?.message ?? String(err);
    deps.metrics?.webhookDeliveries.inc({ outcome: 'error' });
    return { status: null, body: null, durationMs: 0, error: `signing: ${why}` };
  }
  const result = await postJson(c.w.url, headers, c.e.body, outboundOptions(deps));
  deps.metrics?.webhookDeliveries.inc({ outcome: result.error === null ? 'succeeded' : result.status === null ? 'error' : 'http_error' });
  return result;
}

/**
 * Writes the outcome into the attempt's own row (even one already marked lost: the outcome is now
 * known), then moves the delivery only if this attempt still holds it. A stale attempt, whose lock was
 * taken over, never moves the schedule. Returns null when the webhook was deleted meanwhile.
 */
async function record(deps: Deps, c: Claim, result: OutboundResult, enqueue: EnqueueAttempt | null): Promise<DeliveryRow | null> {
  return deps.db.transaction(async (tx) => {
    const now = new Date(deps.clock.now());
    // the delivery before its attempt and its webhook: the order deleteWebhook locks them in
    const [d] = await tx.orm.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, c.deliveryId)).for('update');
    if (!d) return null;
    const [a] = await tx.orm.update(webhookAttempts).set({
      responseStatus: result.status, responseBody: result.body, durationMs: result.durationMs, error: result.error, claimToken: null,
    }).where(eq(webhookAttempts.id, c.attemptId)).returning({ id: webhookAttempts.id });
    if (!a) return null;
    const ok = result.error === null;
    if (ok) await resetFailures(tx, d.webhookId);
    const set = (s: Partial<DeliveryRow>) => tx.orm.update(webhookDeliveries).set({ ...s, updatedAt: now }).where(eq(webhookDeliveries.id, d.id)).returning().then((r) => r[0]);
    if (c.auto !== null) {
      if (d.lockToken !== c.token) return d;
      // a manual redelivery may have settled it while this attempt was in flight
      if (d.status !== 'pending') return set({ lockedUntil: null, lockToken: null });
      if (ok) return set({ status: 'succeeded', nextAttemptAt: null, lockedUntil: null, lockToken: null });
      return afterFailedAttempt(deps, tx, d, c.auto, now, now, result.error ?? 'failed', enqueue!);
    }
    // pending retries see the status and stop
    if (ok) return set({ status: 'succeeded', nextAttemptAt: null });
    if (!(d.status === 'pending' && d.nextAttemptAt)) return set({ status: 'failed' });
    return d;
  });
}

/**
 * The outcome is known: keep trying to write it for a few seconds (a database restart). If it still
 * cannot be written, the attempt's lock runs out and it is recorded as lost.
 */
async function recordPatiently(deps: Deps, c: Claim, result: OutboundResult, enqueue: EnqueueAttempt | null) {
  for (let i = 0; ; i++) {
    try {
      return await record(deps, c, result, enqueue);
    } catch (err) {
      if (i >= 4) throw err;
      await new Promise((r) => setTimeout(r, 500 * 2 ** i));
    }
  }
}

/** A manual attempt now (redeliver, test ping), outside the retry schedule. */
export async function attemptNow(deps: Deps, deliveryId: string, trigger: 'redeliver' | 'test') {
  const c = await claimManual(deps, deliveryId, trigger);
  if (!c) return null;
  return recordPatiently(deps, c, await send(deps, c), null);
}

/** Automatic attempt `attempt` (the delivery job), made by the worker `workerId`. */
export async function attemptScheduled(deps: Deps, deliveryId: string, attempt: number, workerId: string, enqueue: EnqueueAttempt) {
  const c = await claimAutomatic(deps, deliveryId, attempt, workerId, enqueue);
  if (!c) return null;
  return recordPatiently(deps, c, await send(deps, c), enqueue);
}
