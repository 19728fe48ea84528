import { eq } from 'drizzle-orm';
import { expect } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { webhookDeliveries, webhookEvents } from '../src/db/schema.js';
import type { TestContext } from './harness.js';
import type { ReceivedHook } from './fakes/webhook-receiver.js';

/** Delivery tests reach receivers on 127.0.0.1, with retries in tenths of a second. */
export const DELIVERY_ENV = { REHEARSAL_WEBHOOK_ALLOW_PRIVATE: 'true', REHEARSAL_WEBHOOK_RETRY_SCHEDULE: '0.1,0.1,0.1,0.1' };

export async function newAgent(t: TestContext, key?: string): Promise<string> {
  const res = await t.call('POST', '/api/v1/agents', {
    key, body: { provider: 'provider_4', name: `agent-${Math.random()}`, config: { base_url: 'http://127.0.0.1:9/v1', model: 'm' } },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

export async function newWebhook(t: TestContext, body: Record<string, unknown>, key?: string) {
  const res = await t.call('POST', '/api/v1/webhooks', { key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; secret: string };
}

/** A run that ends canceled at once: the cheapest way to a final state without a worker. */
export async function canceledRun(t: TestContext, agentId: string, key?: string): Promise<string> {
  const created = await t.call('POST', '/api/v1/runs', { key, body: { agent_id: agentId, max_scenarios: 1 } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const canceled = await t.call('POST', `/api/v1/runs/${created.body.id}/cancel`, { key });
  expect(canceled.body.status).toBe('canceled');
  return created.body.id;
}

export async function eventsOfRun(t: TestContext, runId: string) {
  return t.deps.db.orm.select().from(webhookEvents).where(eq(webhookEvents.runId, runId));
}

export async function deliveriesOfEvent(t: TestContext, eventId: string) {
  return t.deps.db.orm.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, eventId));
}

/** Polls a delivery's detail until `done` holds. */
export async function waitForDelivery(t: TestContext, webhookId: string, deliveryId: string, done: (d: any) => boolean, timeoutMs = 10_000, key?: string) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await t.call('GET', `/api/v1/webhooks/${webhookId}/deliveries/${deliveryId}`, { key });
    if (res.status === 200 && done(res.body)) return res.body;
    if (Date.now() > deadline) throw new Error(`delivery ${deliveryId} not done: ${JSON.stringify(res.body)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function onlyDelivery(t: TestContext, webhookId: string, key?: string) {
  const list = await t.call('GET', `/api/v1/webhooks/${webhookId}/deliveries`, { key });
  expect(list.status).toBe(200);
  expect(list.body.deliveries).toHaveLength(1);
  return list.body.deliveries[0];
}

/** Verifies a received request with the reference Standard Webhooks library and returns the payload. */
export function verified(secret: string, hook: ReceivedHook): any {
  const headers = {
    'webhook-id': String(hook.headers['webhook-id']),
    'webhook-timestamp': String(hook.headers['webhook-timestamp']),
    'webhook-signature': String(hook.headers['webhook-signature']),
  };
  const key = secret.startsWith('whsec_') ? secret : Buffer.from(secret).toString('base64');
  return new Webhook(key).verify(hook.body, headers);
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
