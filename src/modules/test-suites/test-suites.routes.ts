import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { errors, IdParams, Nullable, page, PageQuery, pathId, Timestamp, Uuid } from '../../http/common.js';
import { createTestSuite, deleteTestSuite, getTestSuite, listTestSuites, updateTestSuite } from './test-suites.service.js';

export const TestSuiteSchema = Type.Object({
  id: Uuid,
  name: Type.String(),
  description: Nullable(Type.String()),
  scenario_count: Type.Integer(),
  scenario_ids: Type.Array(Uuid, { description: 'Scenario template ids in run order' }),
  is_default: Type.Boolean({ description: 'The suite POST /runs uses when test_suite_id is absent' }),
  created_at: Timestamp,
  updated_at: Timestamp,
}, { $id: 'TestSuite' });

const Name = Type.String({ minLength: 1, maxLength: 200 });
const Description = Nullable(Type.String({ maxLength: 2000 }));
// Items are checked in the service: a bad UUID is named by index, unknown ids are listed together.
const ScenarioIds = Type.Array(Type.String(), { minItems: 1, maxItems: 1000, description: 'Scenario template UUIDs, in run order, no repeats' });
const id = (req: { params: { id: string } }) => pathId(req.params.id, 'NOT_FOUND', 'Test suite');
const tags = ['Test suites'];

export const testSuiteRoutes = (deps: Deps): FastifyPluginAsyncTypebox => async (app) => {
  app.post('/test-suites', {
    config: { idempotent: true },
    schema: {
      tags, summary: 'Create a test suite',
      description: 'Unknown or invisible scenario ids answer 400 INVALID_FIELD_VALUE with `details.unknown_ids`.',
      body: Type.Object({ name: Name, description: Type.Optional(Description), scenario_ids: ScenarioIds }, { additionalProperties: false }),
      response: { 201: TestSuiteSchema, ...errors(400, 409) },
    },
  }, async (req, reply) => reply.code(201).send(await createTestSuite(deps, req.auth, req.body)));

  app.get('/test-suites', {
    schema: {
      tags, summary: 'List test suites, newest first',
      querystring: Type.Object(PageQuery),
      response: { 200: Type.Object({ test_suites: Type.Array(TestSuiteSchema), total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer() }), ...errors(400) },
    },
  }, async (req) => listTestSuites(deps, req.auth, page(req.query)));

  app.get('/test-suites/:id', {
    schema: { tags, summary: 'Get a test suite', params: IdParams, response: { 200: TestSuiteSchema, ...errors(404) } },
  }, async (req) => getTestSuite(deps, req.auth, id(req)));

  app.put('/test-suites/:id', {
    schema: {
      tags,
      summary: 'Update a test suite (only the fields given change; scenario_ids replaces the list, order kept). The default suite may be renamed and edited and stays the default',
      params: IdParams,
      body: Type.Object({ name: Type.Optional(Name), description: Type.Optional(Description), scenario_ids: Type.Optional(ScenarioIds) }, { additionalProperties: false }),
      response: { 200: TestSuiteSchema, ...errors(400, 404, 409) },
    },
  }, async (req) => {
    const suiteId = id(req);
    return updateTestSuite(deps, req.auth, suiteId, req.body);
  });

  app.delete('/test-suites/:id', {
    schema: {
      tags,
      summary: 'Delete a test suite. The default suite (is_default: true) cannot be deleted: 409 INVALID_STATE, since POST /runs without test_suite_id uses it; past runs keep their test_suite_id',
      params: IdParams,
      response: { 204: Type.Null(), ...errors(404, 409) },
    },
  }, async (req, reply) => {
    await deleteTestSuite(deps, req.auth, id(req));
    return reply.code(204).send(null);
  });
};
