import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { errors, IdParams, Nullable, page, PageQuery, pathId, Timestamp, Uuid } from '../../http/common.js';
import { CreateTestSuiteBody, UpdateTestSuiteBody } from './test-suites.schemas.js';
import { createTestSuite, deleteTestSuite, getTestSuite, listTestSuites, updateTestSuite } from './test-suites.service.js';

export const TestSuiteSchema = Type.Object({
  id: Uuid,
  name: Type.String(),
  description: Nullable(Type.String()),
  scenario_count: Type.Integer(),
  scenario_ids: Type.Array(Uuid, { description: 'Scenario template ids in run order' }),
  is_default: Type.Boolean({ description: 'The suite POST /runs uses when test_suite_id is absent' }),
  source: Type.String({ enum: ['api', 'files'], description: '"files" for what `rehearsal sync` made' }),
  created_at: Timestamp,
  updated_at: Timestamp,
}, { $id: 'TestSuite' });

const id = (req: { params: { id: string } }) => pathId(req.params.id, 'NOT_FOUND', 'Test suite');
const tags = ['Test suites'];

export const testSuiteRoutes = (deps: Deps): FastifyPluginAsyncTypebox => async (app) => {
  app.post('/test-suites', {
    config: { idempotent: true },
    schema: { operationId: 'createTestSuite',
      tags, summary: 'Create a test suite',
      description: 'Unknown or invisible scenario ids answer 400 INVALID_FIELD_VALUE with `details.unknown_ids`.',
      body: CreateTestSuiteBody,
      response: { 201: TestSuiteSchema, ...errors(400, 409) },
    },
  }, async (req, reply) => reply.code(201).send(await createTestSuite(deps, req.auth, req.body)));

  app.get('/test-suites', {
    schema: { operationId: 'listTestSuites',
      tags, summary: 'List test suites, newest first',
      querystring: Type.Object(PageQuery),
      response: { 200: Type.Object({ test_suites: Type.Array(TestSuiteSchema), total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer() }), ...errors(400) },
    },
  }, async (req) => listTestSuites(deps, req.auth, page(req.query)));

  app.get('/test-suites/:id', {
    schema: { operationId: 'getTestSuite', tags, summary: 'Get a test suite', params: IdParams, response: { 200: TestSuiteSchema, ...errors(404) } },
  }, async (req) => getTestSuite(deps, req.auth, id(req)));

  app.put('/test-suites/:id', {
    schema: { operationId: 'updateTestSuite',
      tags,
      summary: 'Update a test suite (only the fields given change; scenario_ids replaces the list, order kept). The default suite may be renamed and edited and stays the default',
      params: IdParams,
      body: UpdateTestSuiteBody,
      response: { 200: TestSuiteSchema, ...errors(400, 404, 409) },
    },
  }, async (req) => {
    const suiteId = id(req);
    return updateTestSuite(deps, req.auth, suiteId, req.body);
  });

  app.delete('/test-suites/:id', {
    schema: { operationId: 'deleteTestSuite',
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
