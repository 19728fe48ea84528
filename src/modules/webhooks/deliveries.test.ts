import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../../test/harness.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../../test/fakes/webhook-receiver.js';
import {
  canceledRun, DELIVERY_ENV, deliveriesOfEvent, eventsOfRun, newAgent, newWebhook, onlyDelivery, sleep, verified, waitForDelivery,
} from '../../../test/webhook-helpers.js';

// generous: the receiver shares this process's event loop with the embedded database
const TIMEOUT_MS = 1500;
const MISSING_ID = '01900000-0000-7000-8000-000000000000';
const DELIVERY_FIELDS = ['attempt_count', 'created_at', 'event', 'event_id', 'id', 'next_attempt_at', 'status', 'updated_at', 'webhook_id'];
const ATTEMPT_FIELDS = ['attempt', 'attempted_at', 'duration_ms', 'error', 'response_body', 'response_status', 'trigger'];

let t: TestContext;
let rx: WebhookReceiver;
beforeAll(async () => {
  t = await createTestContext({ env: DELIVERY_ENV, webhooks: { pollIntervalMs: 50 }, webhookHttp: { timeoutMs: TIMEOUT_MS } });
  rx = await startWebhookReceiver();
});
afterAll(async () => { await t?.close(); await rx?.close(); });

const path = () => `/${Math.random().toString(36).slice(2)}`;

describe('retries', () => {
  it('500, timeout, 301 and a reset connection are retried on schedule until a 2xx, every attempt signed with the same webhook-id', async () => {
    const { key } = await t.newOrg();
    const agentId = await newAgent(t, key);
    const p = path();
    const hook = await newWebhook(t, { url: `${rx.url}${p}` }, key);
    rx.script(p, 500, 'timeout', 'redirect', 'reset');
    const runId = await canceledRun(t, agentId, key);
    const d = await onlyDelivery(t, hook.id, key);
    const done = await waitForDelivery(t, hook.id, d.id, (x) => x.status !== 'pending', 10_000, key);

    expect(Object.keys(d).sort()).toEqual(DELIVERY_FIELDS);
    expect(done).toMatchObject({ status: 'succeeded', event: 'test_run_canceled', attempt_count: 5, next_attempt_at: null, webhook_id: hook.id });
    expect(done.attempts.map((a: any) => Object.keys(a).sort())).toEqual(Array(5).fill(ATTEMPT_FIELDS));
    expect(done.attempts.map((a: any) => [a.attempt, a.trigger, a.response_status])).toEqual([
      [1, 'automatic', 500], [2, 'automatic', null], [3, 'automatic', 301], [4, 'automatic', null], [5, 'automatic', 200],
    ]);
    expect(done.attempts.map((a: any) => a.error)).toEqual([
      'HTTP 500', `timeout: no response within ${TIMEOUT_MS} ms`, 'redirect not followed (HTTP 301 to /moved)', expect.stringMatching(/^connection: /), null,
    ]);
    expect(done.attempts[0].response_body).toBe('status 500');
    expect(done.attempts[4].response_body).toBe('status 200');
    expect(done.attempts[1].duration_ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    for (let i = 1; i < 5; i++) {
      // each retry waits its (jittered) 0.1 s after the previous attempt ended
      const gap = Date.parse(done.attempts[i].attempted_at) - Date.parse(done.attempts[i - 1].attempted_at) - done.attempts[i - 1].duration_ms;
      expect(gap).toBeGreaterThanOrEqual(80);
    }

    const got = await rx.waitFor(5, 5000, p);
    expect(rx.count('/moved')).toBe(0);
    expect(new Set(got.map((h) => h.headers['webhook-id']))).toEqual(new Set([done.event_id]));
    for (const h of got) {
      const payload = verified(hook.secret, h);
      expect(payload).toEqual(done.payload);
    }
    const run = (await t.call('GET', `/api/v1/runs/${runId}`, { key })).body;
    expect(done.payload).toEqual({ event: 'test_run_canceled', test_run: run, id: done.event_id, created_at: expect.any(String) });
    expect(Object.keys(done.payload)).toEqual(['event', 'test_run', 'id', 'created_at']);
  });

  it('a delivery whose every attempt fails ends failed after the schedule runs out (1 + 4 retries)', async () => {
    const { key } = await t.newOrg();
    const agentId = await newAgent(t, key);
    const p = path();
    const hook = await newWebhook(t, { url: `${rx.url}${p}`, secret: 'plain-secret' }, key);
    rx.script(p, 503, 503, 503, 503, 503);
    await canceledRun(t, agentId, key);
    const d = await onlyDelivery(t, hook.id, key);
    const done = await waitForDelivery(t, hook.id, d.id, (x) => x.status !== 'pending', 10_000, key);
    expect(done).toMatchObject({ status: 'failed', attempt_count: 5, next_attempt_at: null });
    await sleep(300);
    expect(rx.count(p)).toBe(5);
    for (const h of rx.received.filter((r) => r.path === p)) expect(verified('plain-secret', h).event).toBe('test_run_canceled');
  });
});

describe('routing', () => {
  it('organization-level webhooks get every run, agent-specific ones only their agent\'s; the events filter and is_active apply', async () => {
    const { key } = await t.newOrg();
    const a1 = await newAgent(t, key);
    const a2 = await newAgent(t, key);
    const orgHook = await newWebhook(t, { url: `${rx.url}/org` }, key);
    const a1Hook = await newWebhook(t, { url: `${rx.url}/a1`, agent_id: a1 }, key);
    const a2Hook = await newWebhook(t, { url: `${rx.url}/a2`, agent_id: a2 }, key);
    const completedOnly = await newWebhook(t, { url: `${rx.url}/completed`, events: ['test_run_completed'] }, key);
    const inactive = await newWebhook(t, { url: `${rx.url}/inactive` }, key);
    await t.call('PATCH', `/api/v1/webhooks/${inactive.id}`, { body: { is_active: false }, key });
    const otherHook = await newWebhook(t, { url: `${rx.url}/other-org` });

    const runId = await canceledRun(t, a1, key);
    const [event] = await eventsOfRun(t, runId);
    const targets = (await deliveriesOfEvent(t, event.id)).map((d) => d.webhookId).sort();
    expect(targets).toEqual([orgHook.id, a1Hook.id].sort());
    for (const h of [orgHook, a1Hook]) {
      const d = await onlyDelivery(t, h.id, key);
      await waitForDelivery(t, h.id, d.id, (x) => x.status === 'succeeded', 10_000, key);
    }
    for (const h of [a2Hook, completedOnly, inactive]) expect((await t.call('GET', `/api/v1/webhooks/${h.id}/deliveries`, { key })).body.total).toBe(0);
    expect((await t.call('GET', `/api/v1/webhooks/${otherHook.id}/deliveries`)).body.total).toBe(0);
    await sleep(200);
    expect(['/a2', '/completed', '/inactive', '/other-org'].map((p) => rx.count(p))).toEqual([0, 0, 0, 0]);
  });
});

describe('delivery endpoints', () => {
  let hook: { id: string; secret: string };
  let deliveryId: string;
  beforeAll(async () => {
    const agentId = await newAgent(t);
    hook = await newWebhook(t, { url: `${rx.url}/endpoints` });
    await canceledRun(t, agentId);
    await canceledRun(t, agentId);
    deliveryId = (await t.call('GET', `/api/v1/webhooks/${hook.id}/deliveries`)).body.deliveries[0].id;
    await waitForDelivery(t, hook.id, deliveryId, (x) => x.status === 'succeeded');
  });

  it('lists newest first with the envelope, filters by status and event, and paginates', async () => {
    const all = await t.call('GET', `/api/v1/webhooks/${hook.id}/deliveries`);
    expect(all.body).toMatchObject({ total: 2, limit: 50, offset: 0 });
    expect(all.body.deliveries[0].created_at >= all.body.deliveries[1].created_at).toBe(true);
    const page = await t.call('GET', `/api/v1/webhooks/${hook.id}/deliveries?limit=1&offset=1`);
    expect(page.body).toMatchObject({ total: 2, limit: 1, offset: 1 });
    expect(page.body.deliveries[0].id).toBe(all.body.deliveries[1].id);
    expect((await t.call('GET', `/api/v1/webhooks/${hook.id}/deliveries?event=test_run_completed`)).body.total).toBe(0);
    expect((await t.call('GET', `/api/v1/webhooks/${hook.id}/deliveries?event=test_run_canceled&status=succeeded&limit=500`)).body).toMatchObject({ limit: 100 });
    expectError(await t.call('GET', `/api/v1/webhooks/${hook.id}/deliveries?status=done`), 400, 'INVALID_FIELD_VALUE');
    expectError(await t.call('GET', `/api/v1/webhooks/${hook.id}/deliveries?event=nope`), 400, 'INVALID_FIELD_VALUE');
    expectError(await t.call('GET', `/api/v1/webhooks/${hook.id}/deliveries?limit=0`), 400, 'INVALID_FIELD_VALUE');
  });

  it('answers 404 NOT_FOUND for absent, malformed and foreign ids', async () => {
    const other = await t.newOrg();
    const otherHook = await newWebhook(t, { url: `${rx.url}/x` }, other.key);
    for (const [url, key] of [
      [`/api/v1/webhooks/${MISSING_ID}/deliveries`, undefined],
      [`/api/v1/webhooks/not-a-uuid/deliveries`, undefined],
      [`/api/v1/webhooks/${hook.id}/deliveries`, other.key],
      [`/api/v1/webhooks/${hook.id}/deliveries/${MISSING_ID}`, undefined],
      [`/api/v1/webhooks/${hook.id}/deliveries/nope`, undefined],
      [`/api/v1/webhooks/${hook.id}/deliveries/${deliveryId}`, other.key],
      [`/api/v1/webhooks/${otherHook.id}/deliveries/${deliveryId}`, other.key],
    ] as const) expectError(await t.call('GET', url, { key }), 404, 'NOT_FOUND');
    expectError(await t.call('POST', `/api/v1/webhooks/${hook.id}/deliveries/${deliveryId}/redeliver`, { key: other.key }), 404, 'NOT_FOUND');
    expectError(await t.call('POST', `/api/v1/webhooks/${MISSING_ID}/test`), 404, 'NOT_FOUND');
    expectError(await t.call('POST', `/api/v1/webhooks/${otherHook.id}/test`), 404, 'NOT_FOUND');
  });

  it('redeliver makes a new attempt now with the same event id, payload and a fresh valid signature', async () => {
    const before = await waitForDelivery(t, hook.id, deliveryId, () => true);
    const n = rx.count('/endpoints');
    rx.script('/endpoints', 500);
    const failed = await t.call('POST', `/api/v1/webhooks/${hook.id}/deliveries/${deliveryId}/redeliver`);
    expect(failed.status).toBe(200);
    expect(failed.body).toMatchObject({ status: 'failed', attempt_count: before.attempt_count + 1, event_id: before.event_id });
    expect(failed.body.attempts.at(-1)).toMatchObject({ attempt: before.attempt_count + 1, trigger: 'redeliver', response_status: 500, error: 'HTTP 500' });
    const ok = await t.call('POST', `/api/v1/webhooks/${hook.id}/deliveries/${deliveryId}/redeliver`);
    expect(ok.body).toMatchObject({ status: 'succeeded', attempt_count: before.attempt_count + 2 });
    const got = rx.received.filter((r) => r.path === '/endpoints').slice(n);
    expect(got).toHaveLength(2);
    for (const h of got) {
      expect(h.headers['webhook-id']).toBe(before.event_id);
      expect(verified(hook.secret, h)).toEqual(before.payload);
    }
  });

  it('test sends a ping now and answers the delivery with its attempt, even for an inactive webhook', async () => {
    await t.call('PATCH', `/api/v1/webhooks/${hook.id}`, { body: { is_active: false } });
    const res = await t.call('POST', `/api/v1/webhooks/${hook.id}/test`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ event: 'ping', status: 'succeeded', attempt_count: 1, webhook_id: hook.id, next_attempt_at: null });
    expect(res.body.payload).toEqual({ event: 'ping', id: res.body.event_id, created_at: expect.any(String), webhook_id: hook.id });
    expect(res.body.attempts).toEqual([expect.objectContaining({ attempt: 1, trigger: 'test', response_status: 200, error: null })]);
    const h = rx.received.at(-1)!;
    expect(h.headers['webhook-id']).toBe(res.body.event_id);
    expect(verified(hook.secret, h)).toEqual(res.body.payload);
    expect((await t.call('GET', `/api/v1/webhooks/${hook.id}/deliveries?event=ping`)).body.total).toBe(1);

    rx.script('/endpoints', 'timeout');
    const slow = await t.call('POST', `/api/v1/webhooks/${hook.id}/test`);
    expect(slow.body).toMatchObject({ status: 'failed', attempt_count: 1 });
    expect(slow.body.attempts[0].error).toBe(`timeout: no response within ${TIMEOUT_MS} ms`);
    await t.call('PATCH', `/api/v1/webhooks/${hook.id}`, { body: { is_active: true } });
  });
});
