import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { errors, IdParams, Nullable, page, pathId, Timestamp, Uuid } from '../../http/common.js';
import { deliveryRoutes } from './deliveries.routes.js';
import { createWebhook, deleteWebhook, getWebhook, listWebhooks, updateWebhook } from './webhooks.service.js';
import { CreateWebhookBody, UpdateWebhookBody, WEBHOOK_EVENTS, WebhookListQuery } from './webhooks.schemas.js';

export const WebhookSchema = Type.Object({
  id: Uuid,
  url: Type.String(),
  description: Nullable(Type.String()),
  agent_id: Nullable(Uuid),
  events: Type.Array(Type.String({ enum: [...WEBHOOK_EVENTS] })),
  is_active: Type.Boolean(),
  disabled_reason: Nullable(Type.String({ description: 'Why deliveries stopped, when the service disabled the webhook itself' })),
  created_at: Timestamp,
  updated_at: Timestamp,
}, { $id: 'Webhook' });

const id = (req: { params: { id: string } }) => pathId(req.params.id, 'NOT_FOUND', 'Webhook');
const tags = ['Webhooks'];

export const webhookRoutes = (deps: Deps): FastifyPluginAsyncTypebox => async (app) => {
  app.post('/webhooks', {
    config: { idempotent: true },
    schema: { operationId: 'createWebhook',
      tags, summary: 'Register a webhook (the secret is shown only in this response)',
      description: 'Without `secret` one is generated (`whsec_` + base64 of 32 random bytes). Without `agent_id` the webhook receives every run of the organization. `events` defaults to all run events.',
      body: CreateWebhookBody,
      response: { 201: Type.Composite([WebhookSchema, Type.Object({ secret: Type.String() })]), ...errors(400, 409) },
    },
  }, async (req, reply) => reply.code(201).send(await createWebhook(deps, req.auth, req.body)));

  app.get('/webhooks', {
    schema: { operationId: 'listWebhooks',
      tags, summary: 'List webhooks, newest first (never their secrets)',
      querystring: WebhookListQuery,
      response: { 200: Type.Object({ webhooks: Type.Array(WebhookSchema), total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer() }), ...errors(400) },
    },
  }, async (req) => listWebhooks(deps, req.auth, req.query, page(req.query)));

  app.get('/webhooks/:id', {
    schema: { operationId: 'getWebhook', tags, summary: 'Get a webhook', params: IdParams, response: { 200: WebhookSchema, ...errors(404) } },
  }, async (req) => getWebhook(deps, req.auth, id(req)));

  app.patch('/webhooks/:id', {
    schema: { operationId: 'updateWebhook',
      tags, summary: 'Update a webhook (only the fields given change; is_active: true also resets its failure count and disabled_reason)', params: IdParams,
      body: UpdateWebhookBody,
      response: { 200: WebhookSchema, ...errors(400, 404) },
    },
  }, async (req) => {
    const webhookId = id(req);
    return updateWebhook(deps, req.auth, webhookId, req.body);
  });

  app.delete('/webhooks/:id', {
    schema: { operationId: 'deleteWebhook', tags, summary: 'Delete a webhook and its delivery history (its pending retries stop)', params: IdParams, response: { 204: Type.Null(), ...errors(404) } },
  }, async (req, reply) => {
    await deleteWebhook(deps, req.auth, id(req));
    return reply.code(204).send(null);
  });

  await app.register(deliveryRoutes(deps));
};
