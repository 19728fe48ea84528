import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../../test/harness.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../../test/fakes/webhook-receiver.js';
import { canceledRun, DELIVERY_ENV, newAgent, newWebhook, onlyDelivery, sleep, waitForDelivery } from '../../../test/webhook-helpers.js';
import { webhookDeliveries, webhooks } from '../../db/schema.js';
import { LOST_ATTEMPT } from './delivery-attempt.js';
import { IN_FLIGHT } from './deliveries.service.js';

let t: TestContext;
let rx: WebhookReceiver;
beforeAll(async () => {
  t = await createTestContext({ env: DELIVERY_ENV, webhooks: { pollIntervalMs: 50, sweepIntervalMs: 200 }, webhookHttp: { timeoutMs: 1500 } });
  rx = await startWebhookReceiver();
});
afterAll(async () => { await t?.close(); await rx?.close(); });

const path = () => `/${Math.random().toString(36).slice(2)}`;

describe('attempts written ahead', () => {
  it('an attempt is in the history, in flight, before its request is answered', async () => {
    const p = path();
    rx.script(p, 'timeout');
    const hook = await newWebhook(t, { url: `${rx.url}${p}` });
    await canceledRun(t, await newAgent(t));
    await rx.waitFor(1, 5000, p);
    const d = await onlyDelivery(t, hook.id);
    const inFlight = (await t.call('GET', `/api/v1/webhooks/${hook.id}/deliveries/${d.id}`)).body;
    expect(inFlight).toMatchObject({ status: 'pending', attempt_count: 1 });
    expect(inFlight.attempts.map((a: any) => [a.attempt, a.response_status, a.error])).toEqual([[1, null, IN_FLIGHT]]);
    const done = await waitForDelivery(t, hook.id, d.id, (x) => x.status === 'succeeded');
    expect(done.attempts.map((a: any) => a.error)).toEqual(['timeout: no response within 1500 ms', null]);
  });

  it('an attempt past its lock is recorded lost and retried; its worker, late, records the real outcome and moves nothing', async () => {
    const p = path();
    rx.script(p, 'timeout');
    const hook = await newWebhook(t, { url: `${rx.url}${p}` });
    await canceledRun(t, await newAgent(t));
    await rx.waitFor(1, 5000, p);
    const d = await onlyDelivery(t, hook.id);
    // as if the worker had stalled past its lock: the sweeper takes over while the request is still open
    await t.deps.db.orm.update(webhookDeliveries).set({ lockedUntil: sql`now() - interval '1 second'` }).where(eq(webhookDeliveries.id, d.id));
    const retried = await waitForDelivery(t, hook.id, d.id, (x) => x.status === 'succeeded', 5000);
    expect(retried.attempts.map((a: any) => [a.attempt, a.error])).toEqual([[1, LOST_ATTEMPT], [2, null]]);
    expect(rx.count(p)).toBe(2);
    // the first request times out now: its row gets the outcome, the delivery stays as the taker left it
    const late = await waitForDelivery(t, hook.id, d.id, (x) => x.attempts[0].error !== LOST_ATTEMPT, 5000);
    expect(late).toMatchObject({ status: 'succeeded', attempt_count: 2, updated_at: retried.updated_at });
    expect(late.attempts[0].error).toBe('timeout: no response within 1500 ms');
    const [row] = await t.deps.db.orm.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, d.id));
    expect(row).toMatchObject({ autoAttempts: 2, lockToken: null, lockedUntil: null });
    await sleep(500);
    expect(rx.count(p)).toBe(2);
  });
});

describe('a deterministic failure inside an attempt', () => {
  it('a secret that cannot be opened is a failed attempt with its error, retried on schedule; no job throws', async () => {
    const p = path();
    const hook = await newWebhook(t, { url: `${rx.url}${p}` });
    // as if sealed under another REHEARSAL_SECRET_KEY
    await t.deps.db.orm.update(webhooks).set({ secretSealed: 'v1.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA.AAAA' }).where(eq(webhooks.id, hook.id));
    await canceledRun(t, await newAgent(t));
    const d = await onlyDelivery(t, hook.id);
    const done = await waitForDelivery(t, hook.id, d.id, (x) => x.status === 'failed');
    expect(done.attempts).toHaveLength(5);
    for (const a of done.attempts) {
      expect(a).toMatchObject({ response_status: null, trigger: 'automatic' });
      expect(a.error).toBe("signing: the webhook's secret cannot be opened (is REHEARSAL_SECRET_KEY the key it was saved with?)");
    }
    expect(rx.count(p)).toBe(0);
    // completions are written in batches: give the last one a moment
    const states = async () => (await t.deps.db.executeSql(`select state from pgboss.job where name = 'webhook-delivery' and data->>'delivery_id' = $1`, [d.id])).rows.map((r) => r.state);
    for (let i = 0; i < 20 && (await states()).includes('active'); i++) await sleep(100);
    expect(await states()).toEqual(Array(5).fill('completed'));
  });
});
