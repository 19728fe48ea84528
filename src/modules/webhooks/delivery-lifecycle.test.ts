import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../../test/harness.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../../test/fakes/webhook-receiver.js';
import { canceledRun, DELIVERY_ENV, newAgent, newWebhook, onlyDelivery, sleep, waitForDelivery } from '../../../test/webhook-helpers.js';
import { webhookAttempts, webhookDeliveries, webhooks } from '../../db/schema.js';
import { AUTO_DISABLE_AFTER } from './delivery-attempt.js';

let t: TestContext;
let rx: WebhookReceiver;
beforeAll(async () => {
  t = await createTestContext({ env: DELIVERY_ENV, webhooks: { pollIntervalMs: 50 }, webhookHttp: { timeoutMs: 1500 } });
  rx = await startWebhookReceiver();
});
afterAll(async () => { await t?.close(); await rx?.close(); });

const path = () => `/${Math.random().toString(36).slice(2)}`;
const historyOf = async (webhookId: string) => {
  const ds = await t.deps.db.orm.select({ id: webhookDeliveries.id }).from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, webhookId));
  const as = ds.length === 0 ? [] : await t.deps.db.orm.select().from(webhookAttempts).where(inArray(webhookAttempts.deliveryId, ds.map((d) => d.id)));
  return { deliveries: ds.length, attempts: as.length };
};
/** Runs `fn` with another retry schedule; config is read at every attempt. */
async function withSchedule<T>(schedule: number[], fn: () => Promise<T>): Promise<T> {
  const saved = t.deps.config.webhookRetryScheduleSec;
  t.deps.config.webhookRetryScheduleSec = schedule;
  try { return await fn(); } finally { t.deps.config.webhookRetryScheduleSec = saved; }
}

describe('a webhook deleted during retries', () => {
  it('loses its deliveries and attempts, and its scheduled retry never goes out', async () => {
    await withSchedule([1.5, 1.5], async () => {
      const { key } = await t.newOrg();
      const p = path();
      rx.script(p, 500, 500, 500);
      const hook = await newWebhook(t, { url: `${rx.url}${p}` }, key);
      await canceledRun(t, await newAgent(t, key), key);
      const d = await onlyDelivery(t, hook.id, key);
      await waitForDelivery(t, hook.id, d.id, (x) => x.attempt_count === 1, 10_000, key);
      expect(await historyOf(hook.id)).toEqual({ deliveries: 1, attempts: 1 });
      expect((await t.call('DELETE', `/api/v1/webhooks/${hook.id}`, { key })).status).toBe(204);
      expect(await historyOf(hook.id)).toEqual({ deliveries: 0, attempts: 0 });
      await sleep(2500);
      expect(rx.count(p)).toBe(1);
    });
  });

  it('an attempt in flight when it is deleted records nothing and schedules nothing', async () => {
    const { key } = await t.newOrg();
    const p = path();
    rx.script(p, 'timeout', 500, 500);
    const hook = await newWebhook(t, { url: `${rx.url}${p}` }, key);
    await canceledRun(t, await newAgent(t, key), key);
    await rx.waitFor(1, 5000, p);
    await t.call('DELETE', `/api/v1/webhooks/${hook.id}`, { key });
    await sleep(2000);
    expect(rx.count(p)).toBe(1);
    expect(await historyOf(hook.id)).toEqual({ deliveries: 0, attempts: 0 });
  });
});

describe('auto-disable', () => {
  const failures = async (id: string) => (await t.deps.db.orm.select().from(webhooks).where(eq(webhooks.id, id)))[0].consecutiveFailures;

  it(`disables a webhook after ${AUTO_DISABLE_AFTER} consecutive failed deliveries; any success resets the count; PATCH re-enables`, async () => {
    await withSchedule([0.05], async () => {
      const { key } = await t.newOrg();
      const agentId = await newAgent(t, key);
      const p = path();
      const hook = await newWebhook(t, { url: `${rx.url}${p}` }, key);
      rx.setFallback(500, p);
      const failRuns = async (n: number) => {
        for (let i = 0; i < n; i++) await canceledRun(t, agentId, key);
        const deadline = Date.now() + 10_000;
        while ((await t.call('GET', `/api/v1/webhooks/${hook.id}/deliveries?status=pending`, { key })).body.total > 0) {
          if (Date.now() > deadline) throw new Error('deliveries still pending');
          await sleep(50);
        }
      };
      await failRuns(AUTO_DISABLE_AFTER - 1);
      expect(await failures(hook.id)).toBe(AUTO_DISABLE_AFTER - 1);
      // a successful ping proves the endpoint works again
      rx.script(p, 200);
      expect((await t.call('POST', `/api/v1/webhooks/${hook.id}/test`, { key })).body.status).toBe('succeeded');
      expect(await failures(hook.id)).toBe(0);
      await failRuns(AUTO_DISABLE_AFTER - 1);
      expect((await t.call('GET', `/api/v1/webhooks/${hook.id}`, { key })).body.is_active).toBe(true);
      await failRuns(1);
      const disabled = (await t.call('GET', `/api/v1/webhooks/${hook.id}`, { key })).body;
      expect(disabled.is_active).toBe(false);
      expect(disabled.disabled_reason).toMatch(new RegExp(`^Disabled automatically after ${AUTO_DISABLE_AFTER} consecutive failed deliveries \\(last error: HTTP 500\\)`));
      expect((await t.call('GET', `/api/v1/webhooks/${hook.id}/deliveries?status=failed`, { key })).body.total).toBe(2 * AUTO_DISABLE_AFTER - 1);

      const sent = rx.count(p);
      await canceledRun(t, agentId, key);
      await sleep(300);
      expect(rx.count(p)).toBe(sent);
      expect((await t.call('GET', `/api/v1/webhooks/${hook.id}/deliveries?event=test_run_canceled`, { key })).body.total).toBe(2 * AUTO_DISABLE_AFTER - 1);

      const enabled = (await t.call('PATCH', `/api/v1/webhooks/${hook.id}`, { key, body: { is_active: true } })).body;
      expect(enabled).toMatchObject({ is_active: true, disabled_reason: null });
      expect(await failures(hook.id)).toBe(0);
      rx.setFallback(200, p);
      await canceledRun(t, agentId, key);
      await rx.waitFor(sent + 1, 5000, p);
    });
  });
});

describe('outbound safety on the delivery path', () => {
  let strict: TestContext;
  const lookedUp: string[] = [];
  beforeAll(async () => {
    strict = await createTestContext({
      env: { REHEARSAL_WEBHOOK_RETRY_SCHEDULE: '0.05' }, webhooks: { pollIntervalMs: 50 },
      webhookHttp: { timeoutMs: 1500, resolve: async (host) => { lookedUp.push(host); return [{ address: '10.20.30.40', family: 4 }]; } },
    });
  });
  afterAll(async () => { await strict?.close(); });

  it('records a refused address as the attempt\'s error, for automatic attempts and pings alike', async () => {
    const hook = await newWebhook(strict, { url: 'http://hooks.internal.example/rehearsal' });
    await canceledRun(strict, await newAgent(strict));
    const d = await onlyDelivery(strict, hook.id);
    const done = await waitForDelivery(strict, hook.id, d.id, (x) => x.status === 'failed');
    expect(done.attempts).toHaveLength(2);
    for (const a of done.attempts) {
      expect(a).toMatchObject({ response_status: null, response_body: null });
      expect(a.error).toMatch(/^refused: hooks\.internal\.example resolves to 10\.20\.30\.40 \(private\)/);
    }
    expect(lookedUp).toContain('hooks.internal.example');

    const ping = await strict.call('POST', `/api/v1/webhooks/${hook.id}/test`);
    expect(ping.body).toMatchObject({ status: 'failed' });
    expect(ping.body.attempts[0].error).toMatch(/^refused: /);

    const local = await newWebhook(strict, { url: `${rx.url}/never` });
    const refused = await strict.call('POST', `/api/v1/webhooks/${local.id}/test`);
    expect(refused.body.attempts[0].error).toMatch(/^refused: 127\.0\.0\.1 is a loopback address/);
    expect(rx.count('/never')).toBe(0);
  });
});
