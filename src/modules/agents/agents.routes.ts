import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { errors, IdParams, Nullable, page, PageQuery, pathId, Timestamp, Uuid } from '../../http/common.js';
import { PROVIDERS } from '../../providers/configs.js';
import { AgentQuery, CreateAgentBody, ToolAliases, ToolNames, UpdateAgentBody } from './agents.schemas.js';
import { createAgent, deleteAgent, getAgent, listAgents, updateAgent, validateAgent } from './agents.service.js';

export const AgentSchema = Type.Object({
  id: Uuid,
  provider: Type.String({ enum: [...PROVIDERS] }),
  name: Type.String(),
  description: Nullable(Type.String()),
  is_active: Type.Boolean(),
  config_fields: Type.Array(Type.String(), { description: 'Names of the config fields that are set; values are never returned' }),
  tool_names: ToolNames,
  tool_aliases: ToolAliases,
  created_at: Timestamp,
  updated_at: Timestamp,
}, { $id: 'Agent' });

const id = (req: { params: { id: string } }) => pathId(req.params.id, 'AGENT_NOT_FOUND', 'Agent');

export const agentRoutes = (deps: Deps, cancelRunsOfAgent: (orgId: string, agentId: string) => Promise<void>): FastifyPluginAsyncTypebox => async (app) => {
  app.post('/agents', {
    config: { idempotent: true },
    schema: { operationId: 'createAgent',
      tags: ['Agents'], summary: 'Register an agent',
      body: CreateAgentBody,
      response: { 201: AgentSchema, ...errors(400, 409) },
    },
  }, async (req, reply) => reply.code(201).send(await createAgent(deps, req.auth, req.body)));

  app.get('/agents', {
    schema: { operationId: 'listAgents',
      tags: ['Agents'], summary: 'List agents',
      querystring: Type.Object({ ...AgentQuery.properties, ...PageQuery }),
      response: { 200: Type.Object({ agents: Type.Array(AgentSchema), total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer() }), ...errors(400) },
    },
  }, async (req) => listAgents(deps, req.auth, req.query, page(req.query)));

  app.get('/agents/:id', {
    schema: { operationId: 'getAgent', tags: ['Agents'], summary: 'Get an agent', params: IdParams, response: { 200: AgentSchema, ...errors(404) } },
  }, async (req) => getAgent(deps, req.auth, id(req)));

  app.put('/agents/:id', {
    schema: { operationId: 'updateAgent',
      tags: ['Agents'], summary: 'Update an agent (config is replaced whole; provider cannot change)', params: IdParams,
      body: UpdateAgentBody,
      response: { 200: AgentSchema, ...errors(400, 404, 409) },
    },
  }, async (req) => {
    const agentId = id(req);
    return updateAgent(deps, req.auth, agentId, req.body);
  });

  app.delete('/agents/:id', {
    schema: { operationId: 'deleteAgent', tags: ['Agents'], summary: 'Delete an agent permanently; its in-flight runs are canceled', params: IdParams, response: { 204: Type.Null(), ...errors(404) } },
  }, async (req, reply) => {
    await deleteAgent(deps, req.auth, id(req), (agentId) => cancelRunsOfAgent(req.auth.orgId, agentId));
    return reply.code(204).send(null);
  });

  app.post('/agents/:id/validate', {
    schema: { operationId: 'validateAgent',
      tags: ['Agents'], summary: "Check the agent's credentials with the provider's cheapest call", params: IdParams,
      response: {
        200: Type.Object({ valid: Type.Boolean(), message: Type.String(), details: Type.Record(Type.String(), Type.Unknown()) }),
        ...errors(404),
      },
    },
  }, async (req) => validateAgent(deps, req.auth, id(req)));
};
