import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { errors, IdParams, Nullable, page, PageQuery, pathId, Timestamp, Uuid } from '../../http/common.js';
import { CreateApiKeyBody } from './api-keys.schemas.js';
import { createApiKey, listApiKeys, revokeApiKey } from './api-keys.service.js';

const ApiKey = Type.Object({
  id: Uuid, name: Type.String(), prefix: Type.String({ description: 'sk_live_ and the first 4 characters' }),
  last_four: Type.String(), created_at: Timestamp, expires_at: Nullable(Timestamp), last_used_at: Nullable(Timestamp),
}, { $id: 'ApiKey' });

export const apiKeyRoutes = (deps: Deps): FastifyPluginAsyncTypebox => async (app) => {
  app.post('/api-keys', {
    config: { idempotent: true },
    schema: { operationId: 'createApiKey',
      tags: ['API keys'], summary: 'Create an API key (the key is shown only in this response)',
      body: CreateApiKeyBody,
      response: { 201: Type.Composite([ApiKey, Type.Object({ key: Type.String() })]), ...errors(400) },
    },
  }, async (req, reply) => reply.code(201).send(await createApiKey(deps, req.auth, req.body)));

  app.get('/api-keys', {
    schema: { operationId: 'listApiKeys',
      tags: ['API keys'], summary: 'List active API keys (never the keys themselves)',
      querystring: Type.Object(PageQuery),
      response: { 200: Type.Object({ api_keys: Type.Array(ApiKey), total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer() }), ...errors(400) },
    },
  }, async (req) => listApiKeys(deps, req.auth, page(req.query)));

  app.delete('/api-keys/:id', {
    schema: { operationId: 'revokeApiKey', tags: ['API keys'], summary: 'Revoke an API key; it stops working on the next request', params: IdParams, response: { 204: Type.Null(), ...errors(404) } },
  }, async (req, reply) => {
    await revokeApiKey(deps, req.auth, pathId(req.params.id, 'NOT_FOUND', 'API key'));
    return reply.code(204).send(null);
  });
};
