import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { errors, IdParams, page, PageQuery, pathId } from '../../http/common.js';
import { CreateScenarioBody, ScenarioList, ScenarioQuery, ScenarioSchema, UpdateScenarioBody } from './scenarios.schemas.js';
import { GenerateBody, generateScenarios } from './generate.js';
import { createScenario, deleteScenario, duplicateScenario, getScenario, listScenarios, updateScenario } from './scenarios.service.js';

const id = (req: { params: { id: string } }) => pathId(req.params.id, 'NOT_FOUND', 'Scenario template');
const tags = ['Scenario templates'];

export const scenarioRoutes = (deps: Deps): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/scenarios', {
    schema: { operationId: 'listScenarios',
      tags,
      summary: "List scenario templates: the organization's own templates newest first, then the built-in library in library order",
      description: 'Filters combine: `category` (exact, case-insensitive), `tag` (case-insensitive), `q` (case-insensitive substring of name or description).',
      querystring: Type.Object({ ...ScenarioQuery, ...PageQuery }),
      response: { 200: ScenarioList, ...errors(400) },
    },
  }, async (req) => listScenarios(deps, req.auth, req.query, page(req.query)));

  app.post('/scenarios/generate', {
    schema: { operationId: 'generateScenarios',
      tags,
      summary: 'Draft scenario templates from a description or system prompt (not saved)',
      description: 'Uses REHEARSAL_GENERATOR_MODEL (default: the judge model). Drafts are scenario files plus a `slug`; invalid or missing ones are asked for once more, then dropped (`scenarios.length + dropped = count`). No model configured: 409 INVALID_STATE naming the variable.',
      body: GenerateBody,
      response: {
        200: Type.Object({
          scenarios: Type.Array(Type.Object({ slug: Type.String(), category: Type.String() }, { additionalProperties: true })),
          dropped: Type.Integer(), model: Type.String(),
        }),
        ...errors(400, 409),
      },
    },
  }, async (req) => generateScenarios(deps, req.auth, req.body));

  app.get('/scenarios/:id', {
    schema: { operationId: 'getScenario', tags, summary: 'Get a scenario template (built-in or your own)', params: IdParams, response: { 200: ScenarioSchema, ...errors(404) } },
  }, async (req) => getScenario(deps, req.auth, id(req)));

  app.post('/scenarios', {
    config: { idempotent: true },
    schema: { operationId: 'createScenario',
      tags,
      summary: 'Create a scenario template',
      description: 'Names are unique, case-insensitively after trimming, among your templates and the built-in ones. Regex checks must compile.',
      body: CreateScenarioBody,
      response: { 201: ScenarioSchema, ...errors(400, 409) },
    },
  }, async (req, reply) => reply.code(201).send(await createScenario(deps, req.auth, req.body)));

  app.put('/scenarios/:id', {
    schema: { operationId: 'updateScenario',
      tags, summary: 'Update a scenario template (only the fields given change; built-ins are read-only: 403)', params: IdParams,
      body: UpdateScenarioBody,
      response: { 200: ScenarioSchema, ...errors(400, 403, 404, 409) },
    },
  }, async (req) => {
    const scenarioId = id(req);
    return updateScenario(deps, req.auth, scenarioId, req.body);
  });

  app.delete('/scenarios/:id', {
    schema: { operationId: 'deleteScenario',
      tags, summary: 'Delete a scenario template (built-ins: 403; used by a test suite: 409 INVALID_STATE listing the suites)', params: IdParams,
      response: { 204: Type.Null(), ...errors(403, 404, 409) },
    },
  }, async (req, reply) => {
    await deleteScenario(deps, req.auth, id(req));
    return reply.code(204).send(null);
  });

  app.post('/scenarios/:id/duplicate', {
    config: { idempotent: true },
    schema: { operationId: 'duplicateScenario',
      tags, summary: 'Make an editable copy in your organization, named "<name> (copy)", "<name> (copy 2)", …', params: IdParams,
      response: { 201: ScenarioSchema, ...errors(404) },
    },
  }, async (req, reply) => reply.code(201).send(await duplicateScenario(deps, req.auth, id(req))));
};
