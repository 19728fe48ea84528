import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { errors, IdParams, Nullable, page, PageQuery, pathId, Timestamp, Uuid } from '../../http/common.js';
import { DELIVERY_EVENTS, DELIVERY_STATUSES, getDelivery, listDeliveries, redeliver, sendTestPing } from './deliveries.service.js';

const DeliveryFields = {
  id: Uuid,
  webhook_id: Uuid,
  event_id: Uuid,
  event: Type.String({ enum: [...DELIVERY_EVENTS] }),
  status: Type.String({ enum: [...DELIVERY_STATUSES], description: 'pending while automatic attempts remain; succeeded after a 2xx; failed when attempts ran out' }),
  attempt_count: Type.Integer({ description: 'Attempts made so far, automatic and manual' }),
  next_attempt_at: Nullable(Timestamp),
  created_at: Timestamp,
  updated_at: Timestamp,
};

export const DeliverySchema = Type.Object(DeliveryFields, { $id: 'WebhookDelivery' });

export const AttemptSchema = Type.Object({
  attempt: Type.Integer({ description: '1, 2, … in the order made' }),
  trigger: Type.String({ enum: ['automatic', 'redeliver', 'test'] }),
  attempted_at: Timestamp,
  response_status: Nullable(Type.Integer()),
  response_body: Nullable(Type.String({ description: 'The first KiB of the response' })),
  duration_ms: Type.Integer(),
  error: Nullable(Type.String({ description: 'Why the attempt failed (timeout, refused address, connection error, non-2xx status, signing error, or "worker lost during the attempt; outcome unknown"); "in flight: no outcome recorded yet" while it is being made; null on success' })),
}, { $id: 'WebhookDeliveryAttempt' });

export const DeliveryDetailSchema = Type.Object({
  ...DeliveryFields,
  payload: Type.Record(Type.String(), Type.Unknown(), { description: 'The JSON body sent: {event, test_run, id, created_at} (a ping: {event, id, created_at, webhook_id})' }),
  attempts: Type.Array(AttemptSchema),
}, { $id: 'WebhookDeliveryDetail' });

const DeliveryParams = Type.Object({ id: Type.String(), delivery_id: Type.String() });
const ids = (req: { params: { id: string; delivery_id: string } }) => ({
  webhookId: pathId(req.params.id, 'NOT_FOUND', 'Webhook'),
  deliveryId: pathId(req.params.delivery_id, 'NOT_FOUND', 'Delivery'),
});
const tags = ['Webhooks'];

export const deliveryRoutes = (deps: Deps): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/webhooks/:id/deliveries', {
    schema: { operationId: 'listWebhookDeliveries',
      tags, params: IdParams,
      summary: 'List a webhook\'s deliveries, newest first (one per event sent to it; attempts are in the detail)',
      querystring: Type.Object({
        status: Type.Optional(Type.String({ enum: [...DELIVERY_STATUSES] })),
        event: Type.Optional(Type.String({ enum: [...DELIVERY_EVENTS] })),
        ...PageQuery,
      }),
      response: { 200: Type.Object({ deliveries: Type.Array(DeliverySchema), total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer() }), ...errors(400, 404) },
    },
  }, async (req) => listDeliveries(deps, req.auth, pathId(req.params.id, 'NOT_FOUND', 'Webhook'), req.query, page(req.query)));

  app.get('/webhooks/:id/deliveries/:delivery_id', {
    schema: { operationId: 'getWebhookDelivery',
      tags, params: DeliveryParams,
      summary: 'Get a delivery with the payload sent and every attempt (status, first KiB of the response, duration, error)',
      response: { 200: DeliveryDetailSchema, ...errors(404) },
    },
  }, async (req) => {
    const { webhookId, deliveryId } = ids(req);
    return getDelivery(deps, req.auth, webhookId, deliveryId);
  });

  app.post('/webhooks/:id/deliveries/:delivery_id/redeliver', {
    schema: { operationId: 'redeliverWebhookDelivery',
      tags, params: DeliveryParams,
      summary: 'Send a delivery again now (same event id and payload, fresh timestamp and signature); answers the delivery with the new attempt',
      description: 'One attempt, made before the response. A success settles the delivery (remaining automatic retries stop); a failure leaves a pending delivery pending and marks a settled one failed. Works on inactive webhooks too.',
      response: { 200: DeliveryDetailSchema, ...errors(404) },
    },
  }, async (req) => {
    const { webhookId, deliveryId } = ids(req);
    return redeliver(deps, req.auth, webhookId, deliveryId);
  });

  app.post('/webhooks/:id/test', {
    schema: { operationId: 'testWebhook',
      tags, params: IdParams,
      summary: 'Send a ping event now and answer the delivery with its attempt',
      description: 'Payload {event: "ping", id, created_at, webhook_id}, signed like every event. One attempt, no retries; sent even when the webhook is inactive or its events filter would exclude it.',
      response: { 200: DeliveryDetailSchema, ...errors(404) },
    },
  }, async (req) => sendTestPing(deps, req.auth, pathId(req.params.id, 'NOT_FOUND', 'Webhook')));
};
