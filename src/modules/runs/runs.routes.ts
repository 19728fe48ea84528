import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { ScenarioMetrics } from '../../engine/types.js';
import { errors, Nullable, page, PageQuery, Uuid } from '../../http/common.js';
import { cancelRun, createRun, getRun, getRunResults, listRuns } from './runs.service.js';
import { RunSchema } from './runs.view.js';

const RunParams = Type.Object({ id: Type.String({ description: 'Run UUID or human id TR-<digits>' }) });

const ScenarioResult = Type.Object({
  id: Uuid, scenario_id: Uuid, scenario_name: Type.String(),
  status: Type.String({ enum: ['passed', 'failed', 'error', 'pending', 'running', 'grading'] }),
  passed: Type.Boolean({ description: 'false for scenario runs that errored or have not finished' }),
  grade_summary: Nullable(Type.String()), error_message: Nullable(Type.String()), duration_ms: Nullable(Type.Integer()),
  metrics: Nullable(ScenarioMetrics),
});

export const runRoutes = (deps: Deps): FastifyPluginAsyncTypebox => async (app) => {
  app.post('/runs', {
    config: { idempotent: true },
    schema: {
      tags: ['Runs'], summary: 'Start a test run of a suite against an agent',
      body: Type.Object({
        agent_id: Type.String({ description: 'UUID of the agent' }),
        test_suite_id: Type.Optional(Type.String({ description: 'UUID; the Default suite when absent' })),
        name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
        test_mode: Type.Optional(Type.String({ enum: ['demo', 'full'], description: 'demo = first 20 scenarios (default), full = all' })),
        max_scenarios: Type.Optional(Type.Integer({ minimum: 1 })),
        max_turns: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, description: 'Default 4' })),
      }, { additionalProperties: false, required: ['agent_id'] }),
      response: {
        201: Type.Object({ id: Uuid, test_run_id: Type.String(), status: Type.String(), total_scenarios: Type.Integer(), poll_url: Type.String() }),
        ...errors(400, 409),
      },
    },
  }, async (req, reply) => reply.code(201).send(await createRun(deps, req.auth, req.body)));

  app.get('/runs', {
    schema: {
      tags: ['Runs'], summary: 'List runs, newest first',
      querystring: Type.Object({ status: Type.Optional(Type.String()), agent_id: Type.Optional(Type.String()), test_suite_id: Type.Optional(Type.String()), ...PageQuery }),
      response: { 200: Type.Object({ runs: Type.Array(RunSchema), total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer() }), ...errors(400) },
    },
  }, async (req) => listRuns(deps, req.auth, req.query, page(req.query)));

  app.get('/runs/:id', {
    schema: { tags: ['Runs'], summary: 'Get a run (poll every 5 s until completed, failed or canceled)', params: RunParams, response: { 200: RunSchema, ...errors(404) } },
  }, async (req) => getRun(deps, req.auth, req.params.id));

  app.get('/runs/:id/results', {
    schema: {
      tags: ['Runs'], summary: 'A run with its scenario results, in suite order', params: RunParams,
      querystring: Type.Object({ status: Type.Optional(Type.String({ description: 'passed, failed, error, or pending (= not finished)' })), ...PageQuery }),
      response: {
        200: Type.Composite([Type.Omit(RunSchema, []), Type.Object({
          results: Type.Array(ScenarioResult), results_total: Type.Integer(), results_limit: Type.Integer(), results_offset: Type.Integer(),
        })]),
        ...errors(400, 404),
      },
    },
  }, async (req) => getRunResults(deps, req.auth, req.params.id, req.query, page(req.query, 100, 500)));

  app.post('/runs/:id/cancel', {
    schema: {
      tags: ['Runs'], summary: 'Cancel a pending, running or grading run (idempotent on a canceled run)', params: RunParams,
      response: { 200: RunSchema, ...errors(404, 409) },
    },
  }, async (req) => cancelRun(deps, req.auth, req.params.id));
};
